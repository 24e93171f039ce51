// What the scoreboard (/board) and the bowler's phone (/me) share: the
// lane's live stream and a few facts read from the lane JSON (building
// elements is dom.js's, which the whole panel shares). No dependencies.

import { LANGS } from './i18n.js';
import { h, PIN_ROWS } from './dom.js';

export { $, h, replace, setText, store, load, calloutText } from './dom.js';

export function param(name) {
  return new URLSearchParams(location.search).get(name);
}

// A language the pages speak, or null.
export function known(l) {
  return LANGS.includes(l) ? l : null;
}

async function fetchLane() {
  try {
    const r = await fetch('/api/lane', { headers: { Accept: 'application/json' }, cache: 'no-store' });
    return r.ok ? await r.json() : null;
  } catch (e) {
    return null;
  }
}

// Follows the lane: `onLane(lane)` for every snapshot, `onConn(state)` with
// 'ok' or 'down'. The event stream reconnects by itself after a drop; when
// the lane refuses it (too many screens follow the lane, or the daemon
// restarts) the page reads GET /api/lane every few seconds meanwhile and
// opens the stream again later.
export function follow(onLane, onConn) {
  let retry = 2000;
  let poller = null;
  let polled = false; // the last read while the stream is refused worked
  let streamed = false; // a snapshot came from the stream: the first read is older
  const poll = async () => {
    const lane = await fetchLane();
    polled = !!lane;
    onConn(lane ? 'ok' : 'down');
    if (lane) onLane(lane);
  };
  const open = () => {
    const es = new EventSource('/api/events');
    es.addEventListener('lane', (e) => {
      streamed = true;
      retry = 2000;
      if (poller) clearInterval(poller);
      poller = null;
      onConn('ok');
      try { onLane(JSON.parse(e.data)); } catch (err) { /* a torn message: the next one heals it */ }
    });
    es.onopen = () => onConn('ok');
    es.onerror = () => {
      if (!poller || !polled) onConn('down');
      if (es.readyState !== 2) return; // EventSource.CLOSED: it will not retry
      es.close();
      if (!poller) poller = setInterval(poll, 3000);
      setTimeout(open, retry);
      retry = Math.min(retry * 2, 30000);
    };
  };
  fetchLane().then((lane) => { if (lane && !streamed) onLane(lane); });
  if (window.EventSource) open();
  else { poll(); setInterval(poll, 2000); }
}

// ----- lane facts --------------------------------------------------------

function latestBlock(lane) {
  const nums = (lane.blocks || []).map((b) => b.block);
  for (const b of lane.bowlers || []) if (b.block) nums.push(b.block);
  return nums.length ? Math.max(...nums) : null;
}

export function blockInfo(lane) {
  const n = latestBlock(lane);
  const info = (lane.blocks || []).find((b) => b.block === n) || null;
  // The centre's id of the block, when its lineup gave one: the name the
  // centre calls it by.
  const next = lane.next_block;
  const name = (info && info.name) || (!info && next && next.block === n && next.name) || n;
  return { block: n, info, name };
}

// The lane order now: the entries of the latest block, the last one at
// each position (a substitute takes the place of the one before).
export function currentOrder(lane) {
  const n = latestBlock(lane);
  const byPos = new Map();
  (lane.bowlers || []).forEach((b, i) => {
    if (b.block === n) byPos.set(b.position === null || b.position === undefined ? i : b.position, b);
  });
  return [...byPos.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]);
}

// The game bowled now: the game of the bowler up, else the latest bowled.
export function gameNow(lane) {
  if (lane.up) return lane.up.game;
  let g = 0;
  for (const b of currentOrder(lane)) for (const x of b.games || []) g = Math.max(g, x.game);
  return g || 1;
}

// The pins standing now: for the ball up; else after the ball in play or
// the last callout; else the deck set.
export function standingNow(lane) {
  if (lane.up) return lane.up.standing || [];
  const ip = lane.in_play;
  if (ip) {
    const b = (lane.bowlers || []).find((x) => x.name === ip.bowler);
    const g = b && (b.games || []).find((x) => x.game === ip.game);
    const f = g && g.frames.find((x) => x.frame === ip.frame);
    const ball = f && f.balls[ip.ball - 1];
    if (ball) return ball.standing;
  }
  const cs = lane.callouts || [];
  if (cs.length) return cs[cs.length - 1].standing || [];
  if (lane.pinsetter && lane.pinsetter.deck) return lane.pinsetter.deck;
  return null;
}

// The pin diagram, the head pin nearest the viewer.
export function pinDiagram(standing, label, idp) {
  const set = new Set(standing);
  return h('div', { class: 'pins', role: 'img', 'aria-label': label, 'data-testid': idp + 'pins' },
    PIN_ROWS.map((row) => h('div', { class: 'pin-row' },
      row.map((n) => h('span', {
        class: 'pin ' + (set.has(n) ? 'up' : 'down'), 'aria-hidden': 'true',
        'data-testid': idp + 'pin-' + n, text: n,
      })))));
}

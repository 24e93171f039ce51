// What the scoreboard (/board) and the bowler's phone (/me) share: the
// lane's live stream, a few facts read from the lane JSON, and building
// the page's elements. No dependencies.

import { t, lang, LANGS } from './i18n.js';

export const $ = (id) => document.getElementById(id);
export const PIN_ROWS = [[7, 8, 9, 10], [4, 5, 6], [2, 3], [1]];

export function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'text') el.textContent = v;
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const kid of kids.flat(9)) {
    if (kid === null || kid === undefined || kid === false) continue;
    el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }
  return el;
}

// Replaces a container's content, keeping keyboard focus on the element
// with the same id when it is drawn again.
export function replace(container, ...kids) {
  const active = document.activeElement;
  const fid = active && container.contains(active) ? active.id : null;
  container.replaceChildren(...kids.flat(9).filter(Boolean));
  const again = fid && document.getElementById(fid);
  if (again) again.focus({ preventScroll: true });
}

// Sets text only when it changes (a live region would read it again).
export function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

export function param(name) {
  return new URLSearchParams(location.search).get(name);
}

export function store(k, v) {
  try {
    if (v === null) localStorage.removeItem(k);
    else localStorage.setItem(k, v);
  } catch (e) { /* private mode: the URL keeps it */ }
}

export function load(k) {
  try { return localStorage.getItem(k); } catch (e) { return null; }
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
  return { block: n, info: (lane.blocks || []).find((b) => b.block === n) || null };
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

// A callout as text in the page's language: the lane's own English text,
// or its words translated.
export function calloutText(c) {
  if (lang() === 'en' && c.text) return c.text;
  const words = (c.words || []).map((w) => (/^\d+$/.test(w) ? w : t('w_' + w)));
  return words.join(', ') || c.text || '';
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

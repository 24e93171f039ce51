// The lane cards: each lane's bowlers with their current game's frames
// (a compact copy of the lane's /board, drawn from the state the lane
// publishes: docs/replay-output.md), online or not (a lane of the
// competition that never connected in red), its journal and its alarms
// (hold, wrong deck, no pin report, pinsetter, journal); for a judge
// logged in, a button to hold or resume the lane and the pushes held for
// it while it is offline, each with a button to cancel it. A judge adds
// a lane to the competition (laneTools) and removes one never connected;
// an added lane's card says what its setting up needs.
import { t } from './i18n.js';
import { h, flags, clock, api } from './common.js';

const FRAMES = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

function latestBlock(s) {
  const nums = (s.blocks || []).map((b) => b.block);
  for (const b of s.bowlers || []) if (b.block) nums.push(b.block);
  return nums.length ? Math.max(...nums) : null;
}

// The lane order now: the latest block's bowlers, the last one at each
// place (a substitute takes the place of the one before).
export function order(s) {
  const n = latestBlock(s);
  const byPos = new Map();
  (s.bowlers || []).forEach((b, i) => {
    if (n === null || b.block === n) byPos.set(b.position === null || b.position === undefined ? i : b.position, b);
  });
  return [...byPos.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]);
}

// The game bowled now: the bowler up's, else the latest bowled.
export function gameNow(s, list) {
  if (s.up) return s.up.game;
  let g = 0;
  for (const b of list) for (const x of b.games || []) g = Math.max(g, x.game);
  return g || 1;
}

// What the card raises beyond the shared flags: a wrong deck, a pin
// report that did not come.
function alarms(s) {
  const out = flags(s);
  if (!s) return out;
  if (s.wrong_deck) out.push([t('wrongDeck'), 'bad']);
  const c = s.conduct || [];
  if (s.up && c.length && c[c.length - 1].kind === 'no_pin_report') out.push([t('noPinReport'), 'bad']);
  return out;
}

function frameCell(s, b, game, f) {
  const fr = game && (game.frames || []).find((x) => x.frame === f);
  const up = !!(s.up && s.up.bowler === b.name && s.up.frame === f);
  const cum = fr && fr.cumulative !== null && fr.cumulative !== undefined ? String(fr.cumulative) : '';
  return h('td', { class: 'fr' + (up ? ' up' : '') },
    h('span', { class: 'mk', text: (fr && fr.marks) || '' }),
    h('span', { class: 'cum', text: cum }));
}

function bowlerRow(s, b, g, i, lane) {
  const game = (b.games || []).find((x) => x.game === g);
  const isUp = !!(s.up && s.up.bowler === b.name);
  return h('tr', { class: isUp ? 'is-up' : null, 'data-testid': 'frames-' + lane + '-' + i },
    h('th', { scope: 'row', class: 'who', title: b.name, text: b.name }),
    FRAMES.map((f) => frameCell(s, b, game, f)),
    h('td', { class: 'tot', text: game ? String(game.total || 0) : '' }));
}

function frames(s, lane) {
  const list = order(s).slice(0, 4);
  if (!list.length) return null;
  const g = gameNow(s, list);
  return h('table', { class: 'frames' },
    h('caption', { text: t('gameN', g) }),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col', class: 'who' }, h('span', { class: 'vh', text: t('name') })),
      FRAMES.map((f) => h('th', { scope: 'col', 'aria-label': t('frame', f), text: f })),
      h('th', { scope: 'col', text: 'Σ' }))),
    h('tbody', {}, list.map((b, i) => bowlerRow(s, b, g, i, lane))));
}

function journal(s) {
  const j = s && s.journal;
  if (!j || !j.file) return t('journalNone');
  return t('journalOk', j.file, t('nLines', j.lines || 0));
}

// The commands pushes hold for lane `n` while it is offline, newest first.
export function heldFor(pushes, n) {
  return (pushes || []).filter((p) => p.lanes && p.lanes[n] && p.lanes[n].status === 'offline');
}

// The card's own actions: hold or resume, and each held push to cancel.
// `ctx`: { judge, pushes, hold(lane, on), cancel(push, lane) }.
function actions(l, ctx) {
  const s = l.state;
  const held = heldFor(ctx.pushes, l.lane);
  const list = held.length ? h('ul', { class: 'held', 'data-testid': 'held-' + l.lane }, held.map((p) => h('li', {},
    h('span', { text: t('heldPush', p.block || t('pushKind_' + p.kind), clock(p.at_unix || p.at), p.by) + ' ' }),
    ctx.judge ? h('button', { type: 'button', text: t('cancelPush'), 'aria-label': t('cancelPushOf', p.block || t('pushKind_' + p.kind), l.lane),
      onclick: () => ctx.cancel(p.id, l.lane) }) : null))) : null;
  if (!ctx.judge) return [list];
  const isHeld = !!(s && s.hold);
  const button = h('button', { type: 'button', class: isHeld ? 'primary' : null, 'data-testid': 'hold-' + l.lane,
    text: isHeld ? t('resumeLane', l.lane) : t('holdLane', l.lane), onclick: () => ctx.hold(l.lane, !isHeld) });
  return [list, h('p', { class: 'actions' }, button)];
}

const JSON_POST = (body) => ({ method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

// The lanes as `lanecall centre-acl --lanes` takes them: "1-4, 9".
export function lanesText(list) {
  const out = [];
  for (const n of [...list].sort((a, b) => a - b)) {
    const last = out[out.length - 1];
    if (last && last[1] === n - 1) last[1] = n; else out.push([n, n]);
  }
  return out.map(([a, b]) => (a === b ? String(a) : a + '-' + b)).join(', ');
}

// What a lane never connected needs (docs/centre.md, "Lanes added and
// removed on the page"): a login on the embedded broker, or Mosquitto's
// login and access rules, then the lane's own [centre] settings.
function setup(l, ctx) {
  if (!l.never_connected || !ctx.judge) return null;
  const all = lanesText((ctx.lanes || []).map((x) => x.lane));
  const text = l.login === false ? t('laneNoLogin', l.lane)
    : l.login === null || l.login === undefined ? (l.added ? t('laneMosquitto', l.lane, all) : null)
      : t('laneSetUp', l.lane);
  return text ? h('p', { class: 'setup', 'data-testid': 'setup-' + l.lane, text }) : null;
}

// A lane never connected taken off the competition, by a judge.
function removeButton(l, ctx) {
  if (!l.never_connected || !ctx.judge) return null;
  return h('button', { type: 'button', 'data-testid': 'remove-lane-' + l.lane, text: t('removeLane', l.lane),
    onclick: async () => {
      const r = await api('/api/lanes/remove', JSON_POST({ lane: l.lane }));
      if (ctx.answer) ctx.answer(r);
      if (ctx.refresh) ctx.refresh();
    } });
}

let toolsFor = null;

// The form that adds a lane, for a judge logged in, drawn into `box` once
// (what is typed stays while the cards are drawn again).
export function laneTools(box, ctx) {
  const key = JSON.stringify([ctx.judge || null, t('addLane')]);
  if (toolsFor === key) return;
  toolsFor = key;
  if (!ctx.judge) { box.replaceChildren(); return; }
  const input = h('input', { id: 'lane-add-number', type: 'number', min: '1', max: '999', required: true, inputmode: 'numeric' });
  const err = h('span', { class: 'alarm', role: 'alert', 'data-testid': 'lane-add-error' });
  const form = h('form', { class: 'lane-add', 'data-testid': 'lane-add',
    onsubmit: async (e) => {
      e.preventDefault();
      const r = await api('/api/lanes/add', JSON_POST({ lane: Number(input.value) }));
      err.textContent = r.status === 200 ? '' : (r.body && r.body.error) || String(r.status);
      if (r.status === 200) input.value = '';
      if (ctx.refresh) ctx.refresh();
    } },
    h('label', { for: 'lane-add-number', text: t('laneNumber') + ' ' }), input, ' ',
    h('button', { type: 'submit', text: t('addLane') }), ' ', err);
  box.replaceChildren(form);
}

export function laneCard(l, ctx = {}) {
  const s = l.state;
  const up = s && s.up;
  const m = l.mirror || {};
  const never = !!l.never_connected;
  return h('article', { class: 'card' + (l.online ? '' : ' off') + (never ? ' never' : ''), 'data-testid': 'lane-' + l.lane },
    h('div', { class: 'card-head' },
      h('h2', { text: t('lane', l.lane) }),
      h('span', { class: 'pill ' + (l.online ? 'good' : 'bad'), text: never ? t('neverConnected') : l.online ? t('online') : t('offline') })),
    never ? null : h('p', { class: 'up', text: up ? t('up', up.bowler, up.game, up.frame, up.ball) : t('nobodyUp') }),
    h('ul', { class: 'flags' }, alarms(s).map(([text, tone]) => h('li', { class: 'pill ' + tone, text }))),
    s ? frames(s, l.lane) : null,
    never ? null : h('p', { class: 'mirror', text: journal(s) }),
    never ? null : h('p', { class: 'mirror', text: t('copyLines', t('nLines', m.lines || 0), m.gaps, m.conflicts) }),
    m.failed ? h('p', { class: 'pill bad', 'data-testid': 'mirror-failed-' + l.lane, text: t('mirrorFailed', m.failed) }) : null,
    l.added ? h('p', { class: 'mirror', text: t('laneAdded', l.added.by, clock(l.added.at)) }) : null,
    setup(l, ctx),
    ...actions(l, ctx),
    removeButton(l, ctx));
}

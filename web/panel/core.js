// What every part of the panel shares: its state, building elements,
// talking to the lane, the confirmations (with Undo) and facts read from
// the lane JSON. No dependencies.

import { t, lang } from './i18n.js';
import { $, h, replace, setText } from './dom.js';

export { $, PIN_ROWS, h, replace, drawModel, setText } from './dom.js';

export const ALL_PINS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
// How long a confirmation offers its Undo.
const UNDO_MS = 10000;

export const S = {
  lane: null,        // the latest lane JSON
  judge: null,       // the logged-in judge's name
  pinNames: false,   // whether a PIN names its judge (no name field)
  security: null,    // wrong PINs and the lockout, for judges
  event: '',         // the event's title, for the printed sheet
  conn: 'wait',      // wait | ok | down
  tab: 'lane',       // the tab shown
  hooks: {},         // renderAll, renderAuth: set by app.js
};

// ----- building elements ---------------------------------------------------


export const or = (v, d) => (v === null || v === undefined ? d : v);
export const tid = (id) => ({ id, 'data-testid': id });
export const sorted = (set) => [...set].sort((a, b) => a - b);

export function mmss(ms) {
  if (ms === null || ms === undefined) return '';
  const s = Math.floor(ms / 1000);
  return Math.floor(s / 60) + ':' + String(s % 60).padStart(2, '0');
}

// The wall-clock time (ms since 1970) of lane time `t`, from the lane's
// `wall_clock` (replay-output.md): its latest point at or before `t`, the
// first for a time before every point; null when the journal gives none.
export function wallAt(lane, t) {
  const points = (lane && lane.wall_clock) || [];
  if (t === null || t === undefined || !points.length) return null;
  let p = points[0];
  for (const q of points) if (q.t <= t) p = q;
  const ms = Date.parse(p.wall);
  return isNaN(ms) ? null : ms + (t - p.t);
}

// `ms` moved to the lane's time zone (the system's, `time_zone` in
// /api/lane; a past journal's report has none: the live lane's), read
// back with the UTC getters.
function onLane(lane, ms) {
  const z = (lane && lane.time_zone) || (S.lane && S.lane.time_zone);
  const off = z && typeof z.offset_s === 'number' ? z.offset_s * 1000 : -new Date(ms).getTimezoneOffset() * 60000;
  return new Date(ms + off);
}

const two = (n) => String(n).padStart(2, '0');

// Lane time `t` as the time of day on the lane, HH:MM:SS; as lane time
// (m:ss) when the journal gives no wall clock.
export function clockAt(lane, t) {
  const ms = wallAt(lane, t);
  if (ms === null) return mmss(t);
  const d = onLane(lane, ms);
  return two(d.getUTCHours()) + ':' + two(d.getUTCMinutes()) + ':' + two(d.getUTCSeconds());
}

// The date on the lane at lane time `t` (DD.MM.YYYY), or '' without a
// wall clock.
export function dateAt(lane, t) {
  const ms = wallAt(lane, t);
  if (ms === null) return '';
  const d = onLane(lane, ms);
  return two(d.getUTCDate()) + '.' + two(d.getUTCMonth() + 1) + '.' + d.getUTCFullYear();
}

export function fmtDate(s, dateOnly) {
  if (!s) return '';
  const d = new Date(s);
  if (isNaN(d)) return String(s);
  const o = { year: 'numeric', month: '2-digit', day: '2-digit' };
  if (!dateOnly) { o.hour = '2-digit'; o.minute = '2-digit'; }
  return d.toLocaleString(lang() === 'ru' ? 'ru-RU' : 'en-GB', o);
}

// A list of pins as people say it, never a bare number that could be read
// as a count: "all ten pins", "pin 10", "pins 7, 10", "no pins".
export function pinsText(list) {
  const l = list || [];
  if (l.length === 10) return t('fullRack');
  if (!l.length) return t('pinsNone');
  return t(l.length === 1 ? 'pinOne' : 'pinsMany', l.join(', '));
}



// ----- messages ------------------------------------------------------------

export function announce(text) {
  const live = $('announce');
  live.append(h('p', { text }));
  while (live.childNodes.length > 6) live.firstChild.remove();
}

// A refusal or a mistake: `say` is the text's key (and `args` its
// arguments) or a function giving the text, in the language shown.
let errSay = null;

export function showError(say, ...args) {
  errSay = typeof say === 'function' ? say : () => t(say, ...args);
  renderError();
}

export function clearError() {
  errSay = null;
  renderError();
}

export function renderError() {
  const text = errSay ? errSay() : '';
  setText($('error-text'), text);
  $('error').hidden = !errSay;
  // The open dialog covers the page's message: a refusal of what it sent is
  // shown in it too (the page's message is the one read out, role="alert").
  setText($('dialog-error'), text);
  $('dialog-error').hidden = !errSay || $('dialog-backdrop').hidden;
}

// The confirmation of what was done: `say` gives its text (in the language
// shown), `undo` (if any) what undoes it.
let toast = null;

function showToast(say, undo) {
  if (toast) clearTimeout(toast.timer);
  toast = { say, undo };
  toast.timer = setTimeout(() => {
    const box = $('toast');
    const focused = box.contains(document.activeElement);
    toast = null;
    renderToast();
    if (focused) $('main').focus({ preventScroll: true });
  }, UNDO_MS);
  renderToast();
}

export function renderToast() {
  const box = $('toast');
  if (!toast) { replace(box); return; }
  const u = toast.undo;
  replace(box, h('p', { class: 'toast', id: 'toast-msg', tabindex: '-1' },
    h('span', { 'data-testid': 'toast-text', text: toast.say() }),
    u ? h('button', { type: 'button', ...tid('toast-undo'), text: t('undo'), onclick: () => {
      toast.undo = null;
      renderToast();
      // The button is gone: focus stays on the message, which says next
      // whether the undo was taken.
      $('toast-msg').focus();
      act(u.ev, u.say);
    } }) : null));
}

// ----- the server ----------------------------------------------------------

export async function api(method, url, body) {
  const opts = { method, credentials: 'same-origin', headers: { Accept: 'application/json' } };
  if (body !== undefined) {
    opts.headers['Content-Type'] = 'application/json';
    opts.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(url, opts);
  } catch (e) {
    return { status: 0, data: { error: t('netError') } };
  }
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  return { status: res.status, data };
}

// Actions go to the lane one after another, in the order they were made.
let queue = Promise.resolve();

// Sends a panel event; on success shows `say()` and, when `undo` is given,
// an Undo button: `undo(T)` (T the lane time the action was journaled at)
// gives `{ev, say}`, the event that undoes it and its confirmation.
export function act(ev, say, undo) {
  const p = queue.then(() => send(ev, say, undo));
  queue = p.catch(() => false);
  return p;
}

async function send(ev, say, undo) {
  clearError();
  const r = await api('POST', '/api/actions', ev);
  if (r.status === 200) {
    const at = r.data && r.data.t;
    showToast(say || (() => t('done')), undo ? undo(at === undefined ? null : at) : null);
    checkSecurity();
    return true;
  }
  const msg = (r.data && r.data.error) || String(r.status);
  if (r.status === 401) {
    S.judge = null;
    S.hooks.renderAuth();
    S.hooks.renderAll();
    showError('sessionGone');
  } else {
    showError('refused', msg);
  }
  return false;
}

// Wrong PINs and the lockout, for a judge to see that someone is guessing.
// Asked for when the judge acts, not on a timer: a timer would keep an
// unattended tablet's session from ever going idle.
export async function checkSecurity() {
  if (!S.judge) return;
  const r = await api('GET', '/api/security');
  if (r.status === 200 && r.data) { S.security = r.data; S.hooks.renderStatus(); }
}

// ----- lane facts ----------------------------------------------------------

export const isJudge = () => !!S.judge;

export function blocksOf(lane) {
  const nums = new Set((lane.blocks || []).map((b) => b.block));
  for (const b of lane.bowlers || []) if (b.block) nums.add(b.block);
  return [...nums].sort((a, b) => a - b);
}

export function latestBlock(lane) {
  const all = blocksOf(lane);
  return all.length ? all[all.length - 1] : null;
}

export function blockInfo(lane, n) {
  return (lane.blocks || []).find((b) => b.block === n) || null;
}

// What the lane calls block `n`: the centre's id when its lineup gave one
// (journal.md, `lineup`'s `block`), so the lane and the centre say the
// same name; else its number on the lane.
export function blockName(lane, n) {
  const info = blockInfo(lane, n);
  const next = lane.next_block;
  return (info && info.name) || (!info && next && next.block === n && next.name) || n;
}

export function openBlock(lane) {
  return (lane.blocks || []).find((x) => !x.ended) || null;
}

// The lane order now (or at the end of block `block`): the entries of the
// latest block, the last entry for each position (a substitute replaces
// the one before it); `i` is the entry's index in the lane's bowlers.
export function currentOrder(lane, block) {
  const n = block === undefined ? latestBlock(lane) : block;
  const byPos = new Map();
  (lane.bowlers || []).forEach((b, i) => {
    if (b.block === n) byPos.set(or(b.position, i), { b, i });
  });
  return [...byPos.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]);
}

// A game's score counting only settled frames (a frame's running total is
// known once it and the bonus balls it waits for are bowled): null before
// the first frame settles.
export function settled(game) {
  let s = null;
  for (const f of (game && game.frames) || []) if (f.cumulative !== null && f.cumulative !== undefined) s = f.cumulative;
  return s;
}

// A bowler's series, and with handicap, as the lane reports them (its
// `series` and `series_with_handicap`: the handicap once for every game
// begun, as the replay and every export count it); null before any frame
// of theirs settles.
export function seriesOf(b) {
  if (!(b.games || []).some((g) => settled(g) !== null)) return null;
  return { series: b.series, withH: b.series_with_handicap };
}

// The teams of block `block`'s lane order with two bowlers or more: each
// team's score in each of `games` and its series, over every bowler of the
// block who bowled for it (a substitute's games count too), with handicap
// where a member has one; null where no frame of theirs is settled.
export function teams(lane, block, games) {
  const count = new Map();
  for (const { b } of currentOrder(lane, block)) if (b.team) count.set(b.team, (count.get(b.team) || 0) + 1);
  const add = (x, v) => (v === null ? x : (x || 0) + v);
  const out = [];
  for (const [team, n] of count) {
    if (n < 2) continue;
    const members = (lane.bowlers || []).filter((b) => b.block === block && b.team === team);
    const sum = { team, hd: members.some((b) => b.handicap), games: games.map(() => [null, null]), series: null, seriesH: null };
    for (const b of members) {
      games.forEach((g, i) => {
        const s = settled(b.games.find((x) => x.game === g));
        sum.games[i] = [add(sum.games[i][0], s), add(sum.games[i][1], s === null ? null : s + (b.handicap || 0))];
      });
      const s = seriesOf(b);
      sum.series = add(sum.series, s ? s.series : null);
      sum.seriesH = add(sum.seriesH, s ? s.withH : null);
    }
    out.push(sum);
  }
  return out;
}

// The bowler's blindfold state that holds the lane: being adjusted, or a
// new check asked for.
export function blindfoldHeld(lane) {
  return (lane.blindfolds || []).filter((x) => x.adjusting || x.recheck);
}

export function pendingSlow(c) {
  return c.kind === 'slow_bowling' && c.level === 'penalty' && !c.confirmed_by && !c.withdrawn;
}

// ----- judge actions with their confirmation and Undo -----------------------

// The withdrawal of the action journaled at lane time `at` (none without it).
export function withdraw(at, what, say) {
  return at === null ? null : { ev: { ev: 'withdraw', at, ...what }, say };
}

// A penalty (`reason` free text, "illegal delivery" or "slow bowling"),
// undone by withdrawing it.
export function givePenalty(bowler, reason) {
  const what = reason === 'slow bowling' ? 'slowDone' : reason === 'illegal delivery' ? 'illegalDone' : 'penaltyDone';
  return act({ ev: 'penalty', bowler, reason }, () => t(what, bowler),
    (at) => withdraw(at, { of: 'penalty', bowler }, () => t('penaltyUndone', bowler)));
}

// A blindfold action (`blindfold_check`, `_adjust`, `_recheck`), undone by
// withdrawing it.
export function blindfold(of, bowler, ok) {
  const ev = { ev: of, bowler };
  if (of === 'blindfold_check') ev.ok = ok;
  const key = of === 'blindfold_check' ? (ok ? 'bfOkDone' : 'bfFailDone') : of === 'blindfold_adjust' ? 'bfAdjustDone' : 'bfRecheckDone';
  return act(ev, () => t(key, bowler),
    (at) => withdraw(at, { of, bowler }, () => t('bfUndone', bowler)));
}

// Holds or resumes the lane; undone by the opposite hold (with the reason
// the lane was held for).
export function hold(on, reason) {
  const was = S.lane && S.lane.hold;
  const ev = { ev: 'hold', on };
  if (on && reason) ev.reason = reason;
  const back = { ev: 'hold', on: !on };
  if (!on && was && was.reason) back.reason = was.reason;
  return act(ev, () => t(on ? 'holdDone' : 'resumeDone'),
    () => ({ ev: back, say: () => t(on ? 'resumeDone' : 'holdDone') }));
}

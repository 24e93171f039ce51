// Score grids: a frame's cell (the lane view's and the block's), a
// bowler's card with every game of the block, the printed sheet, and the
// dialog that corrects a recorded ball.

import { t } from './i18n.js';
import { legendList } from './legend.js';
import {
  $, h, tid, sorted, replace, act, isJudge, S, PIN_ROWS, ALL_PINS,
  blocksOf, blockInfo, blockName, settled, seriesOf, teams, latestBlock, fmtDate, dateAt,
} from './core.js';

const vh = (text) => h('span', { class: 'vh', text });

// A ball as frameCell draws it, for the legend (legend.js): `kind` its
// classes, `mark` its symbol (starred at a wrong deck).
export function legendBall(kind, mark) {
  return h('span', { class: 'balls' }, h('span', { class: 'ball' + (kind ? ' ' + kind : '') },
    h('span', { class: 'sym', text: mark + (kind === 'wrong-deck' ? '*' : '') })));
}

function ballWhat(ball, mark) {
  const parts = [];
  if (ball.foul) parts.push(t('foulWord'));
  if (mark === 'X') parts.push(t('strike'));
  else if (mark === '/') parts.push(t('spare'));
  else if (mark === '-') parts.push(t('gutter'));
  else if (!ball.foul) parts.push(t('pinsN', ball.pinfall));
  if (ball.split) parts.push(t('split'));
  if (ball.standing && ball.standing.length && ball.standing.length < 10) parts.push(t('standingList', ball.standing));
  if (ball.wrong_deck) parts.push(t('atWrongDeck'));
  return parts.join(', ');
}

// One frame's cell: its balls (two slots, three in the 10th, drawn empty
// or full so that a column keeps its width) and, once the frame is settled,
// its running total. `live`: the lane now (the ball up is marked, a judge
// taps a ball to correct it); `idp` prefixes the ids.
export function frameCell(lane, bi, b, game, fnum, live, idp, cur) {
  const frame = (game.frames || []).find((f) => f.frame === fnum);
  const up = live && lane.up && lane.up.bowler === b.name && lane.up.game === game.game && lane.up.frame === fnum;
  const ip = live && lane.in_play;
  const balls = [];
  for (let n = 1; n <= (fnum === 10 ? 3 : 2); n++) {
    const ball = frame && frame.balls[n - 1];
    if (!ball) {
      const next = up && lane.up.ball === n;
      balls.push(h('span', next ? { class: 'ball next', 'data-testid': idp + 'ball-up', role: 'img', 'aria-label': t('ballUpHere', n) } : { class: 'ball', 'aria-hidden': 'true' }));
      continue;
    }
    const mark = (frame.marks || '')[n - 1] || String(ball.pinfall);
    const inPlay = ip && ip.bowler === b.name && ip.game === game.game && ip.frame === fnum && ip.ball === n;
    const what = t('ballLabel', fnum, n, ballWhat(ball, mark) + (inPlay ? ', ' + t('inPlay') : ''));
    const cls = 'ball' + (ball.split ? ' split' : '') + (ball.foul ? ' foul' : '') + (inPlay ? ' in-play' : '') +
      (mark === 'X' || mark === '/' ? ' mark' : '') + (ball.wrong_deck ? ' wrong-deck' : '');
    // Starred, as on the printed sheet: bowled at a wrong deck, for the
    // judge to accept or declare dead.
    const inner = h('span', { class: 'sym', 'aria-hidden': 'true', title: ball.wrong_deck ? t('atWrongDeck') : null, text: mark + (ball.wrong_deck ? '*' : '') });
    const id = idp + 'ball-' + bi + '-' + game.game + '-' + fnum + '-' + n;
    balls.push(live && isJudge()
      ? h('button', { type: 'button', ...tid(id), class: cls, 'aria-label': what + '. ' + t('fix'),
        onclick: (e) => openCorrect(b.name, game.game, fnum, n, ball, e.currentTarget) }, inner)
      : h('span', { ...tid(id), class: cls, role: 'img', 'aria-label': what }, inner));
  }
  const cum = frame && frame.cumulative !== null && frame.cumulative !== undefined ? String(frame.cumulative) : '';
  return h('td', { ...tid(idp + 'frame-' + bi + '-' + game.game + '-' + fnum), class: 'frame' + (up ? ' up-frame' : '') + (cur ? ' cur' : '') },
    h('div', { class: 'balls' }, balls),
    h('div', { class: 'cum' }, h('span', { class: 'n', text: cum }), frame && !cum ? vh(t('notFinished')) : null));
}

// A game's total cell: the settled score, with handicap when there is one;
// nothing before the first frame settles.
export function totalCell(bi, b, game, idp) {
  const s = settled(game);
  const hd = b.handicap || 0;
  return h('td', { class: 'tot' },
    h('span', { ...tid(idp + 'total-' + bi + '-' + game.game), text: s === null ? '' : String(s) }),
    hd && s !== null ? h('span', { class: 'hd', ...tid(idp + 'total-hd-' + bi + '-' + game.game) },
      vh(t('withHdcp') + ' '), h('span', { 'aria-hidden': 'true', text: '+' + hd + ' = ' }), String(s + hd)) : null);
}

const cols = () => h('colgroup', {}, h('col', { class: 'c-g' }), ALL_PINS.map((f) => h('col', { class: f === 10 ? 'c-f10' : 'c-f' })), h('col', { class: 'c-tot' }));

// The bowler who took this one's place in the block, if any: the next
// entry at the same position.
function replacedBy(lane, b) {
  const all = lane.bowlers || [];
  return all.slice(all.indexOf(b) + 1).find((x) => x.block === b.block && x.position === b.position) || null;
}

// The games a bowler's grid shows: those bowled, and for the bowler now at
// that position the games still to come (a substitute's start from the
// game after the last one bowled at that position).
function gameRows(lane, b, gamesInBlock) {
  const played = b.games.map((x) => x.game);
  const same = (lane.bowlers || []).filter((x) => x.block === b.block && x.position === b.position);
  const latest = same.length === 0 || same[same.length - 1] === b;
  const nums = new Set(played);
  if (latest) {
    const before = same.filter((x) => x !== b).flatMap((x) => x.games.map((g) => g.game));
    const from = played.length ? Math.min(...played) : before.length ? Math.max(...before) + 1 : 1;
    for (let g = from; g <= gamesInBlock; g++) nums.add(g);
  }
  return [...nums].sort((x, y) => x - y).map((g) => b.games.find((x) => x.game === g) || { game: g, frames: [] });
}

// What a conduct entry is, short, for a badge: a foul names its game and frame.
export function shortConduct(c) {
  let s = t('k_' + c.kind);
  if (c.level) s += ' (' + t('lvl_' + c.level) + ')';
  if (c.game && c.frame) s += ' · ' + t('gf', c.game, c.frame);
  return s;
}

export function badges(lane, b) {
  return (lane.conduct || []).filter((c) => c.bowler === b.name && !c.withdrawn &&
    ['foul', 'slow_bowling', 'penalty', 'blindfold'].includes(c.kind));
}

// A bowler's card: every game of the block, totals, handicap and series.
function bowlerCard(lane, bi, b, gamesInBlock, live, idp) {
  const after = replacedBy(lane, b);
  const isUp = live && lane.up && lane.up.bowler === b.name;
  const hd = b.handicap || 0;
  const headId = idp + 'bowler-h-' + bi;
  const meta = [b.class, b.team, hd ? t('hdcp') + ' ' + hd : null].filter(Boolean).join(' · ');
  const fouls = badges(lane, b);
  const ser = seriesOf(b);
  const foot = (label, id, v) => h('tr', {},
    h('th', { scope: 'row', colspan: '11', class: 'series-h', text: label }),
    h('td', { class: 'tot', 'data-testid': idp + id + bi, text: v }));
  return h('article', { class: 'bowler' + (isUp ? ' is-up' : '') + (after ? ' left' : ''), 'aria-labelledby': headId, 'data-testid': idp + 'bowler-' + bi },
    h('h3', { id: headId, tabindex: '-1' },
      after ? null : h('span', { class: 'pos', text: (b.position || bi + 1) + '.' }), after ? null : ' ', b.name, ' ',
      h('span', { class: 'meta', text: meta }),
      after ? h('span', { class: 'badge left-badge', ...tid(idp + 'left-' + bi), text: t('leftFor', after.name) }) : null,
      isUp ? h('span', { class: 'badge up-badge', text: t('up') }) : null),
    fouls.length ? h('p', {}, fouls.map((c) => h('span', { class: 'badge warn-badge', text: shortConduct(c) }))) : null,
    h('table', { class: 'grid' },
      h('caption', { class: 'vh', text: b.name }),
      cols(),
      h('thead', {}, h('tr', {},
        h('th', { scope: 'col', text: t('game') }),
        ALL_PINS.map((f) => h('th', { scope: 'col', 'aria-label': t('frame') + ' ' + f, text: f })),
        h('th', { scope: 'col', text: t('total') }))),
      h('tbody', {}, gameRows(lane, b, gamesInBlock).map((g) => h('tr', {},
        h('th', { scope: 'row', class: 'gname' }, vh(t('game') + ' '), String(g.game)),
        ALL_PINS.map((f) => frameCell(lane, bi, b, g, f, live, idp)),
        totalCell(bi, b, g, idp)))),
      h('tfoot', {},
        foot(t('series'), 'series-', ser ? String(ser.series) : ''),
        hd ? foot(t('seriesHdcp'), 'series-hdcp-', ser ? String(ser.withH) : '') : null)));
}

export function blockLabel(lane, n) {
  const info = blockInfo(lane, n);
  const name = blockName(lane, n);
  if (!info) return t('blockPending', name);
  return t('blockN', name) + ' (' + (info.ended ? t('blockEnded') : t('blockOpen')) + ')';
}

export function blockPicker(lane, chosen, onpick, idp) {
  const nums = blocksOf(lane);
  if (nums.length < 2) return null;
  const id = idp + 'block-select';
  return h('p', { class: 'field inline noprint' },
    h('label', { for: id, text: t('block') }),
    h('select', { ...tid(id), onchange: (e) => onpick(Number(e.target.value)) },
      nums.map((n) => h('option', { value: n, selected: n === chosen, text: blockLabel(lane, n) }))));
}

// Every bowler's card in a block (null: all).
export function sheetFor(lane, block, live, idp) {
  const info = blockInfo(lane, block);
  const games = info ? info.games : 0;
  const cards = [];
  (lane.bowlers || []).forEach((b, i) => { if (b.block === block || block === null) cards.push(bowlerCard(lane, i, b, games, live, idp)); });
  return cards.length ? cards : [h('p', { text: t('noBowlers') })];
}

// The games bowled in a block, in order.
export function blockGames(lane, block) {
  const games = new Set();
  for (const b of lane.bowlers || []) if (b.block === block) for (const g of b.games) games.add(g.game);
  return [...games].sort((a, b) => a - b);
}

// The teams' totals of block `block` in `games` and their series, as a
// table (none without a team of two).
export function teamTable(lane, block, games, idp) {
  const ts = teams(lane, block, games);
  if (!ts.length) return null;
  const cell = (cls, [s, sH], hd) => h('td', {}, h('span', { class: cls, text: s === null ? '—' : String(s) }),
    hd && sH !== null ? h('span', { class: 'hd', text: t('withHdcpN', sH) }) : null);
  return h('table', { class: 'list teams', 'data-testid': idp + 'teams' },
    h('caption', { class: idp ? null : 'vh', text: t('teams') }),
    h('thead', {}, h('tr', {}, [t('team'), ...games.map((g) => t('gameN', g)), t('series')].map((x) => h('th', { scope: 'col', text: x })))),
    h('tbody', {}, ts.map((x) => h('tr', { 'data-testid': idp + 'team-' + x.team },
      h('th', { scope: 'row', text: x.team }),
      x.games.map((g) => cell('tg', g, x.hd)),
      cell('ts', [x.series, x.seriesH], x.hd)))));
}

// The printed sheet of `lane`'s block `block`: the event, the date it was
// bowled (by the lane's wall clock; `when`, the journal's start, for a
// journal that gives none), the lane, every bowler's games, the teams,
// the judges' signatures and when it was printed. Drawn into #print-sheet, which only print shows.
function printSheet(lane, block, when) {
  const info = blockInfo(lane, block) || {};
  const sign = (who) => h('p', { class: 'sign' }, who + ': ', h('span', { class: 'line' }), ' ' + t('signature') + ': ', h('span', { class: 'line' }));
  replace($('print-sheet'),
    h('h1', { 'data-testid': 'print-title', text: S.event || t('sheetTitle') }),
    h('p', { class: 'pmeta', 'data-testid': 'print-meta', text: [t('bowledOn', dateAt(lane, info.started_at) || fmtDate(when, true)), t('titleLane', lane.lane), block ? t('blockN', blockName(lane, block)) : null,
      info.games ? t('gamesN', info.games) : null, t('printedOn', fmtDate(new Date()))].filter(Boolean).join(' · ') }),
    sheetFor(lane, block, false, 'print-'),
    teamTable(lane, block, blockGames(lane, block), 'print-'),
    h('div', { class: 'plegend', 'data-testid': 'print-legend' }, h('p', { class: 'plegend-h', text: t('legendTitle') }), legendList(legendBall, 'print-', true)),
    h('div', { class: 'signs' }, sign(t('judge')), sign(t('judge')), sign(t('headJudge'))));
}

// Prints `lane`'s block `block`.
export function printNow(lane, block, when) {
  printSheet(lane, block, when);
  // The browser's beforeprint must not draw the live lane over it.
  S.printing = true;
  try { window.print(); } finally { S.printing = false; }
}

export function latestPrint() {
  if (S.lane) printSheet(S.lane, latestBlock(S.lane), new Date());
}

// ----- the correction dialog -------------------------------------------------

let dialog = null; // {bowler, game, frame, ball, standing:Set, foul, prev, opener}

function openCorrect(bowler, game, frame, ball, rec, opener) {
  const prev = { standing: rec ? rec.standing : [], foul: !!(rec && rec.foul) };
  dialog = { bowler, game, frame, ball, standing: new Set(prev.standing), foul: prev.foul, prev, opener: opener && opener.id };
  $('dialog-error').hidden = true;
  $('dialog-backdrop').hidden = false;
  document.body.classList.add('modal');
  for (const id of ['top', 'main']) $(id).setAttribute('aria-hidden', 'true');
  renderDialog();
  $('pin-7').focus();
}

export function closeDialog() {
  const d = dialog;
  dialog = null;
  $('dialog-backdrop').hidden = true;
  document.body.classList.remove('modal');
  for (const id of ['top', 'main']) $(id).removeAttribute('aria-hidden');
  const back = d && d.opener && $(d.opener);
  if (back) back.focus();
}

export function renderDialog() {
  const d = dialog;
  if (!d) return;
  $('dialog-title').textContent = t('correctTitle', d.bowler, d.game, d.frame, d.ball);
  replace($('dialog-pins'), PIN_ROWS.map((row) => h('div', { class: 'pin-row' }, row.map((n) => h('button', {
    type: 'button', ...tid('pin-' + n), class: 'pin ' + (d.standing.has(n) ? 'up' : 'down'),
    'aria-pressed': d.standing.has(n) ? 'true' : 'false',
    'aria-label': t('pinN', n) + ': ' + (d.standing.has(n) ? t('pinUp') : t('pinDown')),
    text: n,
    onclick: () => { if (d.standing.has(n)) d.standing.delete(n); else d.standing.add(n); renderDialog(); },
  })))));
  $('dialog-standing').textContent = t('standingList', sorted(d.standing));
  $('correct-foul').checked = !!d.foul;
}

export function setAll(up) {
  if (!dialog) return;
  dialog.standing = new Set(up ? ALL_PINS : []);
  renderDialog();
}

export function setFoul(on) {
  if (dialog) dialog.foul = on;
}

// Records the correction; undone by a correction back to what it was.
export async function submitDialog() {
  const d = dialog;
  if (!d) return;
  const ball = { bowler: d.bowler, game: d.game, frame: d.frame, ball: d.ball };
  const ev = { ev: 'correct', ...ball, standing: sorted(d.standing), foul: $('correct-foul').checked };
  const say = () => t('correctDone', d.bowler, d.frame, d.ball);
  if (await act(ev, say, () => ({ ev: { ev: 'correct', ...ball, standing: d.prev.standing, foul: d.prev.foul }, say: () => t('correctUndone', d.bowler, d.frame, d.ball) }))) closeDialog();
}

export function trapFocus(e) {
  if (!dialog) return;
  if (e.key === 'Escape') { e.preventDefault(); closeDialog(); return; }
  if (e.key !== 'Tab') return;
  const f = [...$('pin-dialog').querySelectorAll('button, input')].filter((x) => !x.disabled && x.offsetParent !== null);
  if (!f.length) return;
  const first = f[0], last = f[f.length - 1];
  if (e.shiftKey && document.activeElement === first) { e.preventDefault(); last.focus(); }
  else if (!e.shiftKey && document.activeElement === last) { e.preventDefault(); first.focus(); }
  else if (!$('pin-dialog').contains(document.activeElement)) { e.preventDefault(); first.focus(); }
}

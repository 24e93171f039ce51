// The lane view: every bowler's current game on one screen, the bowler and
// ball up, the standing pins large, the pin pad for a lane without a
// pinsetter, the teams' totals; one tap away, the whole block's sheet.

import { t } from './i18n.js';
import {
  $, h, tid, sorted, replace, act, isJudge, S, PIN_ROWS, ALL_PINS, currentOrder, latestBlock,
  blocksOf, pendingSlow, givePenalty, withdraw,
} from './core.js';
import { frameCell, totalCell, badges, shortConduct, blockLabel, blockPicker, sheetFor, teamTable, blockGames, printNow } from './sheet.js';

// The lane view's own state: the pin pad (opened by a judge while the
// pinsetter sends; the pins marked standing for the ball up) and the block
// sheet shown instead of the current game.
const L = { padOpen: false, pad: null, block: null, focusCard: null };

// The game the lane view shows: the one being bowled, else the latest.
function currentGame(lane, order) {
  if (lane.up) return lane.up.game;
  let g = 0;
  for (const { b } of order) for (const x of b.games) if (x.frames.length) g = Math.max(g, x.game);
  return g || 1;
}

// The frame being bowled: the one up, else the latest with a ball.
function currentFrame(lane, order, game) {
  if (lane.up) return lane.up.frame;
  let f = 1;
  for (const { b } of order) for (const fr of (b.games.find((x) => x.game === game) || { frames: [] }).frames) f = Math.max(f, fr.frame);
  return f;
}

const linkUp = (lane) => !!(lane.pinsetter && lane.pinsetter.link === 'up' && !lane.pinsetter.fault);

// The pad is there for a judge whenever someone is up and the pinsetter
// does not send (no link, or at fault), and on demand.
function padShown(lane) {
  return isJudge() && !!lane.up && (!linkUp(lane) || L.padOpen);
}

function standingNow(lane) {
  if (lane.up) return { standing: lane.up.standing || [], up: true };
  const cs = lane.callouts || [];
  if (cs.length) return { standing: cs[cs.length - 1].standing || [], up: false };
  return null;
}

function pinDiagram(standing, label) {
  const set = new Set(standing);
  return h('div', { class: 'pins big', role: 'img', 'data-testid': 'pin-diagram', 'aria-label': label || t('standingList', standing) },
    PIN_ROWS.map((row) => h('div', { class: 'pin-row' },
      row.map((n) => h('span', { class: 'pin ' + (set.has(n) ? 'up' : 'down'), 'aria-hidden': 'true', text: n })))));
}

function bowlerRows(lane, b, bi, game, cur) {
  const g = b.games.find((x) => x.game === game) || { game, frames: [] };
  const isUp = lane.up && lane.up.bowler === b.name;
  const meta = [b.class, b.team, b.handicap ? t('hdcp') + ' ' + b.handicap : null].filter(Boolean).join(' · ');
  const bf = (lane.blindfolds || []).find((x) => x.bowler === b.name);
  const marks = badges(lane, b);
  return h('tbody', { class: 'bw' + (isUp ? ' is-up' : ''), 'data-testid': 'row-' + bi },
    h('tr', { class: 'who-row' }, h('th', { colspan: '11', scope: 'rowgroup' },
      h('button', { type: 'button', class: 'who', ...tid('who-' + bi), 'aria-label': t('allGamesOf', (b.position || bi + 1) + '. ' + b.name),
        onclick: () => showBlock(bi) },
      h('span', { class: 'pos', text: (b.position || bi + 1) + '.' }), ' ', h('strong', { text: b.name }), h('span', { class: 'more', 'aria-hidden': 'true', text: ' ›' })),
      // What matters most first: a narrow row cuts off the end.
      isUp ? h('span', { class: 'badge up-badge', text: t('up') }) : null,
      bf && (bf.adjusting || bf.recheck) ? h('span', { class: 'badge warn-badge', ...tid('bf-badge-' + bi), text: bf.recheck ? t('bfRecheckShort') : t('bfAdjustShort') }) : null,
      marks.slice(-2).map((c) => h('span', { class: 'badge warn-badge', text: shortConduct(c) })),
      marks.length > 2 ? h('span', { class: 'badge warn-badge', text: '+' + (marks.length - 2) }) : null,
      h('span', { class: 'meta', text: meta }))),
    h('tr', { class: 'fr-row' },
      ALL_PINS.map((f) => frameCell(lane, bi, b, g, f, true, '', f === cur)),
      totalCell(bi, b, g, '')));
}

function laneTable(lane, order, game, cur, block) {
  return h('table', { class: 'lt', 'data-testid': 'lane-table' },
    h('caption', {}, h('span', { 'data-testid': 'lane-block', text: block ? blockLabel(lane, block) : t('noBlock') }), ' · ',
      h('span', { 'data-testid': 'lane-game', text: t('gameN', game) })),
    h('colgroup', {}, ALL_PINS.map((f) => h('col', { class: f === 10 ? 'c-f10' : 'c-f' })), h('col', { class: 'c-tot' })),
    h('thead', {}, h('tr', {},
      ALL_PINS.map((f) => h('th', { scope: 'col', class: f === cur ? 'cur' : null, 'aria-label': t('frame') + ' ' + f, text: f })),
      h('th', { scope: 'col', text: t('total') }))),
    order.length ? order.map(({ b, i }) => bowlerRows(lane, b, i, game, cur))
      : h('tbody', {}, h('tr', {}, h('td', { colspan: '11', class: 'none', text: t('noBowlers') }))));
}

// The pin pad: the pins still standing after the ball up are tapped, then
// Record; the pins down before it cannot be. Its pins, its help and its
// button, for the side column.
function pad(lane) {
  const up = lane.up;
  const key = JSON.stringify(up);
  if (!L.pad || L.pad.key !== key) L.pad = { key, marked: new Set() };
  const can = new Set(up.standing);
  const marked = L.pad.marked;
  const left = sorted(marked);
  const label = !left.length ? t(up.standing.length === 10 ? 'recStrike' : 'recSpare')
    : left.length === up.standing.length ? t('recNone') : t('recStanding', left.join(', '));
  return {
    text: [linkUp(lane) ? null : h('p', { class: 'alarm', ...tid('manual-offer'), text: lane.pinsetter && lane.pinsetter.fault ? t('manualFault') : t('manualOffer') }),
      h('p', { id: 'pad-h', class: 'padh', text: t('padHelp') })],
    pins: h('div', { class: 'pins big', role: 'group', 'aria-labelledby': 'pad-h', 'data-testid': 'pad' }, PIN_ROWS.map((row) => h('div', { class: 'pin-row' }, row.map((n) => {
      const on = marked.has(n);
      return h('button', {
        type: 'button', ...tid('pad-pin-' + n), class: 'pin ' + (!can.has(n) ? 'gone' : on ? 'up' : 'hit'),
        disabled: !can.has(n), 'aria-pressed': can.has(n) ? String(on) : null,
        'aria-label': t(can.has(n) ? 'pinStands' : 'pinGone', n), text: n,
        onclick: () => { if (on) marked.delete(n); else marked.add(n); renderLane(); },
      });
    })))),
    record: h('button', { type: 'button', class: 'primary record', ...tid('pad-record'), text: label, onclick: recordPad }),
  };
}

async function recordPad() {
  const lane = S.lane;
  const up = lane && lane.up;
  if (!up || !L.pad) return;
  const standing = sorted(L.pad.marked).filter((n) => up.standing.includes(n));
  // The pinsetter sends: a manual entry would count as this ball's report.
  if (linkUp(lane) && !window.confirm(t('padAsk', up.bowler, up.frame, up.ball))) return;
  const who = [up.bowler, up.frame, up.ball];
  if (await act({ ev: 'manual_pins', standing }, () => t('padDone', ...who, standing),
    (at) => withdraw(at, { of: 'manual_pins' }, () => t('padUndone', ...who)))) {
    L.pad = null;
    renderLane();
  }
}

// The bowler and ball up, the pins (the pad, or what stands), the buttons.
function side(lane) {
  const up = lane.up;
  const st = standingNow(lane);
  const judge = isJudge();
  const p = padShown(lane) ? pad(lane) : {
    text: [st ? h('p', { class: 'padh', text: (st.up ? '' : t('lastBall') + ': ') + t('standingList', st.standing) }) : null,
      up && !linkUp(lane) ? h('p', { class: 'alarm', ...tid('manual-offer'), text: t('manualLogin') }) : null],
    pins: st ? pinDiagram(st.standing) : null,
  };
  const slow = (lane.conduct || []).map((c, i) => ({ c, i })).filter(({ c }) => pendingSlow(c));
  return h('section', { class: 'side', 'aria-labelledby': 'up-now' },
    h('h3', { class: 'upnow', ...tid('up-now'), text: up ? t('upNow', up.bowler, up.game, up.frame, up.ball) : t('nobodyUp') }),
    h('div', { class: 'padtext' }, p.text),
    p.pins, p.record,
    h('div', { class: 'acts' },
      judge && up && linkUp(lane) ? h('button', { type: 'button', ...tid('pad-toggle'), 'aria-expanded': String(L.padOpen),
        text: L.padOpen ? t('padClose') : t('padOpen'), onclick: () => { L.padOpen = !L.padOpen; renderLane(); } }) : null,
      judge ? slow.map(({ c, i }) => h('button', { type: 'button', class: 'danger', ...tid('lane-confirm-' + i),
        text: t('confirmSlow', c.bowler), onclick: () => givePenalty(c.bowler, 'slow bowling') })) : null,
      h('button', { type: 'button', ...tid('block-view'), text: t('blockSheet'), onclick: () => showBlock(null) }),
      h('button', { type: 'button', ...tid('print-lane'), text: t('printShort'), onclick: () => printNow(lane, latestBlock(lane), new Date()) })));
}

// Shows the whole block's sheet, at bowler `bi`'s card (null: its top).
function showBlock(bi) {
  L.block = S.lane ? latestBlock(S.lane) : null;
  L.focusCard = bi === null ? 'h-lane' : 'bowler-h-' + bi;
  renderLane();
}

function blockView(el, lane) {
  const block = blocksOf(lane).includes(L.block) ? L.block : latestBlock(lane);
  replace(el,
    h('h2', { id: 'h-lane', tabindex: '-1', text: t('blockSheet') }),
    h('div', { class: 'row' },
      h('button', { type: 'button', class: 'primary', ...tid('lane-back'), text: t('backToLane'), onclick: () => { L.block = null; renderLane(); $('block-view').focus(); } }),
      h('button', { type: 'button', ...tid('print-block'), text: t('print'), onclick: () => printNow(lane, block, new Date()) })),
    blockPicker(lane, block, (n) => { L.block = n; renderLane(); }, ''),
    h('div', { id: 'sheet', 'data-testid': 'sheet', class: 'sheet' },
      h('h3', { class: 'blockh', text: block ? blockLabel(lane, block) : '' }),
      sheetFor(lane, block, true, '')),
    teamTable(lane, block, blockGames(lane, block), ''));
}

export function renderLane() {
  const el = $('panel-lane');
  const lane = S.lane;
  if (!lane) { replace(el, h('p', { text: t('loading') })); return; }
  if (L.block !== null) {
    blockView(el, lane);
    if (L.focusCard) { const f = $(L.focusCard); L.focusCard = null; if (f) f.focus(); }
    return;
  }
  const order = currentOrder(lane);
  const game = currentGame(lane, order);
  const cur = currentFrame(lane, order, game);
  replace(el,
    h('h2', { id: 'h-lane', class: 'vh', text: t('tabLane') }),
    h('div', { class: 'lane' },
      h('div', { class: 'board' }, laneTable(lane, order, game, cur, latestBlock(lane)), teamTable(lane, latestBlock(lane), [game], '')),
      side(lane)));
}

// The pad for the ball up, from elsewhere (a "no pin report" entry).
export function openPad() {
  L.padOpen = true;
  L.block = null;
}

// The scoreboard (/board): the current block's bowlers and their game in
// large type, the bowler and ball up, the pins standing and the lane's
// holds, for a TV or a second tablet. Read-only; live from /api/events.

import { setLang, lang, t } from './i18n.js';
import { pt } from './phone-words.js';
import { legendPanel, wireLegend } from './legend.js';
import {
  $, h, replace, setText, param, store, load, known, follow,
  currentOrder, blockInfo, gameNow, standingNow, pinDiagram,
} from './live.js';

const FRAMES = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

const S = {
  lane: null,
  conn: 'wait', // wait | ok | down
  lang: known(param('lang')), // chosen in the URL or on the page; else the lane's
};

function applyLang() {
  setLang(S.lang || known(S.lane && S.lane.speaker_language) || 'ru');
  document.documentElement.lang = lang();
  const b = $('lang-toggle');
  b.textContent = pt('langSwitch');
  b.setAttribute('lang', lang() === 'ru' ? 'en' : 'ru');
  b.setAttribute('aria-label', pt('langSwitchLabel'));
  $('theme-toggle').textContent = light() ? pt('themeDark') : pt('themeLight');
  const lg = $('legend-toggle');
  lg.textContent = t('legendBtn');
  lg.setAttribute('aria-label', t('legendBtnLabel'));
  if ($('legend').lang !== lang()) {
    replace($('legend'), legendPanel(ballBox, 'board-'));
    $('legend').lang = lang();
  }
  $('scores-h').textContent = pt('scores');
  $('now-h').textContent = pt('up');
}

function light() {
  return document.documentElement.classList.contains('light');
}

// Keeps a choice made on the page in the URL, so a reload keeps it too.
function setParam(k, v) {
  const u = new URL(location.href);
  u.searchParams.set(k, v);
  history.replaceState(null, '', u);
}

// ----- the score grid ------------------------------------------------------

// A ball's box (the legend draws its samples with it too): `kind` its
// classes (a split circled, a ball at a wrong deck starred, the ball in
// play boxed, the ball up filled), `mark` its symbol.
function ballBox(kind, mark) {
  return h('span', { class: 'ball' + (kind ? ' ' + kind : '') }, mark ? h('span', { class: 'sym', text: mark }) : null);
}

function frameCell(lane, b, i, game, f, isUp) {
  const fr = game && (game.frames || []).find((x) => x.frame === f);
  const upHere = isUp && lane.up.frame === f;
  const marks = (fr && fr.marks) || '';
  const ip = lane.in_play;
  const slots = [];
  const n = fr || upHere ? (f === 10 ? 3 : 2) : 0;
  for (let k = 1; k <= n; k++) {
    const m = marks[k - 1] || '';
    const ball = fr && (fr.balls || [])[k - 1];
    const inPlay = !!(ball && ip && ip.bowler === b.name && ip.game === game.game && ip.frame === f && ip.ball === k);
    const kind = [upHere && lane.up.ball === k ? 'next' : '', ball && ball.split ? 'split' : '',
      ball && ball.wrong_deck ? 'wrong-deck' : '', inPlay ? 'in-play' : ''].filter(Boolean).join(' ');
    slots.push(ballBox(kind, m));
  }
  const cum = fr && fr.cumulative !== null && fr.cumulative !== undefined ? String(fr.cumulative) : '';
  return h('td', { class: 'frame' + (upHere ? ' up' : ''), 'data-testid': 'board-frame-' + i + '-' + f },
    h('div', { class: 'balls', 'data-testid': 'board-marks-' + i + '-' + f }, slots),
    h('div', { class: 'cum', 'data-testid': 'board-cum-' + i + '-' + f, text: cum }),
    upHere ? h('span', { class: 'vh', text: pt('upBall', f, lane.up.ball) }) : null);
}

// A bowler: their name on a row of its own (the header of their rows),
// then the frames and the game's total.
function bowlerRows(lane, b, i, gnum) {
  const game = (b.games || []).find((x) => x.game === gnum);
  const isUp = !!(lane.up && lane.up.bowler === b.name);
  return h('tbody', { class: isUp ? 'is-up' : null, 'data-testid': 'board-row-' + i },
    h('tr', { class: 'namerow' }, h('th', { scope: 'rowgroup', colspan: '11', class: 'name' },
      h('span', { class: 'who', 'data-testid': 'board-name-' + i, text: b.name }),
      b.class ? h('span', { class: 'cls', text: ' ' + b.class }) : null,
      isUp ? h('span', { class: 'badge', text: ' ' + pt('upLabel') }) : null)),
    h('tr', { class: 'frames' },
      FRAMES.map((f) => frameCell(lane, b, i, game, f, isUp)),
      totalCell(b, i, game)));
}

// The game's total as far as it is settled and, for a bowler with a
// handicap, the line the panel shows under it: "+12 = 194".
function totalCell(b, i, game) {
  const s = settledTotal(game);
  const hd = b.handicap || 0;
  return h('td', { class: 'total' },
    h('div', { class: 'tot', 'data-testid': 'board-total-' + i, text: s }),
    hd && s !== '' ? h('div', { class: 'hd' }, h('span', { class: 'vh', text: t('withHdcp') + ': ' }),
      h('span', { class: 'n', 'data-testid': 'board-hd-' + i, text: '+' + hd + ' = ' + (Number(s) + hd) })) : null);
}

function grid(lane) {
  const order = currentOrder(lane).slice(0, 4);
  if (!order.length) return h('p', { class: 'empty', text: pt('noBowlers') });
  const g = gameNow(lane);
  return h('table', { class: 'grid', 'data-testid': 'board-table' },
    h('caption', { class: 'vh', text: pt('gameOf', g) }),
    h('colgroup', {}, FRAMES.map((f) => h('col', { class: f === 10 ? 'c-tenth' : 'c-frame' })), h('col', { class: 'c-total' })),
    h('thead', {}, h('tr', {},
      FRAMES.map((f) => h('th', { scope: 'col', 'aria-label': pt('frameN', f), text: f })),
      h('th', { scope: 'col', class: 'total', text: pt('total') }))),
    order.map((b, i) => bowlerRows(lane, b, i, g)));
}

// ----- the bowler up and the pins ------------------------------------------

function nowPanel(lane) {
  const up = lane.up;
  const st = standingNow(lane);
  return [
    h('p', { class: 'up-name', 'data-testid': 'board-up', text: up ? up.bowler : pt('nobodyUp') }),
    up ? h('p', { class: 'up-ball', 'data-testid': 'board-up-ball', text: pt('upBall', up.frame, up.ball) }) : null,
    st ? pinDiagram(st, pt('standingList', st), 'board-') : null,
    st ? h('p', { class: 'standing', 'data-testid': 'board-standing', text: pt('standingList', st) }) : null,
  ];
}

// ----- alerts ----------------------------------------------------------------

function alert(id, text) {
  const el = $(id);
  el.hidden = !text;
  setText(el, text || '');
}

function renderAlerts() {
  const lane = S.lane;
  alert('conn', S.conn === 'down' ? pt('connLost') : S.conn === 'wait' ? pt('connecting') : '');
  $('conn').classList.toggle('soft', S.conn === 'wait');
  if (!lane) return;
  alert('hold', lane.hold ? pt('hold', lane.hold.by, lane.hold.reason) : '');
  alert('journal', lane.journal && lane.journal.state === 'failed' ? pt('journalStop') : '');
  const names = new Set(currentOrder(lane).map((b) => b.name));
  const bf = (lane.blindfolds || []).filter((x) => (x.adjusting || x.recheck) && names.has(x.bowler))
    .map((x) => (x.adjusting ? pt('bfAdjust', x.bowler) : pt('bfRecheck', x.bowler)));
  alert('blindfold', bf.join(' · '));
}

function render() {
  applyLang();
  renderAlerts();
  const lane = S.lane;
  const title = lane && lane.lane ? pt('lane', lane.lane) + ' — ' + pt('board') : pt('board');
  setText($('title'), title);
  document.title = title;
  if (!lane) return;
  const { block, info, name } = blockInfo(lane);
  const order = currentOrder(lane);
  setText($('info'), [block ? pt('blockN', name) : '', order.length ? pt('gameOf', gameNow(lane), info && info.games) : '']
    .filter(Boolean).join(' · '));
  replace($('sheet'), grid(lane));
  replace($('now-body'), nowPanel(lane));
  fit();
}

// The type is as large as the screen allows (board.css sizes it by the
// screen); when a banner or a long name would make the page taller than
// the screen, it is made smaller step by step until the board fits.
function fit() {
  const root = document.documentElement;
  root.style.fontSize = '';
  let size = parseFloat(getComputedStyle(root).fontSize);
  for (let i = 0; i < 12 && root.scrollHeight > window.innerHeight; i++) {
    size *= 0.94;
    root.style.fontSize = size.toFixed(2) + 'px';
  }
  fitNumbers();
}

// Every running total, game total and handicap line inside its cell with
// a margin on each side: board.css sizes them for three digits; should the
// screen's font draw digits wider, the type of that kind is made smaller
// until the widest one fits (totals never run into the next cell's).
const NUMBERS = [['--cum-scale', '.grid .cum'], ['--tot-scale', '.grid .tot'], ['--hd-scale', '.grid .hd .n']];
const ROOM = 0.88; // of the cell's width

function fitNumbers() {
  const root = document.documentElement;
  const range = document.createRange();
  for (const [v, sel] of NUMBERS) {
    root.style.removeProperty(v);
    let scale = 1;
    for (let i = 0; i < 4; i++) {
      let worst = 1;
      for (const el of document.querySelectorAll(sel)) {
        range.selectNodeContents(el);
        const wide = range.getBoundingClientRect().width;
        const room = el.closest('td').clientWidth * ROOM;
        if (wide > room) worst = Math.min(worst, room / wide);
      }
      if (worst >= 1) break;
      scale *= worst * 0.98;
      root.style.setProperty(v, scale.toFixed(3));
    }
  }
}

function init() {
  const theme = param('theme') || load('lanecall.board.theme');
  document.documentElement.classList.toggle('light', theme === 'light');
  $('lang-toggle').addEventListener('click', () => {
    S.lang = lang() === 'ru' ? 'en' : 'ru';
    setParam('lang', S.lang);
    render();
  });
  $('theme-toggle').addEventListener('click', () => {
    const now = document.documentElement.classList.toggle('light') ? 'light' : 'dark';
    store('lanecall.board.theme', now);
    setParam('theme', now);
    render();
  });
  wireLegend($('legend-toggle'), $('legend'));
  window.addEventListener('resize', fit);
  render();
  follow((lane) => { S.lane = lane; render(); }, (c) => {
    if (S.conn === c) return;
    S.conn = c;
    renderAlerts();
    fit();
  });
}

init();

// The game's total as far as it is settled: the running total of the last
// frame scored for good (a strike waits for its next two balls).
function settledTotal(game) {
  const done = ((game && game.frames) || []).filter((f) => f.cumulative !== null && f.cumulative !== undefined);
  return done.length ? String(done[done.length - 1].cumulative) : '';
}

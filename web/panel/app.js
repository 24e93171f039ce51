// The lane panel: score sheet, lane order, blindfolds, judge actions,
// corrections and history. Reads /api/lane (and its event stream), acts
// through /api/actions. No dependencies.

import { t, setLang, lang, LANGS } from './i18n.js';

const $ = (id) => document.getElementById(id);
const PIN_ROWS = [[7, 8, 9, 10], [4, 5, 6], [2, 3], [1]];
const ALL_PINS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
const CLASSES = ['B1', 'B2', 'B3'];
const VOICES = ['pins', 'short', 'off'];
// A bowler's "extras" (split, the score on request: training): '' is the
// lane's [speaker] extras, and is left out of the lineup.
const EXTRAS = ['', 'on', 'off'];

const S = {
  lane: null,        // the latest lane JSON
  judge: null,       // the logged-in judge's name
  pinNames: false,   // whether a PIN names its judge (no name field)
  security: null,    // wrong PINs and the lockout, for judges
  conn: 'wait',      // wait | ok | down
  block: null,       // the block picked on the sheet (null: the latest)
  draft: null,       // the lane order being edited
  draftDirty: false,
  games: 3,
  history: null,     // the list of past journals
  viewId: null,      // the past journal being viewed
  viewLane: null,
  viewBlock: null,
  dialog: null,      // {mode, bowler, game, frame, ball, standing:Set, opener}
  seen: null,        // counts of callouts/errors/conduct already announced
};

// ----- small helpers -----------------------------------------------------

function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'text') el.textContent = v;
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'value') el.value = v;
    else if (k === 'checked' || k === 'disabled' || k === 'hidden' || k === 'selected') el[k] = !!v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const kid of kids.flat(9)) {
    if (kid === null || kid === undefined || kid === false) continue;
    el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }
  return el;
}

function or(v, d) {
  return v === null || v === undefined ? d : v;
}

function tid(id) {
  return { id, 'data-testid': id };
}

function mmss(ms) {
  if (ms === null || ms === undefined) return '';
  const s = Math.floor(ms / 1000);
  return Math.floor(s / 60) + ':' + String(s % 60).padStart(2, '0');
}

function announce(text) {
  const live = $('announce');
  const p = h('p', { text });
  live.append(p);
  while (live.childNodes.length > 6) live.firstChild.remove();
}

function showError(text) {
  $('error-text').textContent = text;
  $('error').hidden = false;
  // The open dialog covers the page's message: a refusal of what it sent is
  // shown in it too (the page's message is the one read out, role="alert").
  $('dialog-error').textContent = text;
  $('dialog-error').hidden = !S.dialog;
}

function clearError() {
  $('error').hidden = true;
  $('error-text').textContent = '';
  $('dialog-error').hidden = true;
  $('dialog-error').textContent = '';
}

// Replaces a container's content, keeping what was typed into its fields
// and keyboard focus (and the caret) on the element with the same id when
// it is drawn again: the lane may change while a judge types.
function replace(container, ...kids) {
  redraw(container, kids, true);
}

// Draws a form that is the picture of its model (every keystroke is in the
// model already): only focus and the caret are kept. Nothing typed is
// carried over by id, since after a move or a removal the same id holds
// another bowler.
function drawModel(container, ...kids) {
  redraw(container, kids, false);
}

function redraw(container, kids, keepTyped) {
  const active = document.activeElement;
  const fid = active && container.contains(active) ? active.id : null;
  let sel = null;
  try { sel = fid && active.selectionStart !== undefined ? [active.selectionStart, active.selectionEnd] : null; } catch (e) { sel = null; }
  const typed = new Map();
  if (keepTyped) for (const el of container.querySelectorAll('input[id], select[id], textarea[id]')) {
    if (el.type !== 'checkbox') typed.set(el.id, el.value);
  }
  while (container.firstChild) container.firstChild.remove();
  container.append(...kids.flat(9).filter(Boolean));
  for (const [id, v] of typed) {
    const el = document.getElementById(id);
    if (el && container.contains(el) && el.value !== v && (el.tagName !== 'SELECT' || [...el.options].some((o) => o.value === v))) el.value = v;
  }
  if (fid) {
    const again = document.getElementById(fid);
    if (again) {
      again.focus({ preventScroll: true });
      try { if (sel && again.setSelectionRange) again.setSelectionRange(sel[0], sel[1]); } catch (e) { /* not a text field */ }
    }
  }
}

// ----- the server --------------------------------------------------------

async function api(method, url, body) {
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

function act(ev) {
  const p = queue.then(() => send(ev));
  queue = p.catch(() => false);
  return p;
}

async function send(ev) {
  clearError();
  const r = await api('POST', '/api/actions', ev);
  if (r.status === 200) {
    announce(t('done'));
    checkSecurity();
    return true;
  }
  const msg = (r.data && r.data.error) || String(r.status);
  if (r.status === 401) {
    S.judge = null;
    renderAuth();
    renderAll();
    showError(t('sessionGone'));
  } else if (r.status === 400) {
    showError(t('badRequest', msg));
  } else {
    showError(msg);
  }
  announce(t('newError', r.status === 401 ? t('sessionGone') : msg));
  return false;
}

function connect() {
  api('GET', '/api/lane').then((r) => { if (r.status === 200 && r.data) setLane(r.data); });
  if (!window.EventSource) {
    setInterval(() => api('GET', '/api/lane').then((r) => {
      setConn(r.status === 200 ? 'ok' : 'down');
      if (r.status === 200 && r.data) setLane(r.data);
    }), 2000);
    return;
  }
  const es = new EventSource('/api/events');
  es.addEventListener('lane', (e) => {
    setConn('ok');
    try { setLane(JSON.parse(e.data)); } catch (err) { /* a torn message: the next one heals it */ }
  });
  es.onopen = () => setConn('ok');
  es.onerror = () => setConn('down');
}

function setConn(c) {
  if (S.conn === c) return;
  const was = S.conn;
  S.conn = c;
  renderStatus();
  if (c === 'down' || was === 'down') announce(c === 'down' ? t('connDown') : t('connOk'));
}

function setLane(lane) {
  const prev = S.lane;
  S.lane = lane;
  if (prev && JSON.stringify(prev.blocks) !== JSON.stringify(lane.blocks)) loadHistory();
  announceChanges(prev, lane);
  renderAll();
}

// Says each new ball's result, each new error and each new conduct entry,
// and that the journal is written again (its failure is the banner's alert).
function announceChanges(prev, lane) {
  if (journalFailure(prev) && !journalFailure(lane)) announce(t('journalOk'));
  const counts = {
    callouts: (lane.callouts || []).length,
    errors: errorTotal(lane),
    conduct: (lane.conduct || []).length,
  };
  if (S.seen) {
    for (const c of (lane.callouts || []).slice(S.seen.callouts)) {
      announce((c.bowler ? c.bowler + ': ' : '') + calloutText(c));
    }
    // The lane lists only the first and latest errors: read out the newest
    // few, and how many more, so noise never floods the screen reader.
    const fresh = counts.errors - S.seen.errors;
    if (fresh > 0) {
      const errs = lane.errors || [];
      const said = errs.slice(Math.max(0, errs.length - Math.min(fresh, 3)));
      for (const e of said) announce(t('newError', e.message));
      if (fresh > said.length) announce(t('moreErrors', fresh - said.length));
    }
    for (const c of (lane.conduct || []).slice(S.seen.conduct)) {
      announce(conductText(c));
    }
  }
  S.seen = counts;
}

function calloutText(c) {
  if (lang() === 'en' && c.text) return c.text;
  const words = (c.words || []).map((w) => (/^\d+$/.test(w) ? w : t('w_' + w)));
  return words.join(', ') || c.text || '';
}

// ----- lane facts ----------------------------------------------------------

function blocksOf(lane) {
  const nums = new Set((lane.blocks || []).map((b) => b.block));
  for (const b of lane.bowlers || []) if (b.block) nums.add(b.block);
  return [...nums].sort((a, b) => a - b);
}

function latestBlock(lane) {
  const all = blocksOf(lane);
  return all.length ? all[all.length - 1] : null;
}

function blockInfo(lane, n) {
  return (lane.blocks || []).find((b) => b.block === n) || null;
}

function openBlock(lane) {
  const b = (lane.blocks || []).find((x) => !x.ended);
  return b || null;
}

// The lane order now: the entries of the latest block, the last entry for
// each position (a substitute replaces the one before it).
function currentOrder(lane) {
  const n = latestBlock(lane);
  const byPos = new Map();
  (lane.bowlers || []).forEach((b, i) => {
    if (b.block === n) byPos.set(or(b.position, i), { b, i });
  });
  return [...byPos.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]);
}

function standingAfterLast(lane) {
  if (lane.up) return { standing: lane.up.standing || [], up: true };
  const ip = lane.in_play;
  if (ip) {
    const b = (lane.bowlers || []).find((x) => x.name === ip.bowler);
    const g = b && b.games.find((x) => x.game === ip.game);
    const f = g && g.frames.find((x) => x.frame === ip.frame);
    const ball = f && f.balls[ip.ball - 1];
    if (ball) return { standing: ball.standing, up: false };
  }
  const cs = lane.callouts || [];
  if (cs.length) return { standing: cs[cs.length - 1].standing || [], up: false };
  if (lane.pinsetter && lane.pinsetter.deck) return { standing: lane.pinsetter.deck, up: false };
  return null;
}

function isJudge() {
  return !!S.judge;
}

// ----- status strip ----------------------------------------------------------

function pill(el, text, tone) {
  el.textContent = text;
  el.className = 'pill ' + (tone || '');
}

function renderStatus() {
  const lane = S.lane;
  pill($('connection'), S.conn === 'ok' ? t('connOk') : S.conn === 'down' ? t('connDown') : t('connWait'),
    S.conn === 'ok' ? 'good' : 'bad');
  const ps = lane && lane.pinsetter;
  const link = ps ? ps.link : null;
  pill($('status-link'), link === 'up' ? t('linkUp') : link === 'down' ? t('linkDown') : t('linkNone'),
    link === 'up' ? 'good' : link === 'down' ? 'bad' : 'warn');
  const fault = ps && ps.fault;
  $('status-fault').hidden = !fault;
  if (fault) pill($('status-fault'), t('fault', fault), 'bad');
  const hold = lane && lane.hold;
  $('status-hold').hidden = !hold;
  if (hold) pill($('status-hold'), t('holdOn', hold.by, hold.reason), 'bad');
  // The bowler up waits for a judge at the blindfold: being adjusted, or a
  // new check asked for.
  const bf = lane && lane.up && (lane.blindfolds || []).find((x) => x.bowler === lane.up.bowler);
  const bfHeld = bf && (bf.recheck || bf.adjusting);
  $('status-blindfold').hidden = !bfHeld;
  if (bfHeld) pill($('status-blindfold'), bf.recheck ? t('heldForRecheck', bf.bowler) : t('heldFor', bf.bowler), 'bad');
  const sp = lane && lane.speaker;
  let st = t('speakerUnknown'), tone = 'warn';
  if (sp && sp.state === 'ready') { st = t('speakerReady') + (sp.device ? ' (' + sp.device + ')' : ''); tone = 'good'; }
  else if (sp && sp.state === 'no_device') { st = t('speakerNoDevice') + (sp.reason ? ': ' + sp.reason : ''); tone = 'bad'; }
  else if (sp && sp.state === 'off') { st = t('speakerOff') + (sp.reason ? ': ' + sp.reason : ''); }
  pill($('status-speaker'), st, tone);
  const mirror = lane && lane.journal && lane.journal.mirror;
  const mirrorFailed = !!mirror && mirror.state === 'failed';
  $('status-mirror').hidden = !mirrorFailed;
  if (mirrorFailed) pill($('status-mirror'), t('mirrorFailed', (mirror.reason || '') + (mirror.path ? ' (' + mirror.path + ')' : '')), 'warn');
  // Inputs dropped because the lane could not keep up: a noisy serial
  // cable or a flapping foul beam, for the technician.
  const inputs = (lane && lane.inputs) || {};
  const shed = (inputs.shed_serial || 0) + (inputs.shed_beam || 0);
  $('status-inputs').hidden = !shed;
  if (shed) pill($('status-inputs'), t('inputsShed', inputs.shed_serial || 0, inputs.shed_beam || 0), 'warn');
  renderJournal(lane);
  renderDeck(lane);
  $('title').textContent = lane && lane.lane ? 'Lanecall · ' + t('titleLane', lane.lane) : 'Lanecall';
  document.title = $('title').textContent;
}

// The journal's failure (null while it is written): the lane holds and
// scores nothing until it can write again.
function journalFailure(lane) {
  const j = lane && lane.journal;
  return j && j.state === 'failed' ? j.failed || {} : null;
}

// Sets text only when it changes: a live region would read it out again.
function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

// The banner while the journal cannot be written; journals set aside at
// start and the journal's notices in the status area.
function renderJournal(lane) {
  const failed = journalFailure(lane);
  $('journal-alert').hidden = !failed;
  document.body.classList.toggle('journal-failed', !!failed);
  if (failed) {
    setText($('journal-alert-text'), t('journalFailed', failed.reason || '?'));
    setText($('journal-alert-waiting'), t('journalWaiting', failed.waiting || 0, failed.shed || 0));
  }
  const j = (lane && lane.journal) || {};
  const notes = [
    ...(j.set_aside || []).map((a) => t('setAside', a.file, a.reason)),
    ...(j.notices || []).map((n) => fmtDate(n.at) + ' — ' + n.message),
  ];
  const box = $('journal-notes');
  box.hidden = !notes.length;
  replace(box, notes.length ? [h('h3', { text: t('journalNotes') }), h('ul', {}, notes.map((x) => h('li', { text: x })))] : []);
}

// A list of pins as people say it: "all ten", or 7-10.
function pinsText(list) {
  return list && list.length === 10 ? t('fullRack') : (list || []).join('-') || '—';
}

// The banner while the deck set is not the one the rules expect for the
// ball up (the judge has the machine re-rack or respot; the slow-bowling
// clock waits), or while the last ball was bowled at a wrong deck (the
// judge accepts it or declares it dead). Made here: it sits in the bar
// with the journal's alarm, so it stays in sight.
function renderDeck(lane) {
  let el = $('deck-alert');
  if (!el) {
    el = h('div', { id: 'deck-alert', 'data-testid': 'deck-alert', class: 'journal-alert deck-alert', role: 'alert', hidden: true },
      h('p', { id: 'deck-alert-text' }), h('p', { id: 'deck-alert-pins' }));
    $('journal-alert').before(el);
  }
  const w = lane && lane.wrong_deck;
  const last = lane && lane.last_ball;
  const lastWrong = !w && last && last.wrong_deck ? last : null;
  el.hidden = !w && !lastWrong;
  if (w) {
    setText($('deck-alert-text'), t('deckWrong', w.bowler, w.frame, w.ball));
    const parts = [t('deckExpected', pinsText(w.expected)), t('deckSet', pinsText(w.set))];
    if (w.missing.length) parts.push(t('deckMissing', w.missing.join(', ')));
    if (w.extra.length) parts.push(t('deckExtra', w.extra.join(', ')));
    setText($('deck-alert-pins'), parts.join(' · ') + '. ' + t('deckAsk'));
  } else if (lastWrong) {
    const d = lastWrong.wrong_deck;
    setText($('deck-alert-text'), t('lastWrongDeck', lastWrong.bowler, lastWrong.frame, lastWrong.ball));
    setText($('deck-alert-pins'), t('deckExpected', pinsText(d.expected)) + ' · ' + t('deckSet', pinsText(d.set)));
  }
}

// ----- pin diagram -----------------------------------------------------------

function pinDiagram(standing, label) {
  const set = new Set(standing);
  return h('div', { class: 'pins', role: 'img', 'aria-label': label || t('standingList', standing) },
    PIN_ROWS.map((row) => h('div', { class: 'pin-row' },
      row.map((n) => h('span', { class: 'pin ' + (set.has(n) ? 'up' : 'down'), 'aria-hidden': 'true', text: n })))));
}

// ----- score sheet -----------------------------------------------------------

function ballWhat(ball, mark) {
  const parts = [];
  if (ball.foul) parts.push(t('foulWord'));
  if (mark === 'X') parts.push(t('strike'));
  else if (mark === '/') parts.push(t('spare'));
  else if (mark === '-') parts.push(t('gutter'));
  else if (!ball.foul) parts.push(t('pinsN', ball.pinfall));
  if (ball.split) parts.push(t('split'));
  if (ball.standing && ball.standing.length && ball.standing.length < 10) parts.push(t('standingList', ball.standing));
  return parts.join(', ');
}

function frameCell(lane, bi, b, game, fnum, live) {
  const frame = (game.frames || []).find((f) => f.frame === fnum);
  const up = live && lane.up && lane.up.bowler === b.name && lane.up.game === game.game && lane.up.frame === fnum;
  const ip = live && lane.in_play;
  const slots = !frame && !up ? 0 : fnum === 10 ? 3 : 2;
  const balls = [];
  for (let n = 1; n <= slots; n++) {
    const ball = frame && frame.balls[n - 1];
    const id = (live ? '' : 'past-') + 'ball-' + bi + '-' + game.game + '-' + fnum + '-' + n;
    if (!ball) {
      const next = up && lane.up.ball === n;
      balls.push(h('span', { class: 'ball empty' + (next ? ' next' : ''), 'aria-hidden': 'true' }));
      continue;
    }
    const mark = (frame.marks || '')[n - 1] || String(ball.pinfall);
    const inPlay = ip && ip.bowler === b.name && ip.game === game.game && ip.frame === fnum && ip.ball === n;
    let what = ballWhat(ball, mark);
    if (ball.wrong_deck) what += ', ' + t('atWrongDeck');
    if (inPlay) what += ', ' + t('inPlay');
    const cls = 'ball' + (ball.split ? ' split' : '') + (ball.foul ? ' foul' : '') + (inPlay ? ' in-play' : '') +
      (mark === 'X' || mark === '/' ? ' mark' : '') + (ball.wrong_deck ? ' wrong-deck' : '');
    // Starred, as on the printed sheet: bowled at a wrong deck, for the
    // judge to accept or declare dead.
    const inner = h('span', { class: 'sym', 'aria-hidden': 'true', title: ball.wrong_deck ? t('atWrongDeck') : null, text: mark + (ball.wrong_deck ? '*' : '') });
    if (live && isJudge()) {
      balls.push(h('button', {
        type: 'button', ...tid(id), class: cls,
        'aria-label': t('ballLabel', fnum, n, what) + '. ' + t('fix'),
        onclick: (e) => openCorrect(b.name, game.game, fnum, n, ball, e.currentTarget),
      }, inner));
    } else {
      balls.push(h('span', { ...tid(id), class: cls, role: 'img', 'aria-label': t('ballLabel', fnum, n, what) }, inner));
    }
  }
  const cum = frame && frame.cumulative !== null && frame.cumulative !== undefined ? String(frame.cumulative) : '';
  return h('td', { ...tid((live ? '' : 'past-') + 'frame-' + bi + '-' + game.game + '-' + fnum), class: 'frame' + (up ? ' up-frame' : '') },
    h('div', { class: 'balls' + (fnum === 10 ? ' tenth' : '') }, balls),
    h('div', { class: 'cum' }, cum || h('span', { class: 'vh', text: frame ? t('notFinished') : '' })));
}

// The bowler who took this one's place in the block, if any: the next
// entry at the same position.
function replacedBy(lane, b) {
  const all = lane.bowlers || [];
  return all.slice(all.indexOf(b) + 1).find((x) => x.block === b.block && x.position === b.position) || null;
}

function bowlerCard(lane, bi, b, gamesInBlock, live) {
  const isUp = live && lane.up && lane.up.bowler === b.name;
  // The position's number is its current bowler's alone.
  const after = replacedBy(lane, b);
  const games = gameRows(lane, b, gamesInBlock);
  const hd = b.handicap || 0;
  const headId = 'bowler-h-' + (live ? '' : 'v') + bi;
  const meta = [b.class, b.team, hd ? t('hdcp') + ' ' + hd : null].filter(Boolean).join(' · ');
  const fouls = (lane.conduct || []).filter((c) => c.bowler === b.name && (c.kind === 'foul' || c.kind === 'slow_bowling' || c.kind === 'penalty' || c.kind === 'blindfold') && !c.withdrawn);
  return h('article', { class: 'bowler' + (isUp ? ' is-up' : '') + (after ? ' left' : ''), 'aria-labelledby': headId, 'data-testid': (live ? '' : 'past-') + 'bowler-' + bi },
    h('h3', { id: headId },
      after ? null : h('span', { class: 'pos', text: (b.position || bi + 1) + '.' }), after ? null : ' ', b.name, ' ',
      h('span', { class: 'meta', text: meta }),
      after ? h('span', { class: 'badge left-badge', ...tid((live ? '' : 'past-') + 'left-' + bi), text: t('leftFor', after.name) }) : null,
      isUp ? h('span', { class: 'badge up-badge', text: t('up') }) : null),
    isUp ? h('p', { class: 'upline', text: t('upNow', b.name, lane.up.game, lane.up.frame, lane.up.ball) }) : null,
    fouls.length ? h('p', { class: 'warnline' }, fouls.map((c) => h('span', { class: 'badge warn-badge', text: shortConduct(c) }))) : null,
    h('div', { class: 'grid-wrap', tabindex: '0', role: 'region', 'aria-labelledby': headId },
      h('table', { class: 'grid' },
        h('caption', { class: 'vh', text: b.name }),
        h('thead', {}, h('tr', {},
          h('th', { scope: 'col', text: t('game') }),
          ALL_PINS.map((f) => h('th', { scope: 'col', class: 'fnum', 'aria-label': t('frame') + ' ' + f, text: f })),
          h('th', { scope: 'col', text: t('total') }))),
        h('tbody', {}, games.map((g) => h('tr', {},
          h('th', { scope: 'row', class: 'gname' }, h('span', { class: 'vh', text: t('game') + ' ' }), String(g.game)),
          ALL_PINS.map((f) => frameCell(lane, bi, b, g, f, live)),
          h('td', { class: 'tot' },
            h('span', { ...tid((live ? '' : 'past-') + 'total-' + bi + '-' + g.game) }, g.empty ? '' : String(g.total)),
            hd && !g.empty ? h('span', { class: 'hd', 'aria-label': t('withHdcp') + ' ' + (g.total + hd) }, h('span', { 'aria-hidden': 'true', text: '+' + hd + ' = ' + (g.total + hd) })) : null)))),
        h('tfoot', {},
          h('tr', {},
            h('th', { scope: 'row', colspan: '11', class: 'series-h', text: t('series') }),
            h('td', { class: 'tot', 'data-testid': (live ? '' : 'past-') + 'series-' + bi, text: or(b.series, '') })),
          h('tr', {},
            h('th', { scope: 'row', colspan: '11', class: 'series-h', text: t('seriesHdcp') }),
            h('td', { class: 'tot', 'data-testid': (live ? '' : 'past-') + 'series-hdcp-' + bi, text: or(b.series_with_handicap, '') }))))));
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
  return [...nums].sort((x, y) => x - y).map((g) => b.games.find((x) => x.game === g) || { game: g, complete: false, total: 0, frames: [], empty: true });
}

function shortConduct(c) {
  let s = t('k_' + c.kind);
  if (c.level) s += ' (' + t('lvl_' + c.level) + ')';
  if (c.kind === 'foul' && c.frame) s += ' · ' + t('frame') + ' ' + c.frame;
  return s;
}

function blockPicker(lane, chosen, onpick, idp) {
  const nums = blocksOf(lane);
  if (nums.length < 2) return null;
  const id = idp + 'block-select';
  return h('p', { class: 'field inline' },
    h('label', { for: id, text: t('block') }),
    h('select', { ...tid(id), onchange: (e) => onpick(Number(e.target.value)) },
      nums.map((n) => h('option', { value: n, selected: n === chosen, text: blockLabel(lane, n) }))));
}

function blockLabel(lane, n) {
  const info = blockInfo(lane, n);
  if (!info) return t('blockPending', n);
  return t('blockN', n) + ' (' + (info.ended ? t('blockEnded') : t('blockOpen')) + ')';
}

function sheetFor(lane, block, live) {
  const info = blockInfo(lane, block);
  const gamesInBlock = info ? info.games : 0;
  const cards = [];
  (lane.bowlers || []).forEach((b, i) => { if (b.block === block || block === null) cards.push(bowlerCard(lane, i, b, gamesInBlock, live)); });
  return cards.length ? cards : [h('p', { text: t('noBowlers') })];
}

function renderSheet() {
  const el = $('panel-sheet');
  const lane = S.lane;
  if (!lane) { replace(el, h('h2', { id: 'h-sheet', text: t('tabSheet') }), h('p', { text: t('loading') })); return; }
  const latest = latestBlock(lane);
  const block = S.block !== null && blocksOf(lane).includes(S.block) ? S.block : latest;
  const linkDown = lane.pinsetter && lane.pinsetter.link === 'down';
  const st = standingAfterLast(lane);
  const now = h('div', { class: 'now' },
    h('div', { class: 'now-text' },
      h('p', { class: 'upnow', 'data-testid': 'up-now', text: lane.up ? t('upNow', lane.up.bowler, lane.up.game, lane.up.frame, lane.up.ball) : t('nobodyUp') }),
      st ? h('p', { text: (st.up ? '' : t('lastBall') + ': ') + t('standingList', st.standing) }) : null),
    st ? pinDiagram(st.standing) : null);
  const manual = linkDown ? h('div', { class: 'offer' },
    h('p', { text: t('manualOffer') }),
    isJudge() ? h('button', { type: 'button', class: 'primary', ...tid('manual-open'), onclick: (e) => openManual(e.currentTarget), text: t('manualOpen') }) : null) : null;
  replace(el,
    h('h2', { id: 'h-sheet', text: t('tabSheet') }),
    manual,
    now,
    blockPicker(lane, block, (n) => { S.block = n; renderSheet(); }, ''),
    h('div', { id: 'sheet', 'data-testid': 'sheet', class: 'sheet' },
      h('h3', { class: 'blockh', text: block ? blockLabel(lane, block) : '' }),
      sheetFor(lane, block, true)),
    conductSection(lane),
    errorsSection(lane));
}

function conductText(c) {
  const parts = [mmss(c.t), c.bowler, t('k_' + c.kind) + (c.level ? ' (' + t('lvl_' + c.level) + ')' : '')];
  if (c.seconds !== undefined && c.seconds !== null) parts.push(t('secs', c.seconds));
  if (c.game && c.frame && c.ball) parts.push(t('gfb', c.game, c.frame, c.ball));
  if (c.issue) parts.push(t('issue_' + c.issue));
  if (c.reason) parts.push(c.reason);
  if (c.text) parts.push(c.text);
  if (c.counted === false) parts.push(t('notCounted'));
  if (c.withdrawn) parts.push(t('withdrawn'));
  if (c.confirmed_by) parts.push(t('confirmedBy', c.confirmed_by));
  if (c.deck) parts.push(t('deckAgain', pinsText(c.deck)));
  if (c.by) parts.push(c.by);
  return parts.filter((x) => x !== null && x !== undefined && x !== '').join(' · ');
}

function pendingSlow(c) {
  return c.kind === 'slow_bowling' && c.level === 'penalty' && !c.confirmed_by && !c.withdrawn;
}

function conductSection(lane, idp) {
  const hid = (idp || '') + 'conduct-h';
  const list = lane.conduct || [];
  return h('section', { class: 'conduct', 'aria-labelledby': hid },
    h('h3', { id: hid, text: t('conduct') }),
    list.length ? h('ul', { class: 'clist', 'data-testid': (idp || '') + 'conduct-list' }, list.map((c, i) => h('li', {
      class: 'c-' + c.kind + (c.withdrawn ? ' withdrawn' : '') + (c.level === 'penalty' ? ' penalty' : ''),
    },
    h('span', { text: conductText(c) }),
    !idp && isJudge() && pendingSlow(c) ? h('button', { type: 'button', ...tid('confirm-penalty-' + i), onclick: () => act({ ev: 'penalty', bowler: c.bowler, reason: 'slow bowling' }), text: t('confirmPenalty') }) : null,
    !idp && isJudge() && c.kind === 'no_pin_report' && i === lastIndex(list, 'no_pin_report') ? h('button', { type: 'button', class: 'primary', ...tid('enter-pins-' + i), onclick: (e) => enterPins(e.currentTarget), text: t('enterPins') }) : null))) :
      h('p', { text: t('noConduct') }));
}

function lastIndex(list, kind) {
  for (let i = list.length - 1; i >= 0; i--) if (list[i].kind === kind) return i;
  return -1;
}

// Every error the lane counted, listed or not.
function errorTotal(lane) {
  return (lane.error_counts && lane.error_counts.total) || (lane.errors || []).length;
}

function errorsSection(lane) {
  const errs = lane.errors || [];
  if (!errs.length) return null;
  const omitted = lane.errors_omitted || 0;
  return h('details', { class: 'errs' },
    h('summary', { text: t('errors') + ' (' + errorTotal(lane) + ')' }),
    h('ul', {}, errs.map((e) => h('li', { text: (e.line ? '#' + e.line + ': ' : '') + e.message }))),
    omitted ? h('p', { text: t('errorsOmitted', omitted) }) : null);
}

// ----- lane order --------------------------------------------------------------

// The callouts' language for a bowler without their own: the lane's
// `[speaker] language`, never the screen's.
function laneLang() {
  const l = S.lane && S.lane.speaker_language;
  return LANGS.includes(l) ? l : 'ru';
}

// The editor's per-bowler fields, in the form's order, one entry each:
// `from` reads a bowler of the lane (null: a new bowler), `put` writes the
// field into the lineup's JSON, `shown` (if any) is what the form shows for
// a value. Kinds: text, number, select, checkbox.
const BOWLER_FIELDS = [
  { key: 'name', label: 'name', kind: 'text', attrs: { maxlength: '40', autocomplete: 'off', required: true },
    from: (b) => (b ? b.name : ''), put: (o, v) => { o.name = v.trim(); } },
  // No default: a judge picks the class of every new bowler.
  { key: 'class', label: 'cls', kind: 'select', blank: 'chooseClass', options: () => CLASSES, text: (o) => o,
    from: (b) => (b && b.class) || '', put: (o, v) => { o.class = v; } },
  { key: 'handicap', label: 'hdcp', kind: 'number', attrs: { inputmode: 'numeric', min: '0', max: '300' },
    from: (b) => (b && b.handicap) || 0, put: (o, v) => { o.handicap = Number(v) || 0; } },
  { key: 'team', label: 'team', kind: 'text', attrs: { maxlength: '40', autocomplete: 'off' },
    from: (b) => (b && b.team) || '', put: (o, v) => { if (v.trim()) o.team = v.trim(); } },
  { key: 'voice', label: 'voice', kind: 'select', options: () => VOICES, text: (o) => t('v_' + o),
    from: (b) => (b && b.voice) || 'pins', put: (o, v) => { o.voice = v; } },
  // null: the lane's language, kept so until a judge picks one; a new
  // bowler takes the lane's.
  { key: 'lang', label: 'lang', kind: 'select', options: () => LANGS, text: (o) => t('l_' + o),
    from: (b) => (b ? b.lang || null : laneLang()), shown: (v) => v || laneLang(), put: (o, v) => { if (v) o.lang = v; } },
  // '': the lane's `[speaker] extras`; 'on' (training) or 'off' (competition).
  { key: 'extras', label: 'extras', kind: 'select', options: () => EXTRAS, text: (o) => t('x_' + (o || 'lane')),
    from: (b) => (b && b.extras === true ? 'on' : b && b.extras === false ? 'off' : ''), put: (o, v) => { if (v) o.extras = v === 'on'; } },
];

function bowlerModel(b) {
  return Object.fromEntries(BOWLER_FIELDS.map((f) => [f.key, f.from(b || null)]));
}

function bowlerJson(d) {
  const o = {};
  for (const f of BOWLER_FIELDS) f.put(o, d[f.key]);
  return o;
}

function draftFromLane(lane) {
  // After an ended block, start from its order so the next block is quick to set.
  const order = lane ? currentOrder(lane) : [];
  return order.slice(0, 4).map(({ b }) => bowlerModel(b));
}

function blankBowler() {
  return bowlerModel(null);
}

function bowlerFields(prefix, d, i, onchange, ro) {
  return BOWLER_FIELDS.map((f) => {
    const id = prefix + f.key + '-' + i;
    const v = f.shown ? f.shown(d[f.key]) : d[f.key];
    let control;
    if (f.kind === 'select') {
      control = h('select', { ...tid(id), disabled: ro, required: !!f.blank, onchange: (e) => onchange(f.key, e.target.value) },
        f.blank ? h('option', { value: '', selected: v === '', text: t(f.blank) }) : null,
        f.options().map((o) => h('option', { value: o, selected: v === o, text: f.text(o) })));
    } else if (f.kind === 'checkbox') {
      control = h('input', { ...tid(id), type: 'checkbox', checked: !!v, disabled: ro, onchange: (e) => onchange(f.key, e.target.checked) });
    } else {
      control = h('input', { ...tid(id), type: f.kind, ...f.attrs, value: v, readonly: ro, oninput: (e) => onchange(f.key, e.target.value) });
    }
    return h('p', { class: 'field' + (f.kind === 'checkbox' ? ' check' : '') }, h('label', { for: id, text: t(f.label) }), control);
  });
}

// The first bowler of a model without a name or a class, shown as refused.
function missingField(rows, prefix, who) {
  const names = rows.map((d) => d.name.trim());
  for (let i = 0; i < rows.length; i++) {
    if (!names[i]) return [t('nameNeeded'), prefix + 'name-' + i];
    if (!rows[i].class) return [t('classNeeded', who(i)), prefix + 'class-' + i];
  }
  if (new Set(names).size !== names.length) return [t('nameNeeded'), prefix + 'name-0'];
  return null;
}

function refuseMissing(rows, prefix, who) {
  const miss = missingField(rows, prefix, who);
  if (!miss) return false;
  showError(miss[0]);
  const el = $(miss[1]);
  if (el) el.focus();
  return true;
}

function renderLineup() {
  const el = $('panel-lineup');
  const lane = S.lane;
  if (!lane) { replace(el, h('h2', { id: 'h-lineup', text: t('lineup') }), h('p', { text: t('loading') })); return; }
  const open = openBlock(lane);
  if (open) { drawModel(el, lockedLineup(lane, open)); return; }
  if (!S.draft || !S.draftDirty) S.draft = draftFromLane(lane);
  const ro = !isJudge();
  const d = S.draft;
  const edit = (i) => (key, v) => { d[i][key] = v; S.draftDirty = true; $('lineup-state').textContent = t('unsaved'); };
  const move = (i, j) => { const x = d[i]; d[i] = d[j]; d[j] = x; S.draftDirty = true; renderLineup(); const b = $((j < i ? 'lineup-up-' : 'lineup-down-') + j); (b && !b.disabled ? b : $('lineup-name-' + j)).focus(); };
  const rows = d.map((row, i) => h('fieldset', { class: 'lrow', ...tid('lineup-row-' + i) },
    h('legend', { text: t('bowlerN', i + 1) }),
    h('div', { class: 'fields' }, bowlerFields('lineup-', row, i, edit(i), ro)),
    ro ? null : h('div', { class: 'row' },
      h('button', { type: 'button', ...tid('lineup-up-' + i), disabled: i === 0, 'aria-label': t('moveUp', i + 1), text: '↑', onclick: () => move(i, i - 1) }),
      h('button', { type: 'button', ...tid('lineup-down-' + i), disabled: i === d.length - 1, 'aria-label': t('moveDown', i + 1), text: '↓', onclick: () => move(i, i + 1) }),
      h('button', { type: 'button', ...tid('lineup-remove-' + i), 'aria-label': t('remove', i + 1), text: '✕', onclick: () => { d.splice(i, 1); S.draftDirty = true; renderLineup(); $('lineup-add').focus(); } }))));
  const onServer = currentOrder(lane).length > 0 && !blockEndedLatest(lane);
  drawModel(el,
    h('h2', { id: 'h-lineup', text: t('lineup') }),
    rows.length ? rows : h('p', { text: t('noBowlers') }),
    h('p', { id: 'lineup-state', class: 'note', role: 'status', text: S.draftDirty ? t('unsaved') : onServer ? t('saved') : '' }),
    ro ? null : h('div', { class: 'row' },
      h('button', { type: 'button', ...tid('lineup-add'), disabled: d.length >= 4, text: t('add'), onclick: () => { d.push(blankBowler()); S.draftDirty = true; renderLineup(); $('lineup-name-' + (d.length - 1)).focus(); } }),
      h('button', { type: 'button', class: 'primary', ...tid('lineup-save'), disabled: !d.length, text: t('save'), onclick: saveLineup })),
    ro ? null : h('div', { class: 'row start' },
      h('p', { class: 'field' }, h('label', { for: 'start-games', text: t('games') }),
        h('input', { ...tid('start-games'), type: 'number', inputmode: 'numeric', min: '1', max: '12', value: S.games, oninput: (e) => { S.games = e.target.value; } })),
      h('button', { type: 'button', class: 'primary', ...tid('start-block'), text: t('startBlock'), onclick: startBlock })));
}

function blockEndedLatest(lane) {
  const info = blockInfo(lane, latestBlock(lane));
  return !!(info && info.ended);
}

function saveLineup() {
  if (refuseMissing(S.draft, 'lineup-', (i) => t('bowlerN', i + 1))) return Promise.resolve(false);
  const sent = JSON.stringify(S.draft);
  S.saving = act({ ev: 'lineup', bowlers: S.draft.map(bowlerJson) }).then(async (ok) => {
    // The lane as it is now, so the form is drawn again from what was saved.
    if (ok) {
      const r = await api('GET', '/api/lane');
      if (r.status === 200 && r.data) setLane(r.data);
    }
    S.saving = null;
    if (ok && JSON.stringify(S.draft) === sent) { S.draftDirty = false; renderLineup(); }
    return ok;
  });
  return S.saving;
}

async function startBlock() {
  const games = Math.round(Number(S.games));
  if (!(games >= 1 && games <= 12)) { showError(t('games')); $('start-games').focus(); return; }
  if (S.saving) {
    if (!(await S.saving)) return;
  }
  if (S.draftDirty || !currentOrder(S.lane).length || blockEndedLatest(S.lane)) {
    if (!(await saveLineup())) return;
  }
  await act({ ev: 'start_block', games });
}

function lockedLineup(lane, open) {
  const order = currentOrder(lane);
  const sub = S.sub || (S.sub = blankBowler());
  if (!order.some(({ b }) => b.name === sub.out)) sub.out = order.length ? order[0].b.name : '';
  const judge = isJudge();
  return [
    h('h2', { id: 'h-lineup', text: t('lineup') + ' · ' + t('blockN', open.block) }),
    h('p', { class: 'note', text: t('lineupLocked') }),
    h('div', { class: 'grid-wrap', tabindex: '0', role: 'region', 'aria-label': t('lineup') }, h('table', { class: 'list', 'data-testid': 'lineup-locked' },
      h('thead', {}, h('tr', {}, ['#', t('name'), t('cls'), t('hdcp'), t('team'), t('voice'), t('lang')].map((x) => h('th', { scope: 'col', text: x })))),
      h('tbody', {}, order.map(({ b }, i) => h('tr', { ...tid('lineup-row-' + i) },
        h('td', { text: i + 1 }), h('th', { scope: 'row', text: b.name }), h('td', { text: b.class }),
        h('td', { text: b.handicap || 0 }), h('td', { text: b.team || '' }),
        h('td', { text: b.voice ? t('v_' + b.voice) : '—' }), h('td', { text: b.lang ? t('l_' + b.lang) : '—' })))))),
    judge ? h('section', { class: 'box', 'aria-labelledby': 'sub-h' },
      h('h3', { id: 'sub-h', text: t('substitute') }),
      h('p', { class: 'field' }, h('label', { for: 'sub-out', text: t('subOut') }),
        h('select', { ...tid('sub-out'), onchange: (e) => { sub.out = e.target.value; } },
          order.map(({ b }) => h('option', { value: b.name, selected: b.name === sub.out, text: b.name })))),
      h('fieldset', { class: 'lrow' }, h('legend', { text: t('subIn') }),
        h('div', { class: 'fields' }, bowlerFields('sub-', sub, 0, (k, v) => { sub[k] = v; }, false))),
      h('button', { type: 'button', ...tid('sub-submit'), text: t('subDo'), onclick: async () => {
        if (refuseMissing([sub], 'sub-', () => t('subIn'))) return;
        const incoming = bowlerJson(sub);
        if (await act({ ev: 'substitute', out: sub.out, in: incoming })) {
          if (S.sub === sub) S.sub = null;
          renderLineup();
          // A B1 bowler bowls only after a judge checks the blindfold.
          if (incoming.class === 'B1') announce(t('bfNeeded', incoming.name));
        }
      } })) : null,
    judge ? h('div', { class: 'row' }, h('button', { type: 'button', class: 'danger', ...tid('end-block'), text: t('endBlock'), onclick: () => {
      if (window.confirm(t('endBlockAsk'))) act({ ev: 'end_block' });
    } })) : null,
  ];
}

// ----- blindfolds ----------------------------------------------------------------

function renderBlindfolds() {
  const el = $('panel-blindfolds');
  const lane = S.lane;
  if (!lane) { replace(el, h('h2', { id: 'h-blindfolds', text: t('blindfolds') }), h('p', { text: t('loading') })); return; }
  const b1 = currentOrder(lane).map((x, i) => ({ ...x, li: i })).filter((x) => x.b.class === 'B1');
  const judge = isJudge();
  replace(el,
    h('h2', { id: 'h-blindfolds', text: t('blindfolds') }),
    b1.length ? h('ul', { class: 'cards' }, b1.map(({ b, li }) => {
      const rec = (lane.blindfolds || []).find((x) => x.bowler === b.name);
      const checked = rec && rec.checked_at !== null && rec.checked_at !== undefined;
      // A passing check a judge may call into question: it stops counting
      // until a new check.
      const passing = checked && rec.ok && !rec.recheck && !rec.adjusting;
      return h('li', { class: 'box bf' + (rec && (rec.adjusting || rec.recheck) ? ' held' : '') + (checked && !rec.ok ? ' failed' : ''), ...tid('blindfold-row-' + li) },
        h('h3', { text: b.name }),
        h('p', {}, t('lastCheck') + ': ', h('strong', { text: checked ? t('checkedAt', mmss(rec.checked_at), rec.by, rec.ok) : t('never') })),
        rec && rec.adjusting ? h('p', { class: 'alarm', text: t('heldFor', b.name) }) : null,
        rec && rec.recheck ? h('p', { class: 'alarm', ...tid('blindfold-recheck-awaited-' + li), text: t('bfRecheckAwaited', b.name) }) : null,
        !(checked && rec.ok) ? h('p', { class: 'alarm', ...tid('blindfold-needed-' + li), text: t('bfNeeded', b.name) }) : null,
        judge ? h('div', { class: 'row' },
          h('button', { type: 'button', class: 'good', ...tid('blindfold-ok-' + li), text: t('bfOk'), 'aria-label': t('bfOk') + ' — ' + b.name, onclick: () => act({ ev: 'blindfold_check', bowler: b.name, ok: true }) }),
          h('button', { type: 'button', class: 'danger', ...tid('blindfold-fail-' + li), text: t('bfFail'), 'aria-label': t('bfFail') + ' — ' + b.name, onclick: () => act({ ev: 'blindfold_check', bowler: b.name, ok: false }) }),
          h('button', { type: 'button', ...tid('blindfold-adjust-' + li), text: t('bfAdjust'), 'aria-label': t('bfAdjust') + ' — ' + b.name, onclick: () => act({ ev: 'blindfold_adjust', bowler: b.name }) }),
          passing ? h('button', { type: 'button', ...tid('blindfold-recheck-' + li), text: t('bfRecheck'), 'aria-label': t('bfRecheck') + ' — ' + b.name, onclick: () => {
            if (window.confirm(t('bfRecheckAsk', b.name))) act({ ev: 'blindfold_recheck', bowler: b.name });
          } }) : null) : null);
    })) : h('p', { text: t('noB1') }));
}

// ----- judge actions --------------------------------------------------------------

function bowlerSelect(id, lane) {
  return h('select', { ...tid(id) }, currentOrder(lane).map(({ b }) => h('option', { value: b.name, text: b.name })));
}

function renderConduct() {
  const el = $('panel-conduct');
  const lane = S.lane;
  if (!lane) { replace(el, h('h2', { id: 'h-conduct', text: t('judgeTools') }), h('p', { text: t('loading') })); return; }
  if (!isJudge()) { replace(el, h('h2', { id: 'h-conduct', text: t('judgeTools') }), h('p', { class: 'note', text: t('readOnly') })); return; }
  const hold = lane.hold;
  const pending = (lane.conduct || []).map((c, i) => ({ c, i })).filter(({ c }) => pendingSlow(c));
  const field = (id, label, control) => h('p', { class: 'field' }, h('label', { for: id, text: label }), control);
  const keep = (id) => { const x = $(id); return x ? x.value : ''; };
  replace(el,
    h('h2', { id: 'h-conduct', text: t('judgeTools') }),
    h('section', { class: 'box', 'aria-labelledby': 'hold-h' },
      h('h3', { id: 'hold-h', text: hold ? t('resumeLane') : t('holdLane') }),
      hold ? h('p', { class: 'alarm', text: t('holdOn', hold.by, hold.reason) }) : field('hold-reason', t('reason'), h('input', { ...tid('hold-reason'), type: 'text', value: keep('hold-reason'), maxlength: '120', autocomplete: 'off' })),
      h('button', { type: 'button', class: hold ? 'good' : 'danger', ...tid('hold-toggle'), text: hold ? t('resumeLane') : t('holdLane'), onclick: () => {
        const ev = { ev: 'hold', on: !hold };
        const r = !hold && $('hold-reason').value.trim();
        if (r) ev.reason = r;
        act(ev);
      } })),
    h('section', { class: 'box', 'aria-labelledby': 'slow-h' },
      h('h3', { id: 'slow-h', text: t('slowPending') }),
      pending.length ? h('ul', { class: 'clist' }, pending.map(({ c, i }) => h('li', {}, h('span', { text: conductText(c) }),
        h('button', { type: 'button', ...tid('conduct-confirm-' + i), text: t('confirmPenalty'), onclick: () => act({ ev: 'penalty', bowler: c.bowler, reason: 'slow bowling' }) })))) : h('p', { text: t('noneNow') })),
    h('section', { class: 'box', 'aria-labelledby': 'ill-h' },
      h('h3', { id: 'ill-h', text: t('illegal') }),
      field('illegal-bowler', t('bowler'), bowlerSelect('illegal-bowler', lane)),
      h('button', { type: 'button', ...tid('illegal-submit'), text: t('markIllegal'), onclick: () => act({ ev: 'penalty', bowler: $('illegal-bowler').value, reason: 'illegal delivery' }) })),
    h('section', { class: 'box', 'aria-labelledby': 'pen-h' },
      h('h3', { id: 'pen-h', text: t('freePenalty') }),
      field('penalty-bowler', t('bowler'), bowlerSelect('penalty-bowler', lane)),
      field('penalty-reason', t('reason'), h('input', { ...tid('penalty-reason'), type: 'text', value: keep('penalty-reason'), maxlength: '120', autocomplete: 'off' })),
      h('button', { type: 'button', ...tid('penalty-submit'), text: t('givePenalty'), onclick: async () => {
        const r = $('penalty-reason').value.trim();
        if (!r) { showError(t('reason')); $('penalty-reason').focus(); return; }
        if (await act({ ev: 'penalty', bowler: $('penalty-bowler').value, reason: r })) $('penalty-reason').value = '';
      } })),
    deadBallBox(lane),
    h('section', { class: 'box', 'aria-labelledby': 'man-h' },
      h('h3', { id: 'man-h', text: t('manual') }),
      lane.pinsetter && lane.pinsetter.link === 'down' ? h('p', { class: 'alarm', text: t('manualOffer') }) : null,
      h('button', { type: 'button', ...tid('manual-open-2'), text: t('manualOpen'), onclick: (e) => openManual(e.currentTarget) })));
}

// The last ball, to declare dead: it is bowled again at the deck before it.
function deadBallBox(lane) {
  const lb = lane.last_ball;
  return h('section', { class: 'box', 'aria-labelledby': 'dead-h' },
    h('h3', { id: 'dead-h', text: t('deadBall') }),
    h('p', { ...tid('dead-ball-what'), text: lb ? t('deadBallWhat', lb.bowler, lb.game, lb.frame, lb.ball) + (lb.wrong_deck ? ' — ' + t('atWrongDeck') : '') : t('deadBallNone') }),
    h('button', { type: 'button', class: 'danger', ...tid('dead-ball'), disabled: !lb, text: t('deadBallDo'), onclick: () => {
      if (lb && window.confirm(t('deadBallAsk', lb.bowler, lb.frame, lb.ball))) act({ ev: 'dead_ball' });
    } }));
}

// ----- correction / manual pins dialog -----------------------------------------------

function openCorrect(bowler, game, frame, ball, rec, opener) {
  openDialog({ mode: 'correct', bowler, game, frame, ball, standing: new Set(rec ? rec.standing : []), foul: !!(rec && rec.foul), opener });
}

function openManual(opener) {
  const st = S.lane && S.lane.up ? S.lane.up.standing : ALL_PINS;
  openDialog({ mode: 'manual', standing: new Set(st), opener });
}

// "Enter pins" for a ball with no pin report: correct the ball that waits.
function enterPins(opener) {
  const up = S.lane && S.lane.up;
  if (up && !(S.lane.pinsetter && S.lane.pinsetter.link === 'down')) {
    openDialog({ mode: 'correct', bowler: up.bowler, game: up.game, frame: up.frame, ball: up.ball, standing: new Set(up.standing), foul: false, opener });
  } else {
    openManual(opener);
  }
}

function openDialog(d) {
  S.dialog = d;
  $('dialog-error').hidden = true;
  $('dialog-backdrop').hidden = false;
  document.body.classList.add('modal');
  for (const id of ['nav', 'main', 'status', 'auth']) $(id).setAttribute('aria-hidden', 'true');
  renderDialog();
  $('pin-7').focus();
}

function closeDialog() {
  const d = S.dialog;
  S.dialog = null;
  $('dialog-backdrop').hidden = true;
  document.body.classList.remove('modal');
  for (const id of ['nav', 'main', 'status', 'auth']) $(id).removeAttribute('aria-hidden');
  if (d && d.opener && document.body.contains(d.opener)) d.opener.focus();
  else if (d && d.opener && d.opener.id && $(d.opener.id)) $(d.opener.id).focus();
}

function renderDialog() {
  const d = S.dialog;
  if (!d) return;
  $('dialog-title').textContent = d.mode === 'correct' ? t('correctTitle', d.bowler, d.game, d.frame, d.ball) : t('manual');
  const pins = $('dialog-pins');
  replace(pins, PIN_ROWS.map((row) => h('div', { class: 'pin-row' }, row.map((n) => h('button', {
    type: 'button', ...tid('pin-' + n), class: 'pin ' + (d.standing.has(n) ? 'up' : 'down'),
    'aria-pressed': d.standing.has(n) ? 'true' : 'false',
    'aria-label': t('pinN', n) + ': ' + (d.standing.has(n) ? t('pinUp') : t('pinDown')),
    text: n,
    onclick: () => { if (d.standing.has(n)) d.standing.delete(n); else d.standing.add(n); renderDialog(); },
  })))));
  $('dialog-standing').textContent = t('standingList', sorted(d.standing));
  $('foul-row').hidden = d.mode !== 'correct';
  $('correct-foul').checked = !!d.foul;
  $('correct-submit').hidden = d.mode !== 'correct';
  $('manual-submit').hidden = d.mode !== 'manual';
}

function sorted(set) {
  return [...set].sort((a, b) => a - b);
}

async function submitDialog() {
  const d = S.dialog;
  if (!d) return;
  const ev = d.mode === 'correct'
    ? { ev: 'correct', bowler: d.bowler, game: d.game, frame: d.frame, ball: d.ball, standing: sorted(d.standing), foul: $('correct-foul').checked }
    : { ev: 'manual_pins', standing: sorted(d.standing) };
  if (await act(ev)) closeDialog();
}

function trapFocus(e) {
  if (!S.dialog) return;
  if (e.key === 'Escape') { e.preventDefault(); closeDialog(); return; }
  if (e.key !== 'Tab') return;
  const f = [...$('pin-dialog').querySelectorAll('button, input')].filter((x) => !x.disabled && x.offsetParent !== null);
  if (!f.length) return;
  const first = f[0], last = f[f.length - 1];
  if (e.shiftKey && document.activeElement === first) { e.preventDefault(); last.focus(); }
  else if (!e.shiftKey && document.activeElement === last) { e.preventDefault(); first.focus(); }
  else if (!$('pin-dialog').contains(document.activeElement)) { e.preventDefault(); first.focus(); }
}

// ----- history ---------------------------------------------------------------------

async function loadHistory() {
  if (!Array.isArray(S.history)) S.history = 'loading';
  renderHistory();
  const r = await api('GET', '/api/history');
  S.history = r.status === 200 && Array.isArray(r.data) ? r.data : [];
  if (r.status !== 200) showError((r.data && r.data.error) || t('netError'));
  renderHistory();
}

async function openPast(id, opener) {
  const r = await api('GET', '/api/history/' + encodeURIComponent(id));
  if (r.status !== 200 || !r.data) { showError((r.data && r.data.error) || t('netError')); return; }
  S.viewId = id;
  S.viewLane = r.data;
  S.viewBlock = latestBlock(r.data);
  renderHistory();
  const v = $('history-view');
  if (v) v.focus();
  S.viewOpener = opener && opener.id;
}

function kb(n) {
  return n >= 1024 ? Math.round(n / 1024) + ' KB' : n + ' B';
}

function renderHistory() {
  const el = $('panel-history');
  const list = S.history;
  const enc = encodeURIComponent;
  const table = list === 'loading' || list === null ? h('p', { text: t('loading') }) : !list.length ? h('p', { text: t('historyEmpty') }) :
    h('div', { class: 'grid-wrap', tabindex: '0', role: 'region', 'aria-label': t('history') },
      h('table', { class: 'list', ...tid('history-list') },
        h('thead', {}, h('tr', {}, [t('started'), t('laneCol'), t('tabLineup'), t('events'), t('size'), t('open'), t('download')].map((x) => h('th', { scope: 'col', text: x })))),
        h('tbody', {}, list.map((j) => h('tr', { 'data-testid': 'history-row-' + j.id },
          h('th', { scope: 'row' }, fmtDate(j.started_at), j.current ? h('span', { class: 'badge', text: t('current') }) : null),
          h('td', { text: or(j.lane, '') }),
          h('td', { text: (j.bowlers || []).map((b) => (typeof b === 'string' ? b : b.name)).join(', ') }),
          h('td', { text: or(j.events, '') }),
          h('td', { text: j.bytes !== undefined ? kb(j.bytes) : '' }),
          h('td', {}, h('button', { type: 'button', ...tid('history-open-' + j.id), 'aria-label': t('open') + ' ' + fmtDate(j.started_at), text: t('open'), onclick: (e) => openPast(j.id, e.currentTarget) })),
          h('td', { class: 'dl' },
            h('a', { href: '/export/' + enc(j.id) + '.csv', download: '', ...tid('export-csv-' + j.id), 'aria-label': t('download') + ' CSV ' + fmtDate(j.started_at), text: t('csv') }),
            h('a', { href: '/export/' + enc(j.id) + '.json', download: '', ...tid('export-json-' + j.id), 'aria-label': t('download') + ' JSON ' + fmtDate(j.started_at), text: t('json') }),
            h('a', { href: '/export/' + enc(j.id) + '.jsonl', download: '', ...tid('export-jsonl-' + j.id), 'aria-label': t('download') + ' ' + t('journal') + ' ' + fmtDate(j.started_at), text: t('journal') })))))));
  let view = null;
  if (S.viewLane) {
    const v = S.viewLane;
    const meta = (list && list.find && list.find((x) => x.id === S.viewId)) || {};
    view = h('section', { id: 'history-view', class: 'past', tabindex: '-1', 'aria-labelledby': 'past-h', 'data-testid': 'history-view' },
      h('h3', { id: 'past-h', text: t('viewing', (v.lane ? t('titleLane', v.lane) + ', ' : '') + fmtDate(meta.started_at || '') ) }),
      h('div', { class: 'row noprint' },
        h('button', { type: 'button', class: 'primary', ...tid('print'), text: t('print'), onclick: () => window.print() }),
        h('button', { type: 'button', ...tid('history-close'), text: t('closeView'), onclick: () => { const o = S.viewOpener; S.viewLane = null; S.viewId = null; renderHistory(); const b = o && $(o); if (b) b.focus(); } })),
      blockPicker(v, S.viewBlock, (n) => { S.viewBlock = n; renderHistory(); }, 'history-'),
      h('div', { class: 'sheet' }, h('h3', { class: 'blockh', text: S.viewBlock ? blockLabel(v, S.viewBlock) : '' }), sheetFor(v, S.viewBlock, false)),
      conductSection(v, 'past-'));
  }
  replace(el, h('h2', { id: 'h-history', text: t('history') }),
    h('div', { class: 'noprint' }, table, h('button', { type: 'button', ...tid('history-refresh'), text: t('refresh'), onclick: loadHistory })),
    view);
  document.body.classList.toggle('print-past', !!S.viewLane);
}

function fmtDate(s) {
  if (!s) return '';
  const d = new Date(s);
  if (isNaN(d)) return String(s);
  return d.toLocaleString(lang() === 'ru' ? 'ru-RU' : 'en-GB', { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit' });
}

// ----- login ---------------------------------------------------------------------

async function checkSession() {
  const r = await api('GET', '/api/session');
  S.judge = r.status === 200 && r.data ? r.data.judge || null : null;
  // With judges' own PINs the PIN names the judge: no name to type.
  S.pinNames = !!(r.status === 200 && r.data && r.data.pin_names);
  S.security = r.status === 200 && r.data ? r.data.security || null : null;
  renderAuth();
  renderAll();
}

// Wrong PINs and the lockout, for a judge to see that someone is guessing.
// Asked for when the judge acts, not on a timer: a timer would keep an
// unattended tablet's session from ever going idle.
async function checkSecurity() {
  if (!S.judge) return;
  const r = await api('GET', '/api/security');
  if (r.status === 200 && r.data) { S.security = r.data; renderSecurity(); }
}

function renderSecurity() {
  const el = $('security-note');
  const s = S.security;
  const show = !!(S.judge && s && (s.wrong_pins > 0 || s.locked));
  el.hidden = !show;
  if (!show) { el.textContent = ''; return; }
  let text = t('wrongPins', s.wrong_pins, (s.addresses || []).join(', '));
  if (s.locked) text += ' ' + t('lockedFor', Math.ceil(s.locked_for_s / 60));
  el.textContent = text;
}

async function login(e) {
  e.preventDefault();
  clearError();
  const pin = $('login-pin').value.trim();
  const name = $('login-name').value.trim();
  if (!/^[0-9]{6,12}$/.test(pin)) { showError(t('pinShape')); $('login-pin').focus(); return; }
  if (!name && !S.pinNames) { showError(t('needName')); $('login-name').focus(); return; }
  const r = await api('POST', '/api/login', name ? { pin, name } : { pin });
  $('login-pin').value = '';
  if (r.status === 200) {
    S.judge = (r.data && r.data.name) || name;
    renderAuth();
    renderAll();
    announce(t('judge') + ': ' + S.judge);
    $('logout').focus();
    checkSecurity();
  } else {
    const locked = r.status === 429 && r.data && r.data.retry_after_s;
    const msg = r.status === 401 ? t('wrongPin')
      : locked ? t('loginLocked', Math.ceil(r.data.retry_after_s / 60))
      : r.status === 429 ? t('tooMany')
      : r.status === 503 ? t('pinBusy')
      : (r.data && r.data.error) || t('netError');
    showError(msg);
    $('login-pin').focus();
  }
}

async function logout() {
  // A JSON body: the server takes a logout only as JSON, so another site's
  // form cannot log a judge out.
  await api('POST', '/api/logout', {});
  S.judge = null;
  renderAuth();
  renderAll();
  $('login-pin').focus();
}

function renderAuth() {
  $('login-form').hidden = !!S.judge;
  $('judge-box').hidden = !S.judge;
  $('judge-name').textContent = S.judge || '';
  $('readonly-note').hidden = !!S.judge;
  $('login-name').hidden = !!S.pinNames;
  $('login-name-label').hidden = !!S.pinNames;
  document.body.classList.toggle('judge', !!S.judge);
  renderSecurity();
}

// ----- tabs, language, theme ---------------------------------------------------------

function applyLang() {
  document.documentElement.lang = lang();
  for (const el of document.querySelectorAll('[data-i18n]')) el.textContent = t(el.dataset.i18n);
  for (const el of document.querySelectorAll('[data-i18n-aria]')) el.setAttribute('aria-label', t(el.dataset.i18nAria));
  const lt = $('lang-toggle');
  lt.textContent = t('langSwitch');
  lt.setAttribute('lang', lang() === 'ru' ? 'en' : 'ru');
  lt.setAttribute('aria-label', t('langSwitchLabel'));
  applyTheme();
}

function applyTheme() {
  const dark = document.documentElement.classList.contains('dark');
  const b = $('theme-toggle');
  b.textContent = dark ? t('themeLight') : t('themeDark');
}

function store(k, v) {
  try { localStorage.setItem(k, v); } catch (e) { /* private mode */ }
}

function load(k) {
  try { return localStorage.getItem(k); } catch (e) { return null; }
}

function renderAll() {
  renderStatus();
  renderSheet();
  renderLineup();
  renderBlindfolds();
  renderConduct();
  renderHistory();
  if (S.dialog) renderDialog();
}

function init() {
  setLang(load('lanecall.lang') || 'ru');
  if (load('lanecall.theme') === 'dark') document.documentElement.classList.add('dark');
  applyLang();
  $('lang-toggle').addEventListener('click', () => {
    setLang(lang() === 'ru' ? 'en' : 'ru');
    store('lanecall.lang', lang());
    applyLang();
    renderAll();
  });
  $('theme-toggle').addEventListener('click', () => {
    const dark = document.documentElement.classList.toggle('dark');
    store('lanecall.theme', dark ? 'dark' : 'light');
    applyTheme();
  });
  $('login-form').addEventListener('submit', login);
  $('logout').addEventListener('click', logout);
  $('error-close').addEventListener('click', clearError);
  for (const a of document.querySelectorAll('#nav a')) {
    a.addEventListener('click', (e) => {
      const target = $(a.getAttribute('href').slice(1));
      if (!target) return;
      e.preventDefault();
      target.scrollIntoView();
      target.focus({ preventScroll: true });
    });
  }
  $('dialog-cancel').addEventListener('click', closeDialog);
  $('correct-submit').addEventListener('click', submitDialog);
  $('manual-submit').addEventListener('click', submitDialog);
  $('pins-all-up').addEventListener('click', () => { S.dialog.standing = new Set(ALL_PINS); renderDialog(); });
  $('pins-all-down').addEventListener('click', () => { S.dialog.standing = new Set(); renderDialog(); });
  $('correct-foul').addEventListener('change', (e) => { if (S.dialog) S.dialog.foul = e.target.checked; });
  document.addEventListener('keydown', trapFocus);
  renderAuth();
  renderAll();
  checkSession();
  connect();
  loadHistory();
}

init();

// The judge's tab (today's date while the lane's clock is not
// synchronised, hold, penalties, a dead ball, the conduct record and the
// lane's errors) and the history of past journals.

import { t } from './i18n.js';
import {
  $, h, tid, or, replace, act, api, showError, isJudge, S, clockAt, fmtDate, pinsText,
  currentOrder, latestBlock, pendingSlow, givePenalty, hold,
} from './core.js';
import { blockLabel, blockPicker, sheetFor, printNow } from './sheet.js';

export function conductText(c, lane) {
  const parts = [clockAt(lane, c.t), c.bowler, t('k_' + c.kind) + (c.level ? ' (' + t('lvl_' + c.level) + ')' : '')];
  if (c.seconds !== undefined && c.seconds !== null) parts.push(t('secs', c.seconds));
  if (c.game && c.frame && c.ball) parts.push(t('gfb', c.game, c.frame, c.ball));
  if (c.issue) parts.push(t('issue_' + c.issue));
  if (c.reason) parts.push(c.reason);
  if (c.text) parts.push(c.text);
  if (c.counted === false) parts.push(t('notCounted'));
  if (c.withdrawn) parts.push(t('withdrawn'));
  if (c.confirmed_by) parts.push(t('confirmedBy', c.confirmed_by));
  if (c.deck) parts.push(t('deckAgain', pinsText(c.deck)));
  if (c.kind === 'pins_stood_up') parts.push(t('stoodUp', pinsText(c.pins), pinsText(c.bowled_at)));
  if (c.by) parts.push(c.by);
  return parts.filter((x) => x !== null && x !== undefined && x !== '').join(' · ');
}

function lastIndex(list, kind) {
  for (let i = list.length - 1; i >= 0; i--) if (list[i].kind === kind) return i;
  return -1;
}

function conductSection(lane, idp) {
  const hid = idp + 'conduct-h';
  const list = lane.conduct || [];
  const live = !idp && isJudge();
  return h('section', { class: 'conduct', 'aria-labelledby': hid },
    h('h3', { id: hid, text: t('conduct') }),
    list.length ? h('ul', { class: 'clist', 'data-testid': idp + 'conduct-list' }, list.map((c, i) => h('li', {
      class: 'c-' + c.kind + (c.withdrawn ? ' withdrawn' : '') + (c.level === 'penalty' ? ' penalty' : ''),
    },
    h('span', { text: conductText(c, lane) }),
    live && pendingSlow(c) ? h('button', { type: 'button', ...tid('confirm-penalty-' + i), onclick: () => givePenalty(c.bowler, 'slow bowling'), text: t('confirmPenalty') }) : null,
    live && c.kind === 'no_pin_report' && i === lastIndex(list, 'no_pin_report') && lane.up ? h('button', { type: 'button', class: 'primary', ...tid('enter-pins-' + i), onclick: () => S.hooks.padFor(), text: t('enterPins') }) : null))) :
      h('p', { text: t('noConduct') }));
}

// Every error the lane counted, listed or not.
export function errorTotal(lane) {
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

// The last ball, to declare dead: it is bowled again at the deck before it.
function deadBallBox(lane) {
  const lb = lane.last_ball;
  return h('section', { class: 'box', 'aria-labelledby': 'dead-h' },
    h('h3', { id: 'dead-h', text: t('deadBall') }),
    h('p', { ...tid('dead-ball-what'), text: lb ? t('deadBallWhat', lb.bowler, lb.game, lb.frame, lb.ball) + (lb.wrong_deck ? ' — ' + t('atWrongDeck') : '') : t('deadBallNone') }),
    h('button', { type: 'button', class: 'danger', ...tid('dead-ball'), disabled: !lb, text: t('deadBallDo'), onclick: () => {
      if (lb && window.confirm(t('deadBallAsk', lb.bowler, lb.frame, lb.ball))) act({ ev: 'dead_ball' }, () => t('deadDone', lb.bowler, lb.frame, lb.ball));
    } }));
}

// Today's date, while the lane's clock is not synchronised: no block
// starts until a judge confirms it (or the centre gives it).
function dateBox(lane) {
  const c = lane.clock;
  if (!c || c.state !== 'unsynchronised') return null;
  return h('section', { class: 'box', 'aria-labelledby': 'date-h', ...tid('date-box') },
    h('h3', { id: 'date-h', text: t('dateH') }),
    h('p', { class: c.needs_date ? 'alarm' : '', ...tid('date-state'), text: c.needs_date ? t('dateAsk', c.own_date) : t('dateUnsynced', c.own_date) + ' ' + t('dateIs', c.date) }),
    h('p', { class: 'field' }, h('label', { for: 'date-value', text: t('dateH') }),
      h('input', { ...tid('date-value'), type: 'date', value: c.date || c.own_date || '' })),
    h('button', { type: 'button', class: c.needs_date ? 'primary' : '', ...tid('date-confirm'), text: t('dateConfirm'), onclick: () => {
      const d = $('date-value').value;
      act({ ev: 'date', date: d, from: 'judge' }, () => t('dateDone', d));
    } }));
}

const bowlerSelect = (id, lane) => h('select', { ...tid(id) }, currentOrder(lane).map(({ b }) => h('option', { value: b.name, text: b.name })));

export function renderJudge() {
  const el = $('panel-judge');
  const lane = S.lane;
  if (!lane) { replace(el, h('p', { text: t('loading') })); return; }
  const head = h('h2', { id: 'h-judge', text: t('judgeTools') });
  if (!isJudge()) { replace(el, head, h('p', { class: 'note', text: t('readOnly') }), conductSection(lane, ''), errorsSection(lane)); return; }
  const held = lane.hold;
  const pending = (lane.conduct || []).map((c, i) => ({ c, i })).filter(({ c }) => pendingSlow(c));
  const field = (id, label, control) => h('p', { class: 'field' }, h('label', { for: id, text: label }), control);
  const text = (id) => h('input', { ...tid(id), type: 'text', maxlength: '120', autocomplete: 'off' });
  replace(el, head,
    h('div', { class: 'boxes' },
      dateBox(lane),
      h('section', { class: 'box', 'aria-labelledby': 'hold-h' },
        h('h3', { id: 'hold-h', text: held ? t('resumeLane') : t('holdLane') }),
        held ? h('p', { class: 'alarm', text: t('holdOn', held.by, held.reason, clockAt(lane, held.since)) }) : field('hold-reason', t('reason'), text('hold-reason')),
        h('button', { type: 'button', class: held ? 'good' : 'danger', ...tid('hold-toggle'), text: held ? t('resumeLane') : t('holdLane'), onclick: () => {
          hold(!held, !held && $('hold-reason').value.trim());
        } })),
      h('section', { class: 'box', 'aria-labelledby': 'slow-h' },
        h('h3', { id: 'slow-h', text: t('slowPending') }),
        pending.length ? h('ul', { class: 'clist' }, pending.map(({ c, i }) => h('li', {}, h('span', { text: conductText(c, lane) }),
          h('button', { type: 'button', ...tid('conduct-confirm-' + i), text: t('confirmPenalty'), onclick: () => givePenalty(c.bowler, 'slow bowling') })))) : h('p', { text: t('noneNow') })),
      h('section', { class: 'box', 'aria-labelledby': 'ill-h' },
        h('h3', { id: 'ill-h', text: t('illegal') }),
        field('illegal-bowler', t('bowler'), bowlerSelect('illegal-bowler', lane)),
        h('button', { type: 'button', ...tid('illegal-submit'), text: t('markIllegal'), onclick: () => givePenalty($('illegal-bowler').value, 'illegal delivery') })),
      h('section', { class: 'box', 'aria-labelledby': 'pen-h' },
        h('h3', { id: 'pen-h', text: t('freePenalty') }),
        field('penalty-bowler', t('bowler'), bowlerSelect('penalty-bowler', lane)),
        field('penalty-reason', t('reason'), text('penalty-reason')),
        h('button', { type: 'button', ...tid('penalty-submit'), text: t('givePenalty'), onclick: async () => {
          const r = $('penalty-reason').value.trim();
          if (!r) { showError('reasonNeeded'); $('penalty-reason').focus(); return; }
          if (await givePenalty($('penalty-bowler').value, r)) $('penalty-reason').value = '';
        } })),
      deadBallBox(lane)),
    conductSection(lane, ''),
    errorsSection(lane));
}

// ----- history ---------------------------------------------------------------------

function refusedBy(r) {
  const raw = r.data && r.data.error;
  showError(raw ? () => raw : 'netError');
}

const HS = { list: null, id: null, lane: null, block: null, opener: null };

export async function loadHistory() {
  if (!Array.isArray(HS.list)) HS.list = 'loading';
  if (S.tab === 'history') renderHistory();
  const r = await api('GET', '/api/history');
  HS.list = r.status === 200 && Array.isArray(r.data) ? r.data : [];
  if (r.status !== 200) refusedBy(r);
  if (S.tab === 'history') renderHistory();
}

async function openPast(id, opener) {
  const r = await api('GET', '/api/history/' + encodeURIComponent(id));
  if (r.status !== 200 || !r.data) { refusedBy(r); return; }
  HS.id = id;
  HS.lane = r.data;
  HS.block = latestBlock(r.data);
  HS.opener = opener && opener.id;
  renderHistory();
  $('history-view').focus();
}

const kb = (n) => (n >= 1024 ? Math.round(n / 1024) + ' KB' : n + ' B');

export function renderHistory() {
  const el = $('panel-history');
  const list = HS.list;
  const enc = encodeURIComponent;
  const dl = (j, ext, label, name) => h('a', { href: '/export/' + enc(j.id) + '.' + ext, download: '', ...tid('export-' + ext + '-' + j.id), 'aria-label': t('download') + ' ' + name + ' ' + fmtDate(j.started_at), text: label });
  const table = !Array.isArray(list) ? h('p', { text: t('loading') }) : !list.length ? h('p', { text: t('historyEmpty') }) :
    h('div', { class: 'wrap', tabindex: '0', role: 'region', 'aria-label': t('history') },
      h('table', { class: 'list', ...tid('history-list') },
        h('thead', {}, h('tr', {}, [t('started'), t('laneCol'), t('tabOrder'), t('events'), t('size'), t('open'), t('download')].map((x) => h('th', { scope: 'col', text: x })))),
        h('tbody', {}, list.map((j) => h('tr', { 'data-testid': 'history-row-' + j.id },
          h('th', { scope: 'row' }, fmtDate(j.started_at), j.current ? h('span', { class: 'badge', text: t('current') }) : null),
          h('td', { text: or(j.lane, '') }),
          h('td', { text: (j.bowlers || []).map((b) => (typeof b === 'string' ? b : b.name)).join(', ') }),
          h('td', { text: or(j.events, '') }),
          h('td', { text: j.bytes !== undefined ? kb(j.bytes) : '' }),
          h('td', {}, h('button', { type: 'button', ...tid('history-open-' + j.id), 'aria-label': t('open') + ' ' + fmtDate(j.started_at), text: t('open'), onclick: (e) => openPast(j.id, e.currentTarget) })),
          h('td', { class: 'dl' }, dl(j, 'csv', t('csv'), 'CSV'), dl(j, 'json', t('json'), 'JSON'), dl(j, 'jsonl', t('journal'), t('journal'))))))));
  let view = null;
  if (HS.lane) {
    const v = HS.lane;
    const meta = (Array.isArray(list) && list.find((x) => x.id === HS.id)) || {};
    view = h('section', { id: 'history-view', class: 'past', tabindex: '-1', 'aria-labelledby': 'past-h', 'data-testid': 'history-view' },
      h('h3', { id: 'past-h', text: t('viewing', (v.lane ? t('titleLane', v.lane) + ', ' : '') + fmtDate(meta.started_at || '')) }),
      h('div', { class: 'row' },
        h('button', { type: 'button', class: 'primary', ...tid('print'), text: t('print'), onclick: () => printNow(v, HS.block, meta.started_at || new Date()) }),
        h('button', { type: 'button', ...tid('history-close'), text: t('closeView'), onclick: () => {
          const o = HS.opener; HS.lane = null; HS.id = null; renderHistory(); const b = o && $(o); if (b) b.focus();
        } })),
      blockPicker(v, HS.block, (n) => { HS.block = n; renderHistory(); }, 'history-'),
      h('div', { class: 'sheet' }, h('h3', { class: 'blockh', text: HS.block ? blockLabel(v, HS.block) : '' }), sheetFor(v, HS.block, false, 'past-')),
      conductSection(v, 'past-'));
  }
  replace(el, h('h2', { id: 'h-history', text: t('history') }), table,
    h('button', { type: 'button', ...tid('history-refresh'), text: t('refresh'), onclick: loadHistory }), view);
}

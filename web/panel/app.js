// The lane panel: tabs (the lane, its order, blindfolds, the judge, the
// history), the status strip, the judge's login, language and theme. Reads
// /api/lane (and its event stream), acts through /api/actions. No
// dependencies.

import { t, setLang, lang } from './i18n.js';
import {
  $, h, tid, S, api, replace, setText, announce, clearError, showError, renderToast, renderError, pinsText, fmtDate, clockAt,
  checkSecurity, blindfoldHeld, pendingSlow,
} from './core.js';
import { store, load, calloutText } from './dom.js';
import { renderLane, openPad } from './lane.js';
import { renderLineup, renderBlindfolds } from './order.js';
import { renderJudge, renderHistory, loadHistory, conductText, errorTotal } from './judge.js';
import { renderDialog, closeDialog, submitDialog, setAll, setFoul, trapFocus, latestPrint, legendBall } from './sheet.js';
import { legendPanel, wireLegend } from './legend.js';

const TABS = ['lane', 'order', 'blindfolds', 'judge', 'history'];
const RENDER = { lane: renderLane, order: renderLineup, blindfolds: renderBlindfolds, judge: renderJudge, history: renderHistory };

// ----- the lane's stream -------------------------------------------------------

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
  if (prev && S.tab === 'history' && JSON.stringify(prev.blocks) !== JSON.stringify(lane.blocks)) loadHistory();
  announceChanges(prev, lane);
  renderAll();
}

let seen = null;

// Says each new ball's result, each new error and each new conduct entry,
// and that the journal is written again (its failure is the banner's alert).
function announceChanges(prev, lane) {
  if (journalFailure(prev) && !journalFailure(lane)) announce(t('journalOk'));
  const counts = { callouts: (lane.callouts || []).length, errors: errorTotal(lane), conduct: (lane.conduct || []).length };
  if (seen) {
    for (const c of (lane.callouts || []).slice(seen.callouts)) announce((c.bowler ? c.bowler + ': ' : '') + calloutText(c));
    // The lane lists only the first and latest errors: read out the newest
    // few, and how many more, so noise never floods the screen reader.
    const fresh = counts.errors - seen.errors;
    if (fresh > 0) {
      const errs = lane.errors || [];
      const said = errs.slice(Math.max(0, errs.length - Math.min(fresh, 3)));
      for (const e of said) announce(t('newError', e.message));
      if (fresh > said.length) announce(t('moreErrors', fresh - said.length));
    }
    for (const c of (lane.conduct || []).slice(seen.conduct)) announce(conductText(c, lane));
  }
  seen = counts;
}

// ----- status strip and banners ----------------------------------------------------

// The journal's failure (null while it is written): the lane holds and
// scores nothing until it can write again.
function journalFailure(lane) {
  const j = lane && lane.journal;
  return j && j.state === 'failed' ? j.failed || {} : null;
}

function renderStatus() {
  const lane = S.lane;
  const pill = (id, text, tone, title) => h('li', { ...tid(id), class: 'pill ' + (tone || ''), title }, text);
  const items = [pill('connection', t(S.conn === 'ok' ? 'connOk' : S.conn === 'down' ? 'connDown' : 'connWait'), S.conn === 'ok' ? 'good' : 'bad')];
  if (lane) {
    const ps = lane.pinsetter || {};
    items.push(pill('status-link', t(ps.link === 'up' ? 'linkUp' : ps.link === 'down' ? 'linkDown' : 'linkNone'), ps.link === 'up' ? 'good' : ps.link === 'down' ? 'bad' : 'warn'));
    if (ps.fault) items.push(pill('status-fault', t('fault', ps.fault), 'bad'));
    if (lane.hold) items.push(pill('status-hold', t('holdOn', lane.hold.by, lane.hold.reason, clockAt(lane, lane.hold.since)), 'bad'));
    // A bowler the lane waits for at the blindfold: being adjusted, or a
    // new check asked for.
    const bf = blindfoldHeld(lane);
    if (bf.length) items.push(pill('status-blindfold', bf.map((x) => t(x.recheck ? 'heldForRecheck' : 'heldFor', x.bowler)).join(' · '), 'bad'));
    const slow = (lane.conduct || []).filter(pendingSlow);
    if (slow.length) items.push(pill('status-slow', t('slowWaiting', [...new Set(slow.map((c) => c.bowler))].join(', ')), 'bad'));
    // The speaker's reason is the technician's, in English: a tooltip.
    const sp = lane.speaker || {};
    const spk = sp.state === 'ready' ? ['speakerReady', 'good'] : sp.state === 'no_device' ? ['speakerNoDevice', 'bad'] : sp.state === 'off' ? ['speakerOff', ''] : ['speakerUnknown', 'warn'];
    items.push(pill('status-speaker', t(spk[0]) + (sp.state === 'ready' && sp.device ? ' (' + sp.device + ')' : ''), spk[1], sp.reason ? t('techReason', sp.reason) : null));
    // A part that fails (the GPIO, the pin switches, the panel's address,
    // the journal's storage, what check-config refuses): the lane goes on
    // without it. Its name in red; a tap opens what is wrong and what fixes
    // it, for the technician, in English (a tablet has no hover).
    for (const p of lane.parts || []) {
      const name = t('part_' + p.part);
      items.push(h('li', { ...tid('status-part-' + p.part), class: 'pill bad notes' }, h('details', {},
        h('summary', { text: t('partFailed', name === 'part_' + p.part ? p.part : name) }),
        h('p', { text: t('techReason', p.problem + ' — ' + p.fix) }))));
    }
    const mirror = lane.journal && lane.journal.mirror;
    if (mirror && mirror.state === 'failed') items.push(pill('status-mirror', t('mirrorFailed', (mirror.reason || '') + (mirror.path ? ' (' + mirror.path + ')' : '')), 'warn'));
    // Inputs dropped because the lane could not keep up: a noisy serial
    // cable or a flapping foul beam, for the technician.
    const inputs = lane.inputs || {};
    if (inputs.shed_serial || inputs.shed_beam) items.push(pill('status-inputs', t('inputsShed', inputs.shed_serial || 0, inputs.shed_beam || 0), 'warn'));
  }
  const s = S.security;
  if (S.judge && s && (s.wrong_pins > 0 || s.locked)) {
    items.push(pill('security-note', t('wrongPins', s.wrong_pins, (s.addresses || []).join(', ')) + (s.locked ? ' ' + t('lockedFor', Math.ceil(s.locked_for_s / 60)) : ''), 'bad'));
  }
  const j = (lane && lane.journal) || {};
  const notes = [...(j.set_aside || []).map((a) => t('setAside', a.file, a.reason)), ...(j.notices || []).map((n) => fmtDate(n.at) + ' — ' + n.message)];
  if (notes.length) {
    items.push(h('li', { class: 'pill warn notes' }, h('details', { ...tid('journal-notes') },
      h('summary', { text: t('journalNotes', notes.length) }), h('ul', {}, notes.map((x) => h('li', { text: x }))))));
  }
  replace($('status'), items);
  renderBanners(lane);
  setText($('title'), lane && lane.lane ? t('titleLane', lane.lane) : 'Lanecall');
  document.title = 'Lanecall' + (lane && lane.lane ? ' · ' + t('titleLane', lane.lane) : '');
}

// The banner while the journal cannot be written, and the one while the
// deck set is not the one the rules expect for the ball up (the judge has
// the machine re-rack or respot; the slow-bowling clock waits) or the last
// ball was bowled at a wrong deck (the judge accepts it or declares it dead).
function renderBanners(lane) {
  const failed = journalFailure(lane);
  $('journal-alert').hidden = !failed;
  if (failed) {
    setText($('journal-alert-text'), t('journalFailed', failed.reason || '?'));
    setText($('journal-alert-waiting'), t('journalWaiting', failed.waiting || 0, failed.shed || 0));
  }
  const w = lane && lane.wrong_deck;
  const last = lane && lane.last_ball;
  const lastWrong = !w && last && last.wrong_deck ? last : null;
  $('deck-alert').hidden = !w && !lastWrong;
  if (w) {
    setText($('deck-alert-text'), t('deckWrong', w.bowler, w.frame, w.ball));
    const parts = [t('deckExpected', pinsText(w.expected)), t('deckSet', pinsText(w.set))];
    if (w.missing.length) parts.push(t('deckMissing', pinsText(w.missing)));
    if (w.extra.length) parts.push(t('deckExtra', pinsText(w.extra)));
    setText($('deck-alert-pins'), parts.join(' · ') + '. ' + t('deckAsk'));
  } else if (lastWrong) {
    const d = lastWrong.wrong_deck;
    setText($('deck-alert-text'), t('lastWrongDeck', lastWrong.bowler, lastWrong.frame, lastWrong.ball));
    setText($('deck-alert-pins'), t('deckExpected', pinsText(d.expected)) + ' · ' + t('deckSet', pinsText(d.set)));
  }
}

// ----- tabs ----------------------------------------------------------------------

const tabOf = () => (TABS.includes(location.hash.slice(1)) ? location.hash.slice(1) : 'lane');

function showTab(name) {
  S.tab = name;
  for (const n of TABS) {
    const tab = $('tab-' + n);
    tab.setAttribute('aria-selected', String(n === name));
    tab.tabIndex = n === name ? 0 : -1;
    $('panel-' + n).hidden = n !== name;
  }
  if (name === 'history') loadHistory();
  RENDER[name]();
}

// A tab is chosen by its address: the browser's Back goes to the one before.
function pick(name) {
  if (location.hash !== '#' + name) location.hash = name;
  showTab(name);
}

function tabKeys(e) {
  const i = TABS.indexOf(S.tab);
  const to = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: TABS.length - 1 }[e.key];
  if (to === undefined) return;
  e.preventDefault();
  const name = TABS[(to + TABS.length) % TABS.length];
  pick(name);
  $('tab-' + name).focus();
}

// ----- login ---------------------------------------------------------------------

async function checkSession() {
  const r = await api('GET', '/api/session');
  const d = r.status === 200 && r.data ? r.data : {};
  S.judge = d.judge || null;
  // With judges' own PINs the PIN names the judge: no name to type.
  S.pinNames = !!d.pin_names;
  S.security = d.security || null;
  S.event = d.event || '';
  renderAuth();
  renderAll();
}

async function login(e) {
  e.preventDefault();
  clearError();
  const pin = $('login-pin').value.trim();
  const name = $('login-name').value.trim();
  if (!/^[0-9]{6,12}$/.test(pin)) { showError('pinShape'); $('login-pin').focus(); return; }
  if (!name && !S.pinNames) { showError('needName'); $('login-name').focus(); return; }
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
    const raw = r.data && r.data.error;
    if (locked) showError('loginLocked', Math.ceil(r.data.retry_after_s / 60));
    else showError({ 401: 'wrongPin', 429: 'tooMany', 503: 'pinBusy' }[r.status] || (raw ? () => raw : 'netError'));
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
  $('login-name').hidden = !!S.pinNames;
  $('login-name-label').hidden = !!S.pinNames;
  document.body.classList.toggle('judge', !!S.judge);
}

// ----- language, theme ---------------------------------------------------------------

function applyLang() {
  document.documentElement.lang = lang();
  for (const el of document.querySelectorAll('[data-i18n]')) el.textContent = t(el.dataset.i18n);
  for (const el of document.querySelectorAll('[data-i18n-aria]')) el.setAttribute('aria-label', t(el.dataset.i18nAria));
  const lt = $('lang-toggle');
  lt.setAttribute('lang', lang() === 'ru' ? 'en' : 'ru');
  replace($('legend'), legendPanel(legendBall, ''));
  applyTheme();
}

function applyTheme() {
  const dark = document.documentElement.classList.contains('dark');
  $('theme-toggle').setAttribute('aria-pressed', String(dark));
}

function renderAll() {
  renderStatus();
  RENDER[S.tab]();
  renderDialog();
  renderToast();
  renderError();
}

function init() {
  setLang(load('lanecall.lang') || 'ru');
  if (load('lanecall.theme') === 'dark') document.documentElement.classList.add('dark');
  applyLang();
  S.hooks = { renderAll, renderAuth, renderStatus, setLane, padFor: () => { openPad(); pick('lane'); } };
  $('lang-toggle').addEventListener('click', () => {
    setLang(lang() === 'ru' ? 'en' : 'ru');
    store('lanecall.lang', lang());
    // What was read out before is in the other language.
    replace($('announce'));
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
  for (const n of TABS) $('tab-' + n).addEventListener('click', () => pick(n));
  $('tabs').addEventListener('keydown', tabKeys);
  window.addEventListener('hashchange', () => { if (tabOf() !== S.tab) showTab(tabOf()); });
  if (location.hash !== '#' + tabOf()) history.replaceState(null, '', '#' + tabOf());
  $('dialog-cancel').addEventListener('click', closeDialog);
  $('correct-submit').addEventListener('click', submitDialog);
  $('pins-all-up').addEventListener('click', () => setAll(true));
  $('pins-all-down').addEventListener('click', () => setAll(false));
  $('correct-foul').addEventListener('change', (e) => setFoul(e.target.checked));
  document.addEventListener('keydown', trapFocus);
  wireLegend($('legend-toggle'), $('legend'));
  // Printed from the browser's menu: the lane's current block.
  window.addEventListener('beforeprint', () => { if (!S.printing) latestPrint(); });
  renderAuth();
  showTab(tabOf());
  renderAll();
  checkSession();
  connect();
}

init();

// The centre's page: every lane at a glance with its frames, the
// standings as a director reads them, the blocks set by form and pushed,
// the finals proposed from the standings, the entries and the results. It
// polls the centre's API every second.
import { t, setLang, getLang } from './i18n.js';
import { h, api, setZone, clock, sexText, categoryTitle } from './common.js';
import * as entries from './entries.js';
import * as blocks from './blocks.js';
import { laneCard, heldFor, laneTools } from './lanes.js';
import { standingsView } from './standings.js';

const $ = (id) => document.getElementById(id);
const VIEWS = ['lanes', 'standings', 'block', 'entries', 'results'];
const S = { view: 'lanes', lanes: [], centre: null, judge: null, pushes: [], standings: null, ok: true, hasProgramme: false, show: 'all', drawn: {} };

function dark() { return document.documentElement.classList.contains('dark'); }

function setTheme(d) {
  document.documentElement.classList.toggle('dark', d);
  localStorage.setItem('theme', d ? 'dark' : 'light');
  $('theme').textContent = d ? t('themeLight') : t('themeDark');
}

function labels() {
  document.documentElement.lang = getLang();
  $('title').textContent = t('title');
  for (const v of VIEWS) $('tab-' + v).textContent = t('tab' + v[0].toUpperCase() + v.slice(1));
  $('tab-tv').textContent = t('tabTv');
  $('lang').textContent = t('lang');
  $('theme').textContent = dark() ? t('themeLight') : t('themeDark');
  entries.labels();
}

// Whether `what` must be drawn again: what it shows changed.
function changed(what, ...from) {
  const key = JSON.stringify([getLang(), ...from]);
  if (S.drawn[what] === key) return false;
  S.drawn[what] = key;
  return true;
}

// Every lane's card, by number; a judge logged in may hold or resume a
// lane and cancel what is held for it.
function renderLanes() {
  laneTools($('lane-tools'), { judge: S.judge, refresh: poll });
  const held = S.lanes.map((l) => heldFor(S.pushes, l.lane).map((p) => p.id));
  if (!changed('lanes', S.lanes, S.judge, held)) return;
  const box = $('lanes');
  const ctx = { judge: S.judge, pushes: S.pushes, hold: holdLane, cancel: cancelPush, lanes: S.lanes, answer: laneAnswer, refresh: poll };
  const list = [...S.lanes].sort((a, b) => a.lane - b.lane);
  box.replaceChildren(...(list.length ? list.map((l) => laneCard(l, ctx)) : [h('p', { text: t('noLanes') })]));
}

// The centre's refusal of a lane card's action, or nothing.
function laneAnswer(r) {
  $('lanes-error').textContent = r.status === 200 ? '' : (r.body && r.body.error) || String(r.status);
}

// Hold (asking the reason first) or resume lane `n`.
async function holdLane(n, on) {
  if (on) {
    const d = $('hold-dialog');
    d.dataset.lane = String(n);
    $('hold-title').textContent = t('holdLane', n);
    $('hold-reason-label').textContent = t('holdReason');
    $('hold-ok').textContent = t('holdLane', n);
    $('hold-cancel').textContent = t('cancel');
    $('hold-reason').value = '';
    $('hold-error').textContent = '';
    d.showModal();
    return;
  }
  laneAnswer(await api('/api/hold', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ lane: n, on: false }) }));
  poll();
}

async function sendHold(e) {
  e.preventDefault();
  const d = $('hold-dialog');
  const reason = $('hold-reason').value.trim();
  if (!reason) { $('hold-error').textContent = t('holdReasonNeeded'); return; }
  const r = await api('/api/hold', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ lane: Number(d.dataset.lane), on: true, reason }) });
  if (r.status !== 200) { $('hold-error').textContent = (r.body && r.body.error) || String(r.status); return; }
  d.close();
  laneAnswer(r);
  poll();
}

async function cancelPush(push, lane) {
  laneAnswer(await api('/api/pushes/cancel', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ push, lane }) }));
  poll();
}

// What the standings show: all, singles, team events or finals.
function renderShow() {
  const st = S.standings || {};
  const kinds = [['all', t('showAll')], ['singles', t('standingsCat')]];
  if ((st.teams || []).length) kinds.push(['teams', t('standingsTeams')]);
  if (Object.keys(st.finals || {}).length) kinds.push(['finals', t('standingsFinals')]);
  if (!changed('show', kinds, S.show)) return;
  const box = $('standings-filter');
  box.setAttribute('aria-label', t('showWhat'));
  box.replaceChildren(...kinds.map(([k, text]) => h('button', { type: 'button', 'aria-pressed': String(S.show === k), text,
    onclick: () => { S.show = k; render(); $('standings-filter').querySelector('[aria-pressed="true"]').focus(); } })));
}

function renderStandings() {
  renderShow();
  if (!changed('standings', S.standings, S.show)) return;
  const cats = S.standings && S.standings.categories;
  $('standings').replaceChildren(...(cats && cats.length
    ? standingsView(S.standings, getLang(), S.show)
    : [h('p', { text: t('noStandings') })]));
}

// A category of the results as a table with the page's headings: place
// (or the mark of one not ranked), name, region, class, sex (М/Ж on the
// Russian page) where men and women are ranked together, each game,
// scratch, handicap, the women's pins, total.
function resultsCategory(c) {
  const lines = c.entries || [];
  const n = Math.max(0, ...lines.map((e) => (e.games || []).length));
  const women = (c.women_pins || 0) > 0;
  const str = (x) => (x === undefined || x === null ? '' : String(x));
  const cols = [[t('colRank'), 'n'], [t('colName')], [t('colRegion')], [t('colClass')]];
  if (c.combined) cols.push([t('colSex')]);
  for (let g = 1; g <= n; g++) cols.push([t('colGame', g), 'n']);
  cols.push([t('colScratch'), 'n'], [t('colHcp'), 'n']);
  if (women) cols.push([t('colWomen'), 'n']);
  cols.push([t('total'), 'n']);
  const rows = lines.map((e) => h('tr', { 'data-mark': e.mark || null },
    h('td', { class: 'n', text: e.rank === null || e.rank === undefined ? (e.mark ? t('mark_' + e.mark) : '') : str(e.rank) }),
    h('td', { text: e.name }), h('td', { text: str(e.region) }), h('td', { text: str(e.class) }),
    c.combined ? h('td', { class: 'sex', text: sexText(e.sex) }) : null,
    Array.from({ length: n }, (_, g) => h('td', { class: 'n', text: str((e.games || [])[g]) })),
    h('td', { class: 'n', text: str(e.scratch) }), h('td', { class: 'n', text: str(e.handicap) }),
    women ? h('td', { class: 'n', text: str(e.bonus) }) : null,
    h('td', { class: 'n total', text: str(e.total) })));
  return h('section', { class: 'panel', 'data-testid': 'results-' + c.id },
    h('h3', { text: categoryTitle(c, getLang()) }),
    h('div', { class: 'scroll' }, h('table', { class: 'standings' },
      h('thead', {}, h('tr', {}, cols.map(([text, cls]) => h('th', { scope: 'col', class: cls || null, text })))),
      h('tbody', {}, rows))));
}

// The results: the protocol to print and the files, then each category
// as a table, the team events and the finals (as on the Standings tab).
function renderResults() {
  const links = [h('a', { href: '/protocol?lang=' + getLang(), target: '_blank', text: t('protocolLink') }),
    ...['txt', 'csv', 'json'].map((ext) => h('a', { href: '/results.' + ext + (ext === 'csv' && getLang() === 'ru' ? '?lang=ru' : ''),
      download: '', title: t('download', ext.toUpperCase()), text: ext.toUpperCase() }))];
  const st = S.standings;
  const cats = (st && st.categories) || [];
  if (!changed('results', st, getLang())) return;
  // The team events and finals as the Standings tab draws them, their
  // test ids this tab's own.
  const more = [...standingsView(st, getLang(), 'teams'), ...standingsView(st, getLang(), 'finals')];
  for (const el of more) {
    for (const x of [el, ...el.querySelectorAll('[data-testid]')]) {
      if (x.dataset.testid) x.dataset.testid = 'results-' + x.dataset.testid;
    }
  }
  $('results').replaceChildren(h('p', { class: 'links' }, ...links),
    ...(cats.length ? [h('h2', { text: t('resultsTable') }), ...cats.map(resultsCategory), ...more] : [h('p', { text: t('noResults') })]));
}

// A withdrawn bowler's name, marked: the centre leaves them out of pushes.
function mark(name) {
  return entries.withdrawnNames().has(name) ? name + ' (' + t('withdrawnShort') + ')' : name;
}

function renderLogin() {
  const box = $('login');
  entries.setJudge(S.judge);
  blocks.update({ judge: S.judge });
  if (S.judge) {
    box.replaceChildren(h('p', { text: t('judge', S.judge) }),
      h('button', { type: 'button', text: t('logout'), onclick: async () => { await api('/api/logout', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' }); S.judge = null; renderLogin(); render(); } }));
    return;
  }
  const pin = h('input', { type: 'password', inputmode: 'numeric', autocomplete: 'off', 'aria-label': t('pin') });
  // A judge with a PIN of their own is named by it; with the shared PIN
  // the name typed is the one recorded ('chief judge' when none).
  const name = h('input', { type: 'text', autocomplete: 'off', maxlength: '64', 'aria-label': t('loginName') });
  const err = h('p', { class: 'alarm', role: 'alert' });
  box.replaceChildren(h('label', {}, t('pin') + ' ', pin), h('label', {}, t('loginName') + ' ', name),
    h('button', { type: 'button', class: 'primary', text: t('login'), onclick: async () => {
      const r = await api('/api/login', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ pin: pin.value, name: name.value.trim() || 'chief judge' }) });
      if (r.status === 200) { S.judge = r.body.name; renderLogin(); render(); } else err.textContent = (r.body && r.body.error) || String(r.status);
    } }), err);
}

function statusText(l) {
  if (l.status === 'cancelled') return t('cancelledBy', l.cancelled_by, clock(l.cancelled_at_unix || l.cancelled_at));
  return l.status === 'offline' ? t('offline_status') : t(l.status);
}

function renderPushes() {
  $('pushes').replaceChildren(...S.pushes.map((p) => h('section', { class: 'push' },
    h('h3', { text: (p.block || p.kind) + ' · ' + t('pushedAt', clock(p.at_unix || p.at), p.by) }),
    h('ul', {}, Object.values(p.lanes).map((l) => h('li', { class: 'pill ' + (l.status === 'accepted' ? 'good' : l.status === 'pending' || l.status === 'offline' || l.status === 'cancelled' ? 'warn' : 'bad'),
      'data-testid': 'push-' + p.id + '-' + l.lane, text: t('lane', l.lane) + ': ' + statusText(l) + (l.error ? ' — ' + l.error : '') }))))));
}

// What the centre raised for the judges to look at: a lane number two
// lanes claim, a journal line that came again with other text.
function renderAlarms() {
  const list = (S.centre && S.centre.alarms) || [];
  $('alarms').replaceChildren(...list.map((a) => h('li', { class: 'pill bad', 'data-testid': 'alarm-' + a.kind + '-' + a.lane,
    text: t('alarm_' + a.kind, a.lane) + ' · ' + clock(a.since) + ' — ' + a.detail })));
}

function render(force) {
  const c = S.centre;
  const link = $('link');
  link.textContent = !S.ok ? t('pageDown') : c && c.connected ? t('brokerUp')
    : t('brokerDown') + (c && c.broker_error ? ' — ' + c.broker_error : '');
  link.className = 'pill ' + (S.ok && c && c.connected ? 'good' : 'bad');
  for (const v of VIEWS) {
    $('view-' + v).hidden = S.view !== v;
    if (S.view === v) $('tab-' + v).setAttribute('aria-current', 'page'); else $('tab-' + v).removeAttribute('aria-current');
  }
  $('login').hidden = S.view !== 'lanes' && S.view !== 'block' && S.view !== 'entries';
  renderAlarms();
  renderLanes();
  renderStandings();
  renderResults();
  blocks.render(mark, force === true);
  renderPushes();
}

// The blocks' programme, the entries and the finals' proposals again.
async function readBlocks() {
  const [prog, fin] = await Promise.all([api('/api/programme'), api('/api/finals')]);
  S.hasProgramme = prog.status === 200 && !!prog.body;
  blocks.update({ programme: S.hasProgramme ? prog.body : null, finals: fin.status === 200 ? fin.body : null });
  if (S.hasProgramme) blocks.update({ entries: (await entries.refresh()) || [] });
}

async function poll() {
  try {
    const [lanes, centre, pushes, standings] = await Promise.all([api('/api/lanes'), api('/api/centre'), api('/api/pushes'), api('/api/standings')]);
    S.lanes = lanes.body || [];
    S.centre = centre.body;
    setZone(S.centre && S.centre.zone);
    S.pushes = pushes.body || [];
    S.standings = standings.status === 200 ? standings.body : null;
    if (S.hasProgramme && S.view === 'entries') await entries.refresh();
    if (S.view === 'block') await readBlocks();
    S.ok = true;
  } catch (_) { S.ok = false; }
  render();
}

document.addEventListener('DOMContentLoaded', async () => {
  setTheme(localStorage.getItem('theme') === 'dark');
  labels();
  for (const b of document.querySelectorAll('nav [data-view]')) {
    b.addEventListener('click', async () => {
      S.view = b.dataset.view;
      if (S.view === 'entries' && S.hasProgramme) await entries.refresh();
      if (S.view === 'block') await readBlocks();
      render();
    });
  }
  // A change to the entries changes the blocks' marks and the standings.
  entries.init(() => poll());
  blocks.init({ render: () => render(), changed: async () => { await readBlocks(); render(true); } });
  $('lang').addEventListener('click', () => { setLang(getLang() === 'ru' ? 'en' : 'ru'); labels(); renderLogin(); render(true); });
  $('theme').addEventListener('click', () => setTheme(!dark()));
  $('hold-form').addEventListener('submit', sendHold);
  $('hold-cancel').addEventListener('click', () => $('hold-dialog').close());
  await readBlocks();
  const s = await api('/api/session');
  S.judge = s.body && s.body.judge;
  renderLogin();
  poll();
  setInterval(poll, 1000);
});

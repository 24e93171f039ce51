// The centre's page: every lane at a glance, standings, the chief judge's
// block control and the results. It polls the centre's API every second.
import { t, setLang, getLang } from './i18n.js';
import { h, api, flags, bowlers, categoryTitle } from './common.js';
import * as entries from './entries.js';

const $ = (id) => document.getElementById(id);
const VIEWS = ['lanes', 'standings', 'block', 'entries', 'results'];
const S = { view: 'lanes', lanes: [], centre: null, judge: null, pushes: [], standings: null, programme: null, protocol: '', ok: true };

function labels() {
  document.documentElement.lang = getLang();
  $('title').textContent = t('title');
  for (const v of VIEWS) $('tab-' + v).textContent = t('tab' + v[0].toUpperCase() + v.slice(1));
  $('tab-tv').textContent = t('tabTv');
  $('lang').textContent = t('lang');
  $('block-label').textContent = t('blockLabel');
  $('lineups-label').textContent = t('lineupsLabel');
  $('push').textContent = t('push');
  entries.labels();
}

function laneCard(l) {
  const s = l.state;
  const up = s && s.up;
  return h('article', { class: 'card' + (l.online ? '' : ' off'), 'data-testid': 'lane-' + l.lane },
    h('h2', { text: t('lane', l.lane) }),
    h('p', { class: 'pill ' + (l.online ? 'good' : 'bad'), text: l.online ? t('online') : t('offline') }),
    h('p', { class: 'up', text: up ? t('up', up.bowler, up.game, up.frame, up.ball) : t('nobodyUp') }),
    h('ul', { class: 'flags' }, flags(s).map(([text, tone]) => h('li', { class: 'pill ' + tone, text }))),
    h('ul', { class: 'bowlers' }, bowlers(s).map((b) => h('li', { text: b.name + ' (' + b.class + ') ' + b.series }))),
    h('p', { class: 'mirror', text: t('mirror', l.mirror) }),
    ...(l.mirror.failed ? [h('p', { class: 'pill bad', 'data-testid': 'mirror-failed-' + l.lane, text: t('mirrorFailed', l.mirror.failed) })] : []));
}

function renderLanes() {
  const box = $('lanes');
  box.replaceChildren(...(S.lanes.length ? S.lanes.map(laneCard) : [h('p', { text: t('noLanes') })]));
}

function table(entries) {
  return h('table', {},
    h('thead', {}, h('tr', {}, [t('rank'), t('name'), t('lane', ''), t('games'), t('total')].map((x) => h('th', { text: x })))),
    h('tbody', {}, entries.map((e, i) => h('tr', {},
      [e.rank || i + 1, e.name, e.lane, (e.games || []).join(' '), e.total].map((x) => h('td', { text: x === undefined || x === null ? '' : String(x) }))))));
}

function renderStandings() {
  const cats = S.standings && S.standings.categories;
  $('standings').replaceChildren(...(cats && cats.length
    ? cats.map((c) => h('section', { 'data-testid': 'category-' + c.id }, h('h2', { text: categoryTitle(c, getLang()) }), table(c.entries || [])))
    : [h('p', { text: t('noStandings') })]));
}

function renderResults() {
  const links = [h('a', { href: '/protocol?lang=' + getLang(), target: '_blank', text: t('protocolLink') }),
    ...['txt', 'csv', 'json'].map((ext) => h('a', { href: '/results.' + ext, download: '', title: t('download', ext.toUpperCase()), text: ext.toUpperCase() }))];
  $('results').replaceChildren(h('p', { class: 'links' }, ...links),
    S.protocol ? h('pre', { class: 'protocol', text: S.protocol }) : h('p', { text: t('noResults') }));
}

// A withdrawn bowler's name, marked: the centre leaves them out of pushes.
function mark(name) {
  return entries.withdrawnNames().has(name) ? name + ' (' + t('withdrawnShort') + ')' : name;
}

// With a programme: each block's lanes and one button that pushes them.
function renderBlocks() {
  const p = S.programme;
  $('blocks').replaceChildren(...(p ? p.blocks.map((b) => h('section', { class: 'block', 'data-testid': 'block-' + b.id },
    h('h3', { text: t('blockTitle', b.id, b.event, b.games) }),
    h('ul', {}, Object.entries(b.lanes).map(([lane, names]) => h('li', { text: t('lane', lane) + ': ' + names.map(mark).join(', ') }))),
    S.judge ? h('button', { type: 'button', text: t('pushBlock', b.id), onclick: async () => {
      const r = await api('/api/push', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ block: b.id }) });
      $('push-error').textContent = r.status === 200 ? '' : (r.body && r.body.error) || String(r.status);
      poll();
    } }) : null)) : []));
}

function renderLogin() {
  const box = $('login');
  entries.setJudge(S.judge);
  if (S.judge) {
    box.replaceChildren(h('p', { text: t('judge', S.judge) }),
      h('button', { type: 'button', text: t('logout'), onclick: async () => { await api('/api/logout', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' }); S.judge = null; renderLogin(); } }));
    $('push-form').hidden = false;
    return;
  }
  $('push-form').hidden = true;
  const pin = h('input', { type: 'password', inputmode: 'numeric', autocomplete: 'off', 'aria-label': t('pin') });
  // A judge with a PIN of their own is named by it; with the shared PIN
  // the name typed is the one recorded ('chief judge' when none).
  const name = h('input', { type: 'text', autocomplete: 'off', maxlength: '60', 'aria-label': t('loginName') });
  const err = h('p', { class: 'alarm', role: 'alert' });
  box.replaceChildren(h('label', {}, t('pin') + ' ', pin), h('label', {}, t('loginName') + ' ', name),
    h('button', { type: 'button', text: t('login'), onclick: async () => {
      const r = await api('/api/login', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ pin: pin.value, name: name.value.trim() || 'chief judge' }) });
      if (r.status === 200) { S.judge = r.body.name; renderLogin(); } else err.textContent = (r.body && r.body.error) || String(r.status);
    } }), err);
}

function renderPushes() {
  $('pushes').replaceChildren(...S.pushes.map((p) => h('section', { class: 'push' },
    h('h3', { text: (p.block || p.kind) + ' · ' + p.at + ' · ' + p.by }),
    h('ul', {}, Object.values(p.lanes).map((l) => h('li', { class: 'pill ' + (l.status === 'accepted' ? 'good' : l.status === 'pending' ? 'warn' : 'bad'),
      text: t('lane', l.lane) + ': ' + t(l.status) + (l.error ? ' — ' + l.error : '') }))))));
}

// What the centre raised for the judges to look at: a lane number two
// lanes claim, a journal line that came again with other text.
function renderAlarms() {
  const list = (S.centre && S.centre.alarms) || [];
  $('alarms').replaceChildren(...list.map((a) => h('li', { class: 'pill bad', 'data-testid': 'alarm-' + a.kind + '-' + a.lane,
    text: t('alarm_' + a.kind, a.lane) + ' · ' + a.since + ' — ' + a.detail })));
}

function render() {
  const c = S.centre;
  const link = $('link');
  link.textContent = !S.ok ? t('pageDown') : c && c.connected ? t('brokerUp')
    : t('brokerDown') + (c && c.broker_error ? ' — ' + c.broker_error : '');
  link.className = 'pill ' + (S.ok && c && c.connected ? 'good' : 'bad');
  for (const v of VIEWS) $('view-' + v).hidden = S.view !== v;
  $('login').hidden = S.view !== 'block' && S.view !== 'entries';
  renderAlarms();
  renderLanes();
  renderStandings();
  renderResults();
  renderBlocks();
  renderPushes();
}

async function poll() {
  try {
    const [lanes, centre, pushes, standings] = await Promise.all([api('/api/lanes'), api('/api/centre'), api('/api/pushes'), api('/api/standings')]);
    S.lanes = lanes.body || [];
    S.centre = centre.body;
    S.pushes = pushes.body || [];
    S.standings = standings.status === 200 ? standings.body : null;
    if (S.view === 'entries') await entries.refresh();
    if (S.view === 'results') {
      const r = await fetch('/results.txt', { cache: 'no-store' });
      S.protocol = r.ok ? await r.text() : '';
    }
    S.ok = true;
  } catch (_) { S.ok = false; }
  render();
}

document.addEventListener('DOMContentLoaded', async () => {
  labels();
  for (const b of document.querySelectorAll('nav [data-view]')) {
    b.addEventListener('click', async () => {
      S.view = b.dataset.view;
      if (S.view === 'entries') await entries.refresh();
      render();
    });
  }
  // A change to the entries changes the blocks' marks and the standings.
  entries.init(() => poll());
  $('lang').addEventListener('click', () => { setLang(getLang() === 'ru' ? 'en' : 'ru'); labels(); renderLogin(); render(); });
  $('push-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    let lanes;
    try { lanes = JSON.parse($('lineups').value); } catch (_) { $('push-error').textContent = t('notJson'); return; }
    const r = await api('/api/push', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ block: $('block').value, lanes }) });
    $('push-error').textContent = r.status === 200 ? '' : (r.body && r.body.error) || String(r.status);
    poll();
  });
  await entries.refresh();
  const prog = await api('/api/programme');
  S.programme = prog.status === 200 ? prog.body : null;
  const s = await api('/api/session');
  S.judge = s.body && s.body.judge;
  renderLogin();
  poll();
  setInterval(poll, 1000);
});

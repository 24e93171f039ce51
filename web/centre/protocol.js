// The results protocol as a printable A4 document: the programme's heading
// (both titles, dates, place, judges), one section per category and team
// event, the finals, and the chief judge's and chief secretary's
// signature lines. Read once from /api/programme and /api/standings (the
// same data as /results.json); "Refresh" reads them again. `?lang=ru|en`.
import { t, getLang, setLang, LANGS } from './i18n.js';
import { h, api } from './common.js';

const $ = (id) => document.getElementById(id);
const D = { programme: null, standings: null, failed: false };

const fromUrl = new URLSearchParams(location.search).get('lang');
if (LANGS.includes(fromUrl) && fromUrl !== getLang()) setLang(fromUrl);

const cell = (text, cls) => h('td', { class: cls, text: text === undefined || text === null ? '' : String(text) });
const head = (text, cls) => h('th', { class: cls, scope: 'col', text });
const titleOf = (c) => (getLang() === 'ru' ? c.title_ru : c.title) || c.title || c.id;

function table(cols, rows, extraClass) {
  return h('table', { class: extraClass || null },
    h('thead', {}, h('tr', {}, cols.map(([label, cls]) => head(label, cls)))),
    h('tbody', {}, rows.map((r) => h('tr', {}, r))));
}

// A game's pins, starred while it is being bowled.
function gameCells(s, n) {
  const out = [];
  for (let g = 0; g < n; g++) {
    const pins = s.games && s.games[g];
    const live = s.playing && s.playing.game === g + 1;
    out.push(cell(pins === undefined ? '' : pins + (live ? '*' : ''), 'num'));
  }
  return out;
}

// A line's place, or for one not ranked its mark (withdrawn, DNS).
function rankCell(s) {
  if (s.rank !== null && s.rank !== undefined) return cell(s.rank, 'num');
  return h('td', { class: 'num mark', 'data-mark': s.mark || '', text: s.mark ? t('mark_' + s.mark) : '' });
}

function handicapped(c) {
  const entries = (D.programme && D.programme.entries) || [];
  const names = new Set((c.entries || []).map((e) => e.name));
  return entries.some((e) => names.has(e.name) && e.handicap > 0) || (c.entries || []).some((e) => e.handicap > 0);
}

function categorySection(c) {
  const lines = c.entries || [];
  const n = Math.max(0, ...lines.map((s) => (s.games || []).length));
  const hcp = handicapped(c);
  const cols = [['№', 'num'], [t('name')], [t('colRegion')], [t('colClass')]];
  if (c.combined) cols.push([t('colSex')]);
  for (let g = 1; g <= n; g++) cols.push([t('colGame', g), 'num']);
  cols.push([t('colScratch'), 'num']);
  if (hcp) cols.push([t('colHcp'), 'num']);
  if (c.combined) cols.push([t('colWomen'), 'num']);
  cols.push([t('total'), 'num']);
  const rows = lines.map((s) => [
    rankCell(s), cell(s.name, 'name'), cell(s.region, 'text'), cell(s.class),
    ...(c.combined ? [cell(s.sex === 'F' ? t('sexF') : s.sex === 'M' ? t('sexM') : '')] : []),
    ...gameCells(s, n), cell(s.scratch, 'num'),
    ...(hcp ? [cell(s.handicap, 'num')] : []),
    ...(c.combined ? [cell(s.bonus, 'num')] : []),
    cell(s.total, 'num total'),
  ]);
  const notes = [];
  if (c.combined) notes.push(h('p', { class: 'note', 'data-testid': 'combined-note', text: t('combinedNote') }));
  if (hcp) notes.push(h('p', { class: 'note', text: t('hcpNote') }));
  if (lines.some((s) => s.playing)) notes.push(h('p', { class: 'note', text: t('liveNote') }));
  if (lines.some((s) => s.mark)) notes.push(h('p', { class: 'note', text: t('unrankedNote') }));
  return h('section', { class: 'result', 'data-testid': 'protocol-category-' + c.id },
    h('h2', { text: t(hcp ? 'ev_singlesHcp' : 'ev_singles') + ' · ' + titleOf(c) }),
    table(cols, rows, n > 8 ? 'many' : null), ...notes);
}

function teamSection(ev) {
  const lines = ev.entries || [];
  const n = Math.max(0, ...lines.map((s) => (s.games || []).length));
  const hcp = lines.some((s) => s.handicap > 0);
  const cols = [['№', 'num'], [t('colTeam')], [t('colMembers')]];
  for (let g = 1; g <= n; g++) cols.push([t('colGame', g), 'num']);
  cols.push([t('colScratch'), 'num']);
  if (hcp) cols.push([t('colHcp'), 'num']);
  cols.push([t('total'), 'num']);
  const rows = lines.map((s) => [
    cell(s.rank, 'num'), cell(s.name, 'name'), cell((s.members || []).join(', '), 'text'),
    ...gameCells(s, n), cell(s.scratch, 'num'), ...(hcp ? [cell(s.handicap, 'num')] : []), cell(s.total, 'num total'),
  ]);
  return h('section', { class: 'result', 'data-testid': 'protocol-event-' + ev.event },
    h('h2', { text: t('ev_' + ev.kind) + ' · ' + ev.event }),
    table(cols, rows, n > 8 ? 'many' : null),
    lines.some((s) => s.playing) ? h('p', { class: 'note', text: t('liveNote') }) : null);
}

const score = (x) => (x === null || x === undefined ? '–' : String(x));

function ladderMatch(title, m) {
  if (!m) return h('div', { class: 'match' }, h('h4', { text: title }), h('p', { class: 'outcome', text: t('slPending') }));
  const side = (name, pins) => h('div', { class: 'side' + (m.winner && m.winner === name ? ' won' : '') },
    h('span', { text: name || '' }), h('span', { text: score(pins) }));
  return h('div', { class: 'match' }, h('h4', { text: title }),
    side(m.a, m.a_score), side(m.b, m.b_score),
    h('p', { class: 'outcome', text: m.winner ? t('slWinner', m.winner) : m.tie ? t('slTie') : m.complete ? '' : t('slPending') }));
}

function finalsSection(id, f) {
  const cat = ((D.standings && D.standings.categories) || []).find((c) => c.id === id);
  const rr = f.round_robin || [];
  // Each part of the total in its own column, so that a row adds up.
  const hcp = rr.some((r) => r.handicap > 0);
  const women = rr.some((r) => r.women_pins > 0);
  const rrTable = table(
    [['№', 'num'], [t('name')], [t('colPrelim'), 'num'], [t('games')], [t('colScratch'), 'num'],
      ...(hcp ? [[t('colHcp'), 'num']] : []), ...(women ? [[t('colWomen'), 'num']] : []),
      [t('colWins'), 'num'], [t('colTies'), 'num'], [t('colBonus'), 'num'], [t('total'), 'num']],
    rr.map((r) => [cell(r.rank, 'num'), cell(r.name, 'name'), cell(r.preliminary, 'num'), cell((r.games || []).join(' '), 'text'),
      cell(r.scratch, 'num'), ...(hcp ? [cell(r.handicap, 'num')] : []), ...(women ? [cell(r.women_pins, 'num')] : []),
      cell(r.wins, 'num'), cell(r.ties, 'num'), cell(r.bonus, 'num'), cell(r.total, 'num total')]));
  const matches = (f.matches || []).filter((m) => m.b);
  const mTable = table(
    [[t('colRound'), 'num'], [t('name')], ['', 'num'], ['', 'num'], [t('name')]],
    matches.map((m) => [cell(m.round, 'num'), cell(m.a, m.winner === m.a ? 'name' : 'text'), cell(score(m.a_score), 'num'),
      cell(score(m.b_score), 'num'), cell(m.b, m.winner === m.b ? 'name' : 'text')]));
  const sl = (f.step_ladder && f.step_ladder.matches) || [];
  const places = (f.step_ladder && f.step_ladder.places) || [];
  return h('section', { class: 'result', 'data-testid': 'protocol-finals-' + id },
    h('h2', { text: t('pFinalsTitle', cat ? titleOf(cat) : id) }),
    h('h3', { text: t('pRoundRobin') }), rrTable,
    h('p', { class: 'note', text: t('rrNote') + ' ' + t('rrSumNote') }),
    matches.length ? h('h3', { text: t('rrMatches') }) : null, matches.length ? mTable : null,
    h('h3', { text: t('pStepLadder') }),
    h('div', { class: 'ladder', 'data-testid': 'step-ladder-' + id }, ladderMatch(t('slFirst'), sl[0]), ladderMatch(t('slSecond'), sl[1])),
    places.length ? h('h3', { text: t('placesTitle') }) : null,
    places.length ? h('ol', { class: 'places' }, places.map((p) => h('li', { text: p }))) : null);
}

// Why a game is not counted, in the page's language; a judge's own
// words (a voided game's `note`) after it.
const reasonOf = (u) => ((getLang() === 'ru' && u.reason_ru) || u.reason) + (u.note ? ': ' + u.note : '');

function unplacedSection(list) {
  return h('section', { class: 'result', 'data-testid': 'protocol-unplaced' },
    h('h2', { text: t('unplacedTitle') }),
    table([[t('lane', '')], [t('colBlock')], [t('name')], [t('colGame', ''), 'num'], [t('colPins'), 'num'], [t('colReason')]],
      list.map((u) => [cell(u.lane, 'num'), cell(u.block || '–'), cell(u.name, 'name'), cell(u.game, 'num'), cell(u.score, 'num'), cell(reasonOf(u), 'text')])));
}

// The programme's judge whose role says `en` or `ru` (its first).
function judge(en, ru) {
  const list = (D.programme && D.programme.judges) || [];
  return list.find((j) => { const r = j.role.toLowerCase(); return r.includes(en) || r.includes(ru); });
}

function signatures() {
  const line = (label, j) => h('div', { class: 'sign' },
    h('span', { class: 'role', text: label }),
    h('span', { class: 'line' }, h('span', { text: t('signature') })),
    h('span', { class: 'who', text: j ? j.name : '' }));
  return h('section', { class: 'signatures', 'data-testid': 'signatures' },
    line(t('chiefJudge'), judge('chief judge', 'главный судья')),
    line(t('chiefSecretary'), judge('chief secretary', 'главный секретарь')));
}

function heading() {
  const p = D.programme;
  if (!p) {
    return h('header', { class: 'event', 'data-testid': 'protocol-header' },
      h('p', { class: 'doc-kind', text: t('protocolDoc') }), h('p', { class: 'note', text: t('pNoProgramme') }));
  }
  // Both titles, the page's language first.
  const titles = getLang() === 'ru' && p.title_ru ? [p.title_ru, p.title] : [p.title, p.title_ru];
  return h('header', { class: 'event', 'data-testid': 'protocol-header' },
    h('h1', { text: titles[0] }),
    titles[1] ? h('p', { class: 'title-' + (titles[1] === p.title ? 'en' : 'ru'), text: titles[1] }) : null,
    h('p', { class: 'doc-kind', text: t('protocolDoc') }),
    h('p', { class: 'facts', text: t('datesLabel') + ': ' + p.dates + ' · ' + t('placeLabel') + ': ' + p.place }),
    (p.judges || []).length ? h('p', { class: 'facts', text: t('judgesTitle') + ':' }) : null,
    (p.judges || []).length ? h('ul', { class: 'judges', 'aria-label': t('judgesTitle') },
      p.judges.map((j) => h('li', { text: j.role + ': ' + j.name }))) : null);
}

function render() {
  document.documentElement.lang = getLang();
  document.title = 'Lanecall · ' + t('protocolDoc');
  $('print').textContent = t('printPdf');
  $('refresh').textContent = t('refresh');
  $('lang').textContent = t('lang');
  $('csv').href = '/results.csv?lang=' + getLang();
  $('csv').textContent = t('csvExcel');
  $('startlist').href = '/startlist.txt?lang=' + getLang();
  $('startlist').textContent = t('startList');
  const s = D.standings;
  if (D.failed || !s) {
    $('doc').replaceChildren(heading(), h('p', { text: D.failed ? t('pageDown') : t('noResults') }));
    document.body.dataset.ready = 'true';
    return;
  }
  const finals = Object.entries(s.finals || {});
  $('doc').replaceChildren(...[
    heading(),
    ...(s.categories || []).map(categorySection),
    ...(s.teams || []).map(teamSection),
    ...finals.map(([id, f]) => finalsSection(id, f)),
    (s.unplaced || []).length ? unplacedSection(s.unplaced) : null,
    signatures(),
    h('p', { class: 'generated', text: t('generated', new Date().toLocaleString(getLang() === 'ru' ? 'ru-RU' : 'en-GB')) }),
  ].filter(Boolean));
  document.body.dataset.ready = 'true';
}

async function load() {
  document.body.dataset.ready = 'false';
  try {
    const [prog, standings] = await Promise.all([api('/api/programme'), api('/api/standings')]);
    D.programme = prog.status === 200 ? prog.body : null;
    D.standings = standings.status === 200 ? standings.body : null;
    D.failed = false;
  } catch (_) { D.failed = true; }
  render();
}

document.addEventListener('DOMContentLoaded', () => {
  $('print').addEventListener('click', () => window.print());
  $('refresh').addEventListener('click', load);
  $('lang').addEventListener('click', () => {
    setLang(getLang() === 'ru' ? 'en' : 'ru');
    const u = new URL(location.href);
    u.searchParams.set('lang', getLang());
    history.replaceState(null, '', u);
    render();
  });
  load();
});

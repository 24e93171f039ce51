// The scoreboard for a TV (1920×1080 and the like): the standings of each
// category, the team events once they have games, each category's finals
// once they start (the round robin's table, the step-ladder's matches and
// the final places), then every lane's bowlers and series, as cards in a grid that
// fills the screen and is never scrolled. When there are more cards than
// fit, it pages by itself every 10 s ("1/3" in the corner). Polls the data
// every two seconds and touches only the cards that changed.
//
// `?lang=ru|en`; `?page=N` starts on page N; `?interval=MS` pages every MS
// milliseconds (0: only when told, by `window.tvNext()` or the right arrow
// key).
import { t, getLang, setLang, LANGS } from './i18n.js';
import { h, api, bowlers, categoryTitle } from './common.js';

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
if (LANGS.includes(params.get('lang')) && params.get('lang') !== getLang()) setLang(params.get('lang'));
const interval = params.has('interval') ? Math.max(0, Number(params.get('interval')) || 0) : 10_000;

const S = { lanes: [], cats: [], teams: [], finals: {}, title: '', page: Math.max(0, (Number(params.get('page')) || 1) - 1), grid: null };

// Columns, rows and lines a card holds, from the screen's size: about
// 600 px a column (a bowler's whole name in large type), two rows from
// 700 px high (3 × 2 at 1920×1080).
function geometry() {
  const w = window.innerWidth;
  const hgt = window.innerHeight;
  const cols = Math.min(6, Math.max(1, Math.round(w / 600)));
  const rows = hgt >= 700 ? 2 : 1;
  // The board is 91% of the height less its gaps; a card's title takes
  // about 7.5% of the height and a line 4.4% (tv.css).
  const card = (hgt * 0.91 - hgt * 0.012 * (rows + 1)) / rows;
  const lines = Math.max(2, Math.floor((card - hgt * 0.075) / (hgt * 0.044)));
  return { cols, rows, lines };
}

// A ranking's lines as cards of `lines` lines each: `title` and " · 1–6".
function ranked(out, kind, id, title, list, lines, line) {
  for (let from = 0; from < Math.max(1, list.length); from += lines) {
    const part = list.slice(from, from + lines);
    const range = list.length > lines ? ' · ' + (from + 1) + '–' + (from + part.length) : '';
    out.push({ kind, id: id + '-' + (from + 1), title: title + range, lines: part.map(line) });
  }
}

const rankOf = (e) => (e.rank === null || e.rank === undefined ? '–' : e.rank + '.');
const bowled = (e) => (e.games || []).length > 0;

// The team events with a game bowled, and each category's finals once
// its round robin has a game: the round robin's table (wins and ties
// beside the total), then the step-ladder's matches and the final places.
function laterCards(out, lines) {
  for (const ev of S.teams) {
    if (!(ev.entries || []).some(bowled)) continue;
    ranked(out, 'standing team', 'team-' + ev.event, t('kind_' + ev.kind) + ' · ' + ev.event, ev.entries, lines,
      (e) => ({ rank: rankOf(e), who: e.name, pins: e.total }));
  }
  for (const [cat, f] of Object.entries(S.finals)) {
    const c = S.cats.find((x) => x.id === cat);
    const title = c ? categoryTitle(c, getLang()) : cat;
    const rr = f.round_robin || [];
    if (!rr.some(bowled)) continue;
    ranked(out, 'standing finals', 'rr-' + cat, t('roundRobin', title), rr, lines,
      (e) => ({ rank: rankOf(e), who: e.name, note: t('tvWinsTies', e.wins || 0, e.ties || 0), pins: e.total }));
    const sl = f.step_ladder || {};
    const matches = (sl.matches || []).filter((m) => m.a_score !== null && m.a_score !== undefined);
    const places = sl.places || [];
    if (!matches.length && !places.length) continue;
    const rows = matches.map((m, i) => ({ rank: (i + 1) + ')', who: (m.a || t('tbd')) + ' — ' + (m.b || t('tbd')),
      pins: (m.a_score ?? '') + ':' + (m.b_score ?? '') + (m.tie ? ' ' + t('matchTie') : '') }));
    places.forEach((n, i) => rows.push({ rank: (i + 1) + '.', who: n, pins: '', place: true }));
    ranked(out, 'standing finals', 'ladder-' + cat, t('stepLadder', title), rows, lines, (x) => x);
  }
}

// Every card: each category's ranking in pieces of `lines`, the team
// events and finals (laterCards), then each lane.
function cards(lines) {
  const out = [];
  for (const c of S.cats) {
    const entries = c.entries || [];
    for (let from = 0; from < Math.max(1, entries.length); from += lines) {
      const part = entries.slice(from, from + lines);
      const range = entries.length > lines ? ' · ' + (from + 1) + '–' + (from + part.length) : '';
      out.push({ kind: 'standing', id: 'category-' + c.id + '-' + (from + 1), title: categoryTitle(c, getLang()) + range,
        lines: part.map((e) => (e.rank === null || e.rank === undefined
          ? { rank: '–', who: e.name + (e.mark ? ' (' + t('mark_' + e.mark) + ')' : ''), pins: e.total, mark: e.mark || 'unranked' }
          : { rank: e.rank + '.', who: e.name, pins: e.total })) });
    }
  }
  laterCards(out, lines);
  for (const l of S.lanes) {
    // A lane never heard from has nothing for the hall; the director's page shows it.
    if (l.never_connected) continue;
    const up = l.state && l.state.up && l.state.up.bowler;
    out.push({ kind: 'lane', id: 'lane-' + l.lane, off: !l.online, title: t('lane', l.lane),
      lines: bowlers(l.state).slice(0, lines).map((b) => ({ who: b.name, pins: b.series, up: b.name === up })) });
  }
  return out;
}

function cardBody(c) {
  return [h('h2', { text: c.title }),
    h('ol', {}, c.lines.map((x) => h('li', { class: x.up ? 'up' : null, 'data-mark': x.mark || null },
      x.rank ? h('span', { class: 'rank', text: x.rank }) : null,
      h('span', { class: 'who', text: x.who }),
      x.note ? h('span', { class: 'note', text: x.note }) : null,
      x.place ? null : h('span', { class: 'sep', text: ' — ' }),
      x.place ? null : h('span', { class: 'pins', text: String(x.pins) }))))];
}

// A name too wide for its card is shown smaller, down to half size, and
// then on two lines: never cut (a long surname must be read whole).
function fitNames(cell) {
  for (const who of cell.querySelectorAll('.who')) {
    who.style.fontSize = '';
    who.classList.remove('wrap');
    if (who.scrollWidth <= who.clientWidth) continue;
    const size = parseFloat(getComputedStyle(who).fontSize);
    const scaled = Math.max(size * 0.5, Math.floor(size * who.clientWidth / who.scrollWidth));
    who.style.fontSize = scaled + 'px';
    if (who.scrollWidth > who.clientWidth) who.classList.add('wrap');
  }
}

function render() {
  const g = geometry();
  const board = $('board');
  const per = g.cols * g.rows;
  if (!S.grid || S.grid.cols !== g.cols || S.grid.rows !== g.rows || S.grid.lines !== g.lines) {
    S.grid = g;
    board.style.setProperty('--cols', g.cols);
    board.style.setProperty('--rows', g.rows);
    board.replaceChildren(...Array.from({ length: per }, () => h('article', { class: 'tv-card empty' })));
  }
  const all = cards(g.lines);
  const pages = Math.max(1, Math.ceil(all.length / per));
  S.page %= pages;
  const shown = all.slice(S.page * per, S.page * per + per);
  [...board.children].forEach((cell, i) => {
    const c = shown[i];
    const key = c ? JSON.stringify(c) : '';
    if (cell.dataset.key === key) return;
    cell.dataset.key = key;
    cell.className = 'tv-card' + (!c ? ' empty' : ' ' + c.kind + (c.off ? ' off' : ''));
    if (c) cell.dataset.testid = c.id; else delete cell.dataset.testid;
    cell.replaceChildren(...(c ? cardBody(c) : []));
    fitNames(cell);
  });
  $('page').textContent = pages > 1 ? t('tvPage', S.page + 1, pages) : '';
  board.dataset.page = String(S.page + 1);
  board.dataset.pages = String(pages);
}

// The next page (the first after the last); its number.
function next() {
  S.page += 1;
  render();
  return S.page + 1;
}
window.tvNext = next;

function labels() {
  document.documentElement.lang = getLang();
  $('title').textContent = S.title || t('title');
}

async function poll() {
  try {
    const [lanes, standings] = await Promise.all([api('/api/lanes'), api('/api/standings')]);
    S.lanes = lanes.body || [];
    const st = (standings.status === 200 && standings.body) || {};
    S.cats = st.categories || [];
    S.teams = st.teams || [];
    S.finals = st.finals || {};
    $('status').textContent = '';
  } catch (_) {
    $('status').textContent = t('pageDown');
  }
  render();
  // How many polls the board has taken in (for a test to wait on).
  document.body.dataset.polls = String(Number(document.body.dataset.polls || 0) + 1);
  document.body.dataset.ready = 'true';
}

async function start() {
  try {
    const p = await api('/api/programme');
    if (p.status === 200 && p.body) S.title = (getLang() === 'ru' && p.body.title_ru) || p.body.title || '';
  } catch (_) { /* the centre's own title */ }
  labels();
  await poll();
  setInterval(poll, 2000);
  if (interval > 0) setInterval(next, interval);
  window.addEventListener('resize', render);
  document.addEventListener('keydown', (e) => { if (e.key === 'ArrowRight') next(); });
}
start();

// The standings as a director reads them (/api/standings,
// docs/programme.md "Standings"): per category with the handicap and a
// woman's pins, the team events, the round robin with its wins, ties and
// bonus, and the step-ladder as a bracket. A game in progress is marked.
import { t } from './i18n.js';
import { h, categoryTitle, sexText } from './common.js';

const str = (x) => (x === undefined || x === null ? '' : String(x));

// Each game's pins; the one in progress marked.
function gamesCell(e) {
  const p = e.playing;
  return h('td', { class: 'games' }, (e.games || []).map((g, i) => {
    const live = p && p.game === i + 1;
    return h('span', { class: 'g' + (live ? ' live' : ''), title: live ? t('playingNow', p.game, p.frames) : null },
      live ? h('span', { class: 'vh', text: t('inProgress') + ' ' }) : null, String(g));
  }));
}

function table(head, rows) {
  return h('div', { class: 'scroll' }, h('table', { class: 'standings' },
    h('thead', {}, h('tr', {}, head.map(([text, cls]) => h('th', { scope: 'col', class: cls || null, text })))),
    h('tbody', {}, rows)));
}

function categorySection(c, lang) {
  const women = c.women_pins || 0;
  const head = [[t('rank'), 'n'], [t('name')]];
  // Men and women ranked together: each bowler's sex, М/Ж on the Russian page.
  if (c.combined) head.push([t('colSex')]);
  head.push([t('lane', '').trim(), 'n'], [t('games')], [t('scratch'), 'n'], [t('hdcp'), 'n']);
  if (women) head.push([t('bonusW') + women, 'n']);
  head.push([t('total'), 'n']);
  const rows = (c.entries || []).map((e) => h('tr', { class: e.playing ? 'playing' : null },
    h('td', { class: 'n', text: e.rank === null && e.mark ? t('mark_' + e.mark) : str(e.rank) }), h('td', { text: e.name }),
    c.combined ? h('td', { class: 'sex', text: sexText(e.sex) }) : null,
    h('td', { class: 'n', text: str(e.lane) }), gamesCell(e), h('td', { class: 'n', text: str(e.scratch) }), h('td', { class: 'n', text: str(e.handicap) }),
    women ? h('td', { class: 'n', text: str(e.bonus) }) : null,
    h('td', { class: 'n total', text: str(e.total) })));
  return h('section', { class: 'panel', 'data-testid': 'category-' + c.id },
    h('h2', { text: categoryTitle(c, lang) }),
    women ? h('p', { class: 'note', text: t('womenPins', women) }) : null,
    table(head, rows));
}

function teamSection(ev) {
  const head = [[t('rank'), 'n'], [t('team')], [t('members')], [t('lane', '').trim(), 'n'], [t('games')], [t('scratch'), 'n'], [t('hdcp'), 'n'], [t('total'), 'n']];
  const rows = (ev.entries || []).map((e) => h('tr', { class: e.playing ? 'playing' : null },
    h('td', { class: 'n', text: str(e.rank) }), h('td', { text: e.name }), h('td', { text: (e.members || []).join(', ') }),
    h('td', { class: 'n', text: str(e.lane) }), gamesCell(e), h('td', { class: 'n', text: str(e.scratch) }),
    h('td', { class: 'n', text: str(e.handicap) }), h('td', { class: 'n total', text: str(e.total) })));
  return h('section', { class: 'panel', 'data-testid': 'team-' + ev.event },
    h('h2', { text: t('kind_' + ev.kind) + ' · ' + ev.event }), table(head, rows));
}

function matchBox(m, label) {
  const side = (name, score) => h('li', { class: m.winner === name ? 'won' : null },
    h('span', { class: 'who', text: name || t('tbd') }), h('span', { class: 'n', text: str(score) }));
  return h('div', { class: 'match' + (m.complete ? ' done' : '') },
    h('p', { class: 'stage', text: label + (m.tie ? ' · ' + t('matchTie') : '') }),
    h('ol', {}, side(m.a, m.a_score), side(m.b, m.b_score)));
}

function finalsSection(cat, f, lang, cats) {
  const c = cats.find((x) => x.id === cat);
  const title = c ? categoryTitle(c, lang) : cat;
  // As the protocol: scratch, handicap and the women's pins each in its
  // own column, so that a row adds up, and "Бонус" only the match bonus.
  const rr = f.round_robin || [];
  const hcp = rr.some((e) => e.handicap > 0);
  const women = rr.some((e) => e.women_pins > 0);
  const head = [[t('rank'), 'n'], [t('name')], [t('prelim'), 'n'], [t('games')], [t('scratch'), 'n'],
    ...(hcp ? [[t('hdcp'), 'n']] : []), ...(women ? [[t('colWomen'), 'n']] : []),
    [t('wins'), 'n'], [t('ties'), 'n'], [t('bonus'), 'n'], [t('total'), 'n']];
  const rows = rr.map((e) => h('tr', {},
    h('td', { class: 'n', text: str(e.rank) }), h('td', { text: e.name }), h('td', { class: 'n', text: str(e.preliminary) }),
    h('td', { class: 'games', text: (e.games || []).join(' ') }), h('td', { class: 'n', text: str(e.scratch) }),
    hcp ? h('td', { class: 'n', text: str(e.handicap) }) : null, women ? h('td', { class: 'n', text: str(e.women_pins) }) : null,
    h('td', { class: 'n', text: str(e.wins) }), h('td', { class: 'n', text: str(e.ties) }),
    h('td', { class: 'n', text: str(e.bonus) }), h('td', { class: 'n total', text: str(e.total) })));
  const sl = f.step_ladder || { matches: [], places: [] };
  const [m1, m2] = sl.matches || [];
  const bracket = h('div', { class: 'bracket', 'data-testid': 'ladder-' + cat },
    m1 ? matchBox(m1, t('stage_step_ladder_1')) : h('p', { text: t('waiting_fewer') }),
    m2 ? matchBox(m2, t('stage_step_ladder_2')) : h('div', { class: 'match' }, h('p', { class: 'stage', text: t('stage_step_ladder_2') }), h('p', { text: t('tbd') })),
    (sl.places || []).length ? h('div', { class: 'match done' }, h('p', { class: 'stage', text: t('places') }),
      h('ol', {}, sl.places.map((n) => h('li', { text: n })))) : null);
  return h('section', { class: 'panel', 'data-testid': 'finals-' + cat },
    h('h2', { text: t('roundRobin', title) }), table(head, rows),
    h('h3', { text: t('stepLadder', title) }), bracket);
}

// The sections of the standings `show` asks for (`all`, `singles`,
// `teams`, `finals`).
export function standingsView(st, lang, show) {
  const cats = st.categories || [];
  const on = (what) => !show || show === 'all' || show === what;
  const out = on('singles') ? cats.map((c) => categorySection(c, lang)) : [];
  if (on('teams')) for (const ev of st.teams || []) out.push(teamSection(ev));
  if (on('finals')) for (const [cat, f] of Object.entries(st.finals || {})) out.push(finalsSection(cat, f, lang, cats));
  return out;
}

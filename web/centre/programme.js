// The programme on the centre's page: the events (a team event's teams
// chosen from the entries), the blocks (event, games, day) and the finals
// (category, round robin, two step-ladder blocks), each added, edited or
// deleted by a form (docs/programme.md, "The programme on the centre's
// page"). Reading is open to all; a change needs a judge logged in (the
// centre records their name with it). The view is its own tab: it shows
// itself when its tab is pressed and hides when another is.
import { t, getLang } from './i18n.js';
import { h, api, clock } from './common.js';

const $ = (id) => document.getElementById(id);
const KINDS = ['singles', 'doubles', 'trios', 'teams'];
const SIZE = { singles: 0, doubles: 2, trios: 3, teams: 4 };
const P = { data: null, judge: null, shown: false, editing: { event: null, block: null, finals: null }, teams: [], lang: null, reset: new Set() };

// A field's value as the form is drawn again: what was typed, unless the
// form starts afresh (saved, opened to edit, or cancelled).
function val(id, part, fallback) {
  const el = $(id);
  return !P.reset.has(part) && el ? el.value : fallback;
}

function start(part, editing) {
  P.editing[part] = editing;
  P.reset.add(part);
  render();
}

function post(part, body) {
  return api('/api/programme/' + part, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
}

function say(lines, good) {
  const box = $('prog-problems');
  box.className = good ? 'pill good' : 'alarm';
  box.replaceChildren(...lines.map((l) => h('li', { text: l })));
}

// The problems of a refused change, each by its field.
function problems(r) {
  const list = (r.body && r.body.problems) || [];
  if (!list.length) return [(r.body && r.body.error) || String(r.status)];
  return list.map((p) => (p.field ? p.field + ': ' : '') + p.message);
}

async function send(part, body) {
  const r = await post(part, body);
  if (r.status === 200) {
    P.data = r.body;
    P.editing[part] = null;
    P.reset.add(part);
    if (part === 'event') P.teams = [];
    say([t('saved')], true);
    render();
    return true;
  }
  say(problems(r), false);
  return false;
}

function field(id, label, control) {
  // Named by its label's text alone, not the options inside the label.
  control.setAttribute('aria-labelledby', id + '-label');
  return h('label', {}, h('span', { id: id + '-label', text: label }), ' ', control);
}

function select(id, options, value) {
  const s = h('select', { id }, ...options.map(([v, text]) => h('option', { value: v, text })));
  if (value !== undefined && value !== null) s.value = value;
  return s;
}

function actions(part, id, name, onEdit) {
  if (!P.judge) return h('td', {});
  return h('td', {},
    h('button', { type: 'button', text: t('edit'), 'aria-label': t('edit') + ': ' + name, onclick: onEdit }),
    h('button', { type: 'button', text: t('delete'), 'aria-label': t('delete') + ': ' + name, onclick: () => {
      if (window.confirm(t('progDeleteAsk', name))) send(part, { op: 'delete', [part === 'finals' ? 'category' : 'id']: id });
    } }));
}

function table(caption, head, rows) {
  return h('table', {}, h('caption', { text: caption }),
    h('thead', {}, h('tr', {}, ...head.map((x) => h('th', { scope: 'col', text: x })), h('th', { scope: 'col', text: t('actions') }))),
    h('tbody', {}, rows));
}

const entryNames = () => ((P.data && P.data.entries) || []).map((e) => e.name);

// A team of the event form: its name and one choice of entry per member.
function teamRow(team, i, kind) {
  const names = entryNames();
  const n = SIZE[kind] || 0;
  const members = [];
  for (let k = 0; k < n; k++) {
    members.push(field('prog-team-' + i + '-m' + k, t('progMember', k + 1),
      select('prog-team-' + i + '-m' + k, [['', '—'], ...names.map((x) => [x, x])], team.members[k] || '')));
  }
  return h('fieldset', { class: 'prog-team' }, h('legend', { text: t('progTeamN', i + 1) }),
    field('prog-team-' + i + '-name', t('progTeamName'), h('input', { id: 'prog-team-' + i + '-name', maxlength: '64', autocomplete: 'off', value: team.name || '' })),
    ...members,
    h('button', { type: 'button', text: t('progRemoveTeam', i + 1), onclick: () => { readTeams(); P.teams.splice(i, 1); render(); } }));
}

// The teams as the form shows them now.
function readTeams() {
  const kind = $('prog-event-kind') ? $('prog-event-kind').value : 'singles';
  P.teams = P.teams.map((team, i) => ({
    name: ($('prog-team-' + i + '-name') || { value: team.name }).value.trim(),
    members: Array.from({ length: SIZE[kind] || 0 }, (_, k) => ($('prog-team-' + i + '-m' + k) || { value: team.members[k] || '' }).value),
  }));
}

function eventForm() {
  const ed = P.editing.event;
  const kind = val('prog-event-kind', 'event', ed ? ed.kind : 'singles');
  const kindSel = select('prog-event-kind', KINDS.map((k) => [k, t('kind_' + k)]), kind);
  kindSel.addEventListener('change', () => { readTeams(); render(); });
  const id = h('input', { id: 'prog-event-id', maxlength: '64', autocomplete: 'off', required: true, value: val('prog-event-id', 'event', ed ? ed.id : '') });
  if (ed) id.setAttribute('readonly', '');
  const form = h('form', { id: 'prog-event-form', class: 'entry-form' },
    h('h3', { text: ed ? t('progEditWhat', ed.id) : t('progAddEvent') }),
    field('prog-event-id', t('progId'), id), field('prog-event-kind', t('progKind'), kindSel),
    ...(kind === 'singles' ? [] : [...P.teams.map((tm, i) => teamRow(tm, i, kind)),
      h('button', { type: 'button', id: 'prog-add-team', text: t('progAddTeam'), onclick: () => { readTeams(); P.teams.push({ name: '', members: [] }); render(); } })]),
    h('button', { type: 'submit', class: 'primary', id: 'prog-event-save', text: ed ? t('progSave', ed.id) : t('progAddEvent') }),
    ed ? h('button', { type: 'button', text: t('cancel'), onclick: () => { P.teams = []; start('event', null); } }) : null);
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    readTeams();
    const k = $('prog-event-kind').value;
    const body = { op: ed ? 'edit' : 'add', id: $('prog-event-id').value.trim(), kind: k };
    if (k !== 'singles') body.teams = Object.fromEntries(P.teams.map((tm) => [tm.name, tm.members.filter((m) => m)]));
    send('event', body);
  });
  return form;
}

function blockForm() {
  const ed = P.editing.block;
  const events = (P.data.events || []).map((e) => [e.id, e.id]);
  const id = h('input', { id: 'prog-block-id', maxlength: '64', autocomplete: 'off', required: true, value: val('prog-block-id', 'block', ed ? ed.id : '') });
  if (ed) id.setAttribute('readonly', '');
  const form = h('form', { id: 'prog-block-form', class: 'entry-form' },
    h('h3', { text: ed ? t('progEditWhat', ed.id) : t('progAddBlock') }),
    field('prog-block-id', t('progId'), id),
    field('prog-block-event', t('progEvent'), select('prog-block-event', events, val('prog-block-event', 'block', ed ? ed.event : null))),
    field('prog-block-games', t('progGames'), h('input', { id: 'prog-block-games', type: 'number', step: '1', required: true, value: val('prog-block-games', 'block', ed ? String(ed.games) : '3') })),
    field('prog-block-day', t('progDay'), h('input', { id: 'prog-block-day', type: 'number', step: '1', required: true, value: val('prog-block-day', 'block', ed ? String(ed.day) : '1') })),
    ed && ed.locked ? h('p', { class: 'warn', text: t('progLocked', ed.locked) }) : null,
    h('button', { type: 'submit', class: 'primary', id: 'prog-block-save', text: ed ? t('progSave', ed.id) : t('progAddBlock') }),
    ed ? h('button', { type: 'button', text: t('cancel'), onclick: () => start('block', null) }) : null);
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    send('block', { op: ed ? 'edit' : 'add', id: $('prog-block-id').value.trim(), event: $('prog-block-event').value,
      games: Number($('prog-block-games').value), day: Number($('prog-block-day').value) });
  });
  return form;
}

function finalsForm() {
  const ed = P.editing.finals;
  const blocks = [['', '—'], ...(P.data.blocks || []).map((b) => [b.id, b.id])];
  // The categories the entries make first, then every other: finals of a
  // category with no bowler yet wait for it (docs/programme.md).
  const every = ['B1', 'B2', 'B3'].flatMap((c) => [c, c + '-M', c + '-F']);
  const cats = [...new Set([...(P.data.categories || []), ...(ed ? [ed.category] : []), ...every])].map((c) => [c, c]);
  const cat = select('prog-finals-category', cats, val('prog-finals-category', 'finals', ed ? ed.category : null));
  if (ed) cat.setAttribute('disabled', '');
  const form = h('form', { id: 'prog-finals-form', class: 'entry-form' },
    h('h3', { text: ed ? t('progEditWhat', ed.category) : t('progAddFinals') }),
    field('prog-finals-category', t('progCategory'), cat),
    field('prog-finals-size', t('progSize'), h('input', { id: 'prog-finals-size', type: 'number', min: 3, max: 8,
      value: val('prog-finals-size', 'finals', ed ? ed.size : 8) })),
    field('prog-finals-rr', t('progRoundRobin'), select('prog-finals-rr', blocks, val('prog-finals-rr', 'finals', ed ? ed.round_robin : ''))),
    field('prog-finals-sl1', t('progStepLadder', 1), select('prog-finals-sl1', blocks, val('prog-finals-sl1', 'finals', ed ? ed.step_ladder[0] : ''))),
    field('prog-finals-sl2', t('progStepLadder', 2), select('prog-finals-sl2', blocks, val('prog-finals-sl2', 'finals', ed ? ed.step_ladder[1] : ''))),
    h('button', { type: 'submit', class: 'primary', id: 'prog-finals-save', text: ed ? t('progSave', ed.category) : t('progAddFinals') }),
    ed ? h('button', { type: 'button', text: t('cancel'), onclick: () => start('finals', null) }) : null);
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    send('finals', { op: ed ? 'edit' : 'add', category: $('prog-finals-category').value, size: Number($('prog-finals-size').value),
      round_robin: $('prog-finals-rr').value,
      step_ladder: [$('prog-finals-sl1').value, $('prog-finals-sl2').value] });
  });
  return form;
}

function teamsText(e) {
  return (e.teams || []).map((tm) => tm.name + ': ' + tm.members.join(', ')).join('; ');
}

function changeText(c) {
  const what = c.id || c.category || '';
  return clock(c.at) + ' · ' + c.by + ' · ' + t('progOp_' + c.op) + ' · ' + t('progPart_' + c.change) + ' ' + what;
}

function render() {
  const box = $('programme');
  if (!box || !P.shown) return;
  if (!P.data) { box.replaceChildren(h('p', { text: t('noProgramme') })); return; }
  const d = P.data;
  const events = table(t('progEvents'), [t('progId'), t('progKind'), t('progTeams')], (d.events || []).map((e) =>
    h('tr', { 'data-testid': 'prog-event-' + e.id }, h('td', { text: e.id }), h('td', { text: t('kind_' + e.kind) }), h('td', { text: teamsText(e) }),
      actions('event', e.id, e.id, () => { P.teams = (e.teams || []).map((tm) => ({ name: tm.name, members: [...tm.members] })); start('event', { id: e.id, kind: e.kind }); }))));
  const blocks = table(t('progBlocks'), [t('progId'), t('progEvent'), t('progGames'), t('progDay'), t('progState')], (d.blocks || []).map((b) =>
    h('tr', { 'data-testid': 'prog-block-' + b.id }, h('td', { text: b.id }), h('td', { text: b.event }), h('td', { text: String(b.games) }),
      h('td', { text: String(b.day) }), h('td', { text: b.locked || '' }),
      actions('block', b.id, b.id, () => start('block', b)))));
  const finals = table(t('progFinals'), [t('progCategory'), t('progRoundRobin'), t('progStepLadder', 1), t('progStepLadder', 2)], (d.finals || []).map((f) =>
    h('tr', { 'data-testid': 'prog-finals-' + f.category }, h('td', { text: f.category }), h('td', { text: f.round_robin }),
      h('td', { text: f.step_ladder[0] }), h('td', { text: f.step_ladder[1] }),
      actions('finals', f.category, f.category, () => start('finals', f)))));
  const forms = P.judge ? [eventForm(), blockForm(), finalsForm()] : [h('p', { id: 'prog-login', text: t('progLoginFirst') })];
  P.reset.clear();
  box.replaceChildren(
    h('p', { text: d.own ? t('progOwn') : t('progFromFile') }),
    events, blocks, finals, ...forms,
    h('h2', { text: t('changes') }),
    h('ul', { class: 'changes', id: 'prog-changes' }, ...(d.changes || []).slice(0, 20).map((c) => h('li', { text: changeText(c) }))));
}

async function refresh() {
  const [r, s] = await Promise.all([api('/api/programme/edit'), api('/api/session')]);
  P.data = r.status === 200 ? r.body : null;
  P.judge = s.status === 200 && s.body ? s.body.judge || null : null;
  render();
}

function show(on) {
  P.shown = on;
  const tab = $('tab-programme');
  $('view-programme').hidden = !on;
  if (on) tab.setAttribute('aria-current', 'page'); else tab.removeAttribute('aria-current');
  // The other views: the page's own tabs show them again when pressed.
  if (on) for (const s of document.querySelectorAll('main > section')) if (s.id !== 'view-programme') s.hidden = true;
}

function labels() {
  $('tab-programme').textContent = t('tabProgramme');
  if (P.lang !== getLang()) { P.lang = getLang(); render(); }
}

document.addEventListener('DOMContentLoaded', () => {
  labels();
  for (const b of document.querySelectorAll('nav [data-view]')) {
    if (b.id === 'tab-programme') continue;
    b.addEventListener('click', () => show(false));
  }
  $('tab-programme').addEventListener('click', async () => { show(true); $('login').hidden = true; await refresh(); });
  $('lang').addEventListener('click', labels);
});

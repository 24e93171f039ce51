// The entries on the centre's page: the list, a form to add or edit a
// bowler, withdraw, reinstate or delete one, and CSV import and export.
// An import is added to the list or replaces it; the page first shows
// what it would do (the centre's dry run) and asks before applying it,
// and the last import can be undone.
// Reading is open to all; a change needs a judge logged in (the centre
// records their name with it). The class, sex or handicap of a bowler who
// has bowled change only by the chief judge: the centre answers what the
// change moves, shown here with a button to confirm it. A name can be
// corrected at any time; the list shows the name it was.
import { t } from './i18n.js';
import { h, api, clock, sexText } from './common.js';

const $ = (id) => document.getElementById(id);
const MAX_CSV = 1 << 20;
const E = { list: null, changes: [], renamed: [], moves: false, editing: null, judge: null, undo: false, file: null, mode: 'add', onChange: () => {} };

// The problems of a refused change, each by its row and column or field.
function problems(r) {
  const list = (r.body && r.body.problems) || [];
  if (!list.length) return [(r.body && r.body.error) || String(r.status)];
  const lines = list.map((p) => {
    const at = [];
    if (p.row) at.push(t('row', p.row));
    if (p.column) at.push(t('column', p.column));
    if (p.field) at.push(t('field_' + p.field));
    return (at.length ? at.join(', ') + ': ' : '') + p.message;
  });
  // An import lists its first 100 problems and counts the rest.
  if (r.body.more_problems) lines.push(t('moreProblems', r.body.more_problems));
  return lines;
}

function say(lines, good) {
  const box = $('entries-problems');
  box.className = good ? 'pill good' : 'alarm';
  box.replaceChildren(...lines.map((l) => h('li', { text: l })));
}

async function send(path, body) {
  const r = await api(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return done(r, () => send(path, { ...body, confirm: true }));
}

// What a change would move in a bowled bowler's results, for the chief
// judge to confirm (`again` makes it) or leave.
function ask(lines, again) {
  const box = $('entries-problems');
  box.className = 'alarm';
  const yes = h('button', { type: 'button', 'data-testid': 'entries-confirm', text: t('confirmMove'),
    onclick: async () => { yes.disabled = true; if (await again()) edit(null); } });
  const no = h('button', { type: 'button', text: t('cancel'), onclick: () => box.replaceChildren() });
  box.replaceChildren(h('li', { text: t('confirmTitle') }), ...lines.map((l) => h('li', { text: l })), h('li', {}, yes, ' ', no));
}

// The lines to confirm, in Russian on the Russian page (`confirm_ru`).
const moves = (b) => (Array.isArray(b.confirm_ru) ? b.confirm_ru : b.confirm);

function take(body) {
  E.list = body.entries;
  E.changes = body.changes || [];
  E.undo = !!body.undo_import;
  E.renamed = body.renamed || [];
}

// After a change: the list the centre answered with, what the chief judge
// is asked to confirm (`again` repeats the change confirmed), or its
// problems.
function done(r, again) {
  if (r.status === 409 && r.body && Array.isArray(r.body.confirm) && again) {
    ask(moves(r.body), again);
    return false;
  }
  if (r.status === 200) {
    take(r.body);
    say([t('saved')], true);
    render();
    E.onChange();
    return true;
  }
  say(problems(r), false);
  return false;
}

function formEntry() {
  return {
    name: $('entry-name').value.trim(),
    class: $('entry-class').value,
    sex: $('entry-sex').value,
    region: $('entry-region').value.trim(),
    team: $('entry-team').value.trim(),
    handicap: $('entry-handicap').value.trim(),
  };
}

function fill(e) {
  $('entry-name').value = e ? e.name : '';
  $('entry-class').value = e ? e.class : 'B1';
  $('entry-sex').value = e ? e.sex : 'M';
  $('entry-region').value = e ? e.region : '';
  $('entry-team').value = e ? e.team || '' : '';
  $('entry-handicap').value = e ? String(e.handicap || 0) : '0';
}

function edit(e) {
  E.editing = e ? e.name : null;
  fill(e);
  labels();
  $('entry-name').focus();
}

function row(e) {
  const actions = E.judge ? [
    h('button', { type: 'button', text: t('edit'), 'aria-label': t('editWho', e.name), onclick: () => edit(e) }),
    h('button', { type: 'button', text: e.withdrawn ? t('reinstate') : t('withdraw'),
      'aria-label': (e.withdrawn ? t('reinstate') : t('withdraw')) + ': ' + e.name,
      onclick: () => send('/api/entries/withdraw', { name: e.name, withdrawn: !e.withdrawn }) }),
    h('button', { type: 'button', text: t('delete'), 'aria-label': t('delete') + ': ' + e.name,
      onclick: () => { if (window.confirm(t('deleteWho', e.name))) send('/api/entries/delete', { name: e.name }); } }),
  ] : [];
  return h('tr', { class: e.withdrawn ? 'withdrawn' : null, 'data-testid': 'entry-' + e.name },
    h('td', { text: e.name }, ...was(e.name)),
    ...[e.class, sexText(e.sex), e.region, e.team || '', String(e.handicap || 0), e.withdrawn ? t('withdrawnMark') : '']
      .map((x) => h('td', { text: x })),
    h('td', {}, ...actions));
}

// The names `name` was corrected from, as a note under it.
function was(name) {
  const old = E.renamed.filter((r) => r.to === name).map((r) => r.from);
  return old.length ? [h('br'), h('small', { class: 'muted', text: t('wasNamed', old.join(', ')) })] : [];
}

function render() {
  const box = $('entries');
  if (!box) return;
  importControls();
  $('entry-form').hidden = !E.judge;
  $('entries-import').hidden = !E.judge;
  $('entries-undo').hidden = !(E.judge && E.undo);
  if (E.list === null) { box.replaceChildren(h('p', { text: t('noProgramme') })); return; }
  const head = ['name', 'class', 'sex', 'region', 'team', 'handicap', 'status'].map((k) => h('th', { scope: 'col', text: t('field_' + k) }));
  box.replaceChildren(h('table', {},
    h('caption', { text: t('entriesCount', E.list.length) }),
    h('thead', {}, h('tr', {}, ...head, h('th', { scope: 'col', text: t('actions') }))),
    h('tbody', {}, E.list.map(row))));
  $('entries-changes').replaceChildren(...E.changes.slice(0, 20).map((c) => h('li', {
    text: clock(c.at) + ' · ' + c.by + ' · ' + t('change_' + c.change) + (c.name ? ': ' + c.name : c.entry ? ': ' + c.entry.name : c.entries !== undefined ? ': ' + c.entries : '')
      + (c.name && c.entry && c.entry.name !== c.name ? ' → ' + c.entry.name : ''),
  })));
}

export function labels() {
  importControls();
  for (const k of ['name', 'class', 'sex', 'region', 'team', 'handicap']) $('entry-' + k + '-label').textContent = t('field_' + k);
  // М/Ж on the Russian page; the value sent stays M or F.
  for (const o of $('entry-sex').options) { o.value = o.value; o.textContent = sexText(o.value); }
  $('entry-save').textContent = E.editing ? t('saveEntry', E.editing) : t('addEntry');
  $('entry-cancel').textContent = t('cancel');
  $('entry-cancel').hidden = !E.editing;
  $('entries-file-label').textContent = t('csvFile');
  $('entries-export').textContent = t('csvExport');
  $('entries-changes-title').textContent = t('changes');
  $('entries-csv-help').textContent = t('csvHelp');
  $('entries-mode-label').textContent = t('csvMode');
  $('entries-mode').replaceChildren(...['add', 'replace'].map((m) =>
    h('option', { value: m, text: t(m === 'add' ? 'csvModeAdd' : 'csvModeReplace') })));
  $('entries-mode').value = E.mode;
  $('entries-apply').textContent = t('csvApply');
  $('entries-discard').textContent = t('cancel');
  $('entries-undo').textContent = t('csvUndo');
  render();
}

// Reads the entries again (on opening the view, and as the page polls it).
export async function refresh() {
  const r = await api('/api/entries');
  if (r.status === 200) take(r.body); else E.list = null;
  render();
  return E.list;
}

export function setJudge(judge) { E.judge = judge; render(); }

export function withdrawnNames() {
  return new Set((E.list || []).filter((e) => e.withdrawn).map((e) => e.name));
}

// The import's controls, beside the file: how to import, what it would
// do with "apply" and "cancel", and "undo the last import".
function importControls() {
  const box = $('entries-import');
  if (!box || $('entries-mode')) return;
  box.prepend(h('label', {}, h('span', { id: 'entries-mode-label' }), h('select', { id: 'entries-mode' })));
  box.append(
    h('div', { id: 'entries-preview', class: 'entries-preview', role: 'status', hidden: true },
      h('ul', { id: 'entries-preview-lines' }),
      h('button', { type: 'button', id: 'entries-apply' }),
      h('button', { type: 'button', id: 'entries-discard' })),
    h('button', { type: 'button', id: 'entries-undo', hidden: true }));
  $('entries-mode').addEventListener('change', () => { E.mode = $('entries-mode').value; discard(); });
  $('entries-apply').addEventListener('click', async () => {
    if (!E.file) return;
    // The chief judge has seen what it moves in the preview.
    const file = E.file;
    const r = await importFile(file, false, E.moves);
    discard();
    done(r, async () => done(await importFile(file, false, true)));
  });
  $('entries-discard').addEventListener('click', discard);
  $('entries-undo').addEventListener('click', async () => {
    if (!window.confirm(t('csvUndoAsk'))) return;
    discard();
    const undo = (confirm) => api('/api/entries/import?undo=1' + (confirm ? '&confirm=1' : ''), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    done(await undo(false), async () => done(await undo(true)));
  });
}

function importFile(body, dryRun, confirm) {
  const mode = E.mode === 'replace' ? 'replace' : 'add';
  return api('/api/entries/import?mode=' + mode + (dryRun ? '&dry_run=1' : '') + (confirm ? '&confirm=1' : ''),
    { method: 'POST', headers: { 'Content-Type': 'text/csv' }, body });
}

function discard() {
  E.file = null;
  E.moves = false;
  $('entries-preview').hidden = true;
  $('entries-preview-lines').replaceChildren();
}

// What the import would do, by name, before it is applied.
function preview(d) {
  const lines = [];
  if (d.added.length) lines.push(t('csvAdded', d.added.length, d.added.join(', ')));
  if (d.removed.length) lines.push(t('csvRemoved', d.removed.length, d.removed.join(', ')));
  if (d.changed.length) lines.push(t('csvChanged', d.changed.length, d.changed.join(', ')));
  lines.push(t('csvUnchanged', d.unchanged));
  E.moves = Array.isArray(d.moves) && d.moves.length > 0;
  if (E.moves) lines.push(t('confirmTitle'), ...(Array.isArray(d.moves_ru) ? d.moves_ru : d.moves));
  $('entries-preview-lines').replaceChildren(h('li', { text: t('csvPreview') }), ...lines.map((l) => h('li', { text: l })));
  $('entries-preview').hidden = false;
  $('entries-problems').replaceChildren();
}

export function init(onChange) {
  E.onChange = onChange;
  importControls();
  $('entry-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const entry = formEntry();
    const ok = E.editing ? await send('/api/entries/edit', { name: E.editing, entry }) : await send('/api/entries/add', { entry });
    if (ok) edit(null);
  });
  $('entry-cancel').addEventListener('click', () => edit(null));
  $('entries-file').addEventListener('change', async () => {
    const file = $('entries-file').files[0];
    if (!file) return;
    if (file.size > MAX_CSV) { say([t('csvTooLarge', file.size)], false); return; }
    const body = await file.arrayBuffer();
    discard();
    const r = await importFile(body, true);
    $('entries-file').value = '';
    if (r.status === 200) { E.file = body; preview(r.body); return; }
    // It moves a bowled bowler's results: the chief judge confirms it.
    if (r.status === 409 && r.body && Array.isArray(r.body.confirm)) {
      ask(moves(r.body), async () => done(await importFile(body, false, true)));
      return;
    }
    say(problems(r), false);
  });
  labels();
}

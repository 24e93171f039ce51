// The lane order (the lineup editor, the block's start and end, a
// substitute) and the B1 bowlers' blindfold checks.

import { t, LANGS } from './i18n.js';
import {
  $, h, tid, replace, drawModel, act, api, showError, announce, isJudge, S,
  currentOrder, openBlock, blockInfo, blockName, latestBlock, blindfold, clockAt,
} from './core.js';

const CLASSES = ['B1', 'B2', 'B3'];
const VOICES = ['pins', 'hidden', 'short', 'off'];
// A bowler's "extras" (split, the score on request: training): '' is the
// lane's [speaker] extras, and is left out of the lineup.
const EXTRAS = ['', 'on', 'off'];

// `plan`: the centre's block the waiting lineup is for, as last drawn
// (its games fill the form once, when it comes).
const O = { draft: null, dirty: false, games: 3, saving: null, sub: null, plan: '' };

// The centre's block the waiting lineup is for (replay-output.md,
// `next_block`): its id and games, when the centre pushed it.
const planOf = (lane) => lane.next_block || null;

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

const bowlerModel = (b) => Object.fromEntries(BOWLER_FIELDS.map((f) => [f.key, f.from(b || null)]));

function bowlerJson(d) {
  const o = {};
  for (const f of BOWLER_FIELDS) f.put(o, d[f.key]);
  return o;
}

// After an ended block, start from its order so the next block is quick to set.
const draftFromLane = (lane) => (lane ? currentOrder(lane) : []).slice(0, 4).map(({ b }) => bowlerModel(b));

function bowlerFields(prefix, d, i, onchange, ro) {
  return BOWLER_FIELDS.map((f) => {
    const id = prefix + f.key + '-' + i;
    const v = f.shown ? f.shown(d[f.key]) : d[f.key];
    let control;
    if (f.kind === 'select') {
      control = h('select', { ...tid(id), disabled: ro, required: !!f.blank, onchange: (e) => onchange(f.key, e.target.value) },
        f.blank ? h('option', { value: '', selected: v === '', text: t(f.blank) }) : null,
        f.options().map((o) => h('option', { value: o, selected: v === o, text: f.text(o) })));
    } else {
      control = h('input', { ...tid(id), type: f.kind, ...f.attrs, value: v, readonly: ro, oninput: (e) => onchange(f.key, e.target.value) });
    }
    return h('p', { class: 'field' }, h('label', { for: id, text: t(f.label) }), control);
  });
}

// The first bowler of a model without a name or a class, shown as refused.
function refuseMissing(rows, prefix, who) {
  const names = rows.map((d) => d.name.trim());
  let miss = null;
  for (let i = 0; i < rows.length && !miss; i++) {
    if (!names[i]) miss = [prefix + 'name-' + i, 'nameNeeded'];
    else if (!rows[i].class) { const n = i; miss = [prefix + 'class-' + i, () => t('classNeeded', who(n))]; }
  }
  if (!miss && new Set(names).size !== names.length) miss = [prefix + 'name-0', 'nameNeeded'];
  if (!miss) return false;
  showError(...miss.slice(1));
  const el = $(miss[0]);
  if (el) el.focus();
  return true;
}

function blockEndedLatest(lane) {
  const info = blockInfo(lane, latestBlock(lane));
  return !!(info && info.ended);
}

export function renderLineup() {
  const el = $('panel-order');
  const lane = S.lane;
  if (!lane) { replace(el, h('p', { text: t('loading') })); return; }
  const open = openBlock(lane);
  if (open) { drawModel(el, lockedLineup(lane, open)); return; }
  if (!O.draft || !O.dirty) O.draft = draftFromLane(lane);
  const ro = !isJudge();
  const d = O.draft;
  const edit = (i) => (key, v) => { d[i][key] = v; O.dirty = true; $('lineup-state').textContent = t('unsaved'); };
  const redo = (focus) => { O.dirty = true; renderLineup(); const b = $(focus[0]); (b && !b.disabled ? b : $(focus[1])).focus(); };
  const move = (i, j) => { const x = d[i]; d[i] = d[j]; d[j] = x; redo([(j < i ? 'lineup-up-' : 'lineup-down-') + j, 'lineup-name-' + j]); };
  const rows = d.map((row, i) => h('fieldset', { class: 'lrow', ...tid('lineup-row-' + i) },
    h('legend', { text: t('bowlerN', i + 1) }),
    h('div', { class: 'fields' }, bowlerFields('lineup-', row, i, edit(i), ro)),
    ro ? null : h('div', { class: 'row' },
      h('button', { type: 'button', ...tid('lineup-up-' + i), disabled: i === 0, 'aria-label': t('moveUp', i + 1), text: '↑', onclick: () => move(i, i - 1) }),
      h('button', { type: 'button', ...tid('lineup-down-' + i), disabled: i === d.length - 1, 'aria-label': t('moveDown', i + 1), text: '↓', onclick: () => move(i, i + 1) }),
      h('button', { type: 'button', ...tid('lineup-remove-' + i), 'aria-label': t('remove', i + 1), text: '✕', onclick: () => { d.splice(i, 1); redo(['lineup-add', 'lineup-add']); } }))));
  const onServer = currentOrder(lane).length > 0 && !blockEndedLatest(lane);
  const plan = planOf(lane);
  const planKey = plan ? JSON.stringify(plan) : '';
  if (planKey !== O.plan) {
    O.plan = planKey;
    if (plan && plan.games) O.games = plan.games;
  }
  // Other games than the centre's programme gives: the lane refuses them
  // (but to the chief judge), said before the judge starts.
  const offPlan = () => !!(plan && plan.games && Math.round(Number(O.games)) !== plan.games);
  const warn = () => { const w = $('start-games-warn'); if (w) w.hidden = !offPlan(); };
  drawModel(el,
    h('h2', { id: 'h-order', text: t('lineup') }),
    rows.length ? rows : h('p', { text: t('noBowlers') }),
    h('p', { id: 'lineup-state', class: 'note', role: 'status', text: O.dirty ? t('unsaved') : onServer ? t('saved') : '' }),
    ro ? h('p', { class: 'note', text: t('readOnly') }) : [
      h('div', { class: 'row' },
        h('button', { type: 'button', ...tid('lineup-add'), disabled: d.length >= 4, text: t('add'), onclick: () => { d.push(bowlerModel(null)); redo(['lineup-name-' + (d.length - 1), 'lineup-add']); } }),
        h('button', { type: 'button', class: 'primary', ...tid('lineup-save'), disabled: !d.length, text: t('save'), onclick: saveLineup })),
      plan ? h('p', { class: 'note', ...tid('start-plan'), text: t('planned', blockName(lane, plan.block), plan.games || O.games) }) : null,
      h('div', { class: 'row start' },
        h('p', { class: 'field' }, h('label', { for: 'start-games', text: t('games') }),
          h('input', { ...tid('start-games'), type: 'number', inputmode: 'numeric', min: '1', max: '12', value: O.games, 'aria-describedby': 'start-games-warn', oninput: (e) => { O.games = e.target.value; warn(); } })),
        h('button', { type: 'button', class: 'primary', ...tid('start-block'), text: t('startBlock'), onclick: startBlock })),
      h('p', { class: 'alarm', role: 'status', ...tid('start-games-warn'), hidden: !offPlan(), text: plan && plan.games ? t('gamesNotPlanned', plan.games) : '' })]);
}

function saveLineup() {
  if (refuseMissing(O.draft, 'lineup-', (i) => t('bowlerN', i + 1))) return Promise.resolve(false);
  const sent = JSON.stringify(O.draft);
  // A lineup the centre pushed for one of its blocks stays that block's
  // when a judge edits it here.
  const lineup = { ev: 'lineup', bowlers: O.draft.map(bowlerJson) };
  const plan = S.lane && planOf(S.lane);
  if (plan && plan.name) lineup.block = plan.name;
  if (plan && plan.games) lineup.games = plan.games;
  O.saving = act(lineup, () => t('saved')).then(async (ok) => {
    // The lane as it is now, so the form is drawn again from what was saved.
    if (ok) {
      const r = await api('GET', '/api/lane');
      if (r.status === 200 && r.data) S.hooks.setLane(r.data);
    }
    O.saving = null;
    if (ok && JSON.stringify(O.draft) === sent) { O.dirty = false; renderLineup(); }
    return ok;
  });
  return O.saving;
}

async function startBlock() {
  const games = Math.round(Number(O.games));
  if (!(games >= 1 && games <= 12)) { showError('games'); $('start-games').focus(); return; }
  if (O.saving && !(await O.saving)) return;
  if (O.dirty || !currentOrder(S.lane).length || blockEndedLatest(S.lane)) {
    if (!(await saveLineup())) return;
  }
  const plan = planOf(S.lane);
  const name = plan && plan.name;
  await act({ ev: 'start_block', games }, () => t('startDone', games, name));
}

function lockedLineup(lane, open) {
  const order = currentOrder(lane);
  const sub = O.sub || (O.sub = bowlerModel(null));
  if (!order.some(({ b }) => b.name === sub.out)) sub.out = order.length ? order[0].b.name : '';
  const judge = isJudge();
  return [
    h('h2', { id: 'h-order', text: t('lineup') + ' · ' + t('blockN', blockName(lane, open.block)) }),
    // Every game of the centre's block bowled: the lane counts no further
    // ball, and the judge ends the block.
    open.complete ? h('p', { class: 'alarm', role: 'status', ...tid('block-complete'), text: t('blockComplete', blockName(lane, open.block)) }) : null,
    h('p', { class: 'note', text: t('lineupLocked') }),
    h('div', { class: 'wrap', tabindex: '0', role: 'region', 'aria-labelledby': 'h-order' }, h('table', { class: 'list', 'data-testid': 'lineup-locked' },
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
        const out = sub.out;
        if (await act({ ev: 'substitute', out, in: incoming }, () => t('subDone', incoming.name, out))) {
          if (O.sub === sub) O.sub = null;
          renderLineup();
          // A B1 bowler bowls only after a judge checks the blindfold.
          if (incoming.class === 'B1') announce(t('bfNeeded', incoming.name));
        }
      } })) : null,
    judge ? h('div', { class: 'row' }, h('button', { type: 'button', class: 'danger', ...tid('end-block'), text: t('endBlock'), onclick: () => {
      if (window.confirm(t('endBlockAsk'))) act({ ev: 'end_block' }, () => t('endDone', blockName(lane, open.block)));
    } })) : null,
  ];
}

// ----- blindfolds ----------------------------------------------------------------

export function renderBlindfolds() {
  const el = $('panel-blindfolds');
  const lane = S.lane;
  if (!lane) { replace(el, h('p', { text: t('loading') })); return; }
  const b1 = currentOrder(lane).map((x, i) => ({ ...x, li: i })).filter((x) => x.b.class === 'B1');
  const onLane = new Set(currentOrder(lane).map((x) => x.b.name));
  // The day's checks of bowlers not on the lane now (between blocks, the
  // next block's bowlers before its lineup): a judge may still check them
  // again, fail or call a check into question (rules.md, "Checks between
  // blocks").
  const day = (lane.blindfolds || []).filter((x) => !onLane.has(x.bowler));
  replace(el,
    h('h2', { id: 'h-blindfolds', text: t('blindfolds') }),
    isJudge() ? null : h('p', { class: 'note', text: t('readOnly') }),
    b1.length ? h('ul', { class: 'cards' }, b1.map(({ b, li }) => blindfoldCard(lane, b.name, 'blindfold-', li, true))) : h('p', { text: t('noB1') }),
    day.length ? h('section', { 'aria-labelledby': 'h-blindfolds-day', ...tid('blindfolds-day') },
      h('h3', { id: 'h-blindfolds-day', text: t('bfDay') }),
      h('ul', { class: 'cards' }, day.map((x, k) => blindfoldCard(lane, x.bowler, 'blindfold-day-', k, false)))) : null);
}

// A B1 bowler's blindfold card: the last check, what the lane waits for,
// and a judge's buttons (`adjust`: the bowler is on the lane and may ask
// to adjust it).
function blindfoldCard(lane, name, idp, k, adjust) {
  const rec = (lane.blindfolds || []).find((x) => x.bowler === name);
  const checked = rec && rec.checked_at !== null && rec.checked_at !== undefined;
  // A passing check a judge may call into question: it stops counting
  // until a new check.
  const passing = checked && rec.ok && !rec.recheck && !rec.adjusting;
  const btn = (cls, id, label, onclick) => h('button', { type: 'button', class: cls, ...tid(idp + id + '-' + k), text: label, 'aria-label': label + ' — ' + name, onclick });
  return h('li', { class: 'box bf' + (rec && (rec.adjusting || rec.recheck) ? ' held' : '') + (checked && !rec.ok ? ' failed' : ''), ...tid(idp + 'row-' + k) },
    h('h3', { text: name }),
    h('p', {}, t('lastCheck') + ': ', h('strong', { text: checked ? t('checkedAt', clockAt(lane, rec.checked_at), rec.by, rec.ok) : t('never') })),
    rec && rec.adjusting ? h('p', { class: 'alarm', ...tid(idp + 'adjusting-' + k), text: t('heldFor', name) }) : null,
    rec && rec.recheck ? h('p', { class: 'alarm', ...tid(idp + 'recheck-awaited-' + k), text: t('bfRecheckAwaited', name) }) : null,
    !(checked && rec.ok) ? h('p', { class: 'alarm', ...tid(idp + 'needed-' + k), text: t('bfNeeded', name) }) : null,
    isJudge() ? h('div', { class: 'row' },
      btn('good', 'ok', t('bfOk'), () => blindfold('blindfold_check', name, true)),
      btn('danger', 'fail', t('bfFail'), () => blindfold('blindfold_check', name, false)),
      adjust ? btn('', 'adjust', t('bfAdjust'), () => blindfold('blindfold_adjust', name)) : null,
      passing ? btn('', 'recheck', t('bfRecheck'), () => {
        if (window.confirm(t('bfRecheckAsk', name))) blindfold('blindfold_recheck', name);
      }) : null) : null);
}


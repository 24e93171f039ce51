// The blocks on the centre's page: each block's lanes and bowlers, set by
// form (a select per lane and per place on it, withdrawn entries not
// offered, at most 4 a lane), pushed in one press; each lane's life of the
// block (not started, bowling, done, an alarm past its end); a block a
// lane has begun pushed again only with a reason asked; and the finals'
// lanes proposed from the standings, confirmed in one press (before the
// preliminaries end, only with the chief judge's reason)
// (docs/programme.md, "Lanes set on the centre's page"; docs/centre.md).
import { t } from './i18n.js';
import { h, api } from './common.js';

const $ = (id) => document.getElementById(id);
const SLOTS = 4;
// programme: /api/programme; names: entries not withdrawn; lanes: the
// lanes a block may be given; finals: /api/finals; edit: the block whose
// form is open, with its rows ({lane, names}).
const B = { programme: null, names: [], people: [], lanes: [], finals: [], judge: null, edit: null, key: '', hooks: {} };

function say(text, good) {
  const box = $('push-error');
  box.className = good ? 'pill good' : 'alarm';
  box.textContent = text;
}

const post = (path, body) => api(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

// What lane `st` (a block's `status` for one lane) has done of the block.
function lifeText(st) {
  if (st.state === 'done') return t('lifeDone', st.games_bowled, st.games);
  if (st.state === 'bowling') return t('lifeBowling', Math.max(st.games_bowled, 1), st.games);
  return t('lifeNotStarted');
}

function laneList(lanes, mark, status, block) {
  const list = Object.entries(lanes || {});
  if (!list.length) return h('p', { class: 'note', text: t('noLanesYet') });
  return h('ul', { class: 'lanes' }, list.map(([lane, names]) => {
    const st = status && status[lane];
    return h('li', { 'data-testid': 'life-' + lane },
      h('span', { text: t('lane', lane) + ': ' + names.map(mark).join(', ') }),
      st ? h('span', { class: 'pill ' + (st.state === 'done' ? 'good' : st.state === 'bowling' ? 'warn' : ''), 'data-testid': 'life-state-' + lane, text: lifeText(st) }) : null,
      st && B.judge && st.journal && st.games_bowled > 0 ? h('button', { type: 'button', 'data-testid': 'void-' + lane,
        text: t('voidGame', lane), onclick: () => voidGame(block, Number(lane), names) }) : null,
      st && st.past ? h('p', { class: 'alarm', 'data-testid': 'life-alarm-' + lane, text: t('lifePast_' + st.past, lane, st.games_bowled, st.games) }) : null);
  }));
}

// Voids a game of `block` on `lane` (the chief judge): which bowler and
// game, and why, asked in a dialog.
async function voidGame(block, lane, names) {
  const st = B.programme.blocks.find((b) => b.id === block).status[lane];
  const who = h('select', { id: 'void-name' }, names.map((n) => h('option', { value: n, text: n })));
  const game = h('select', { id: 'void-game' }, Array.from({ length: st.games_bowled }, (_, i) => h('option', { value: String(i + 1), text: String(i + 1) })));
  const fields = h('div', { class: 'fields' },
    h('label', { for: 'void-name', text: t('voidWho') }), who,
    h('label', { for: 'void-game', text: t('voidWhich') }), game);
  const reason = await askReason(t('voidTitle', block, lane), t('voidText'), t('voidReason'), t('voidOk'), fields);
  if (reason === null) return;
  const r = await post('/api/games/void', { block, lane, name: who.value, game: Number(game.value), reason });
  if (r.status !== 200) { say((r.body && r.body.error) || String(r.status), false); return; }
  say(t('voided', who.value, game.value), true);
  B.hooks.changed();
}

// Asks in a dialog for a reason: resolves to it, or to null when the
// judge goes back. `text` says why the question is asked.
function askReason(title, text, label, ok, fields) {
  return new Promise((done) => {
    const input = h('textarea', { id: 'ask-reason', maxlength: '200', rows: '2' });
    const err = h('p', { class: 'alarm', role: 'alert' });
    const d = h('dialog', { class: 'ask', 'aria-labelledby': 'ask-title', 'data-testid': 'ask' });
    const close = (v) => { d.close(); d.remove(); done(v); };
    d.append(h('form', { method: 'dialog', onsubmit: (e) => {
      e.preventDefault();
      const reason = input.value.trim();
      if (!reason) { err.textContent = t('reasonNeeded'); input.focus(); return; }
      close(reason);
    } },
    h('h3', { id: 'ask-title', text: title }),
    h('p', { text }),
    fields || null,
    h('label', { for: 'ask-reason', text: label }), input, err,
    h('div', { class: 'actions' },
      h('button', { type: 'submit', class: 'primary', text: ok }),
      h('button', { type: 'button', text: t('cancel'), onclick: () => close(null) }))));
    d.addEventListener('cancel', () => { d.remove(); done(null); });
    document.body.append(d);
    d.showModal();
    input.focus();
  });
}

async function saveLanes(block, lanes, seed) {
  const body = { block, lanes };
  if (seed !== undefined) body.draw = { seed };
  let r = await post('/api/blocks/lanes', body);
  if (r.status === 409 && isFinals(block)) {
    // The preliminaries are not complete: the chief judge may go on.
    const reason = await askReason(t('earlyTitle', block), r.body.error, t('earlyReason'), t('earlyOk', block));
    if (reason === null) { say(r.body.error, false); return false; }
    r = await post('/api/blocks/lanes', { ...body, early: true, reason });
  }
  if (r.status !== 200) { say((r.body && r.body.error) || String(r.status), false); return false; }
  B.programme = r.body;
  say(t('lanesSaved', block), true);
  B.hooks.changed();
  return true;
}

// The form's lanes, or why not: each lane once, each bowler once.
function formLanes(rows) {
  const out = {};
  const seen = new Set();
  for (const r of rows) {
    const names = r.names.filter(Boolean);
    if (!names.length) continue;
    if (names.length > SLOTS) return [null, t('tooMany', r.lane)];
    if (out[r.lane]) return [null, t('laneTwice', r.lane)];
    for (const n of names) {
      if (seen.has(n)) return [null, t('twice', n)];
      seen.add(n);
    }
    out[r.lane] = names;
  }
  if (!Object.keys(out).length) return [null, t('emptyBlock')];
  return [out, null];
}

// A select with its visible label above it (`hint`: the full name for a
// screen reader, when the visible one is short).
function select(label, testid, value, options, onchange, hint) {
  return h('label', { class: 'field' }, h('span', { text: label }),
    h('select', { 'aria-label': hint || null, 'data-testid': testid, onchange: (e) => onchange(e.target.value) },
      options.map(([v, text]) => h('option', { value: v, text, selected: v === value ? 'selected' : null }))));
}

// The entries offered, in the order chosen: as entered, or by name,
// class or region (then name).
function sorted(people, by) {
  const list = [...people];
  const cmp = (a, b) => a.localeCompare(b, 'ru');
  if (by === 'name') list.sort((a, b) => cmp(a.name, b.name));
  if (by === 'class') list.sort((a, b) => cmp(a.class, b.class) || cmp(a.name, b.name));
  if (by === 'region') list.sort((a, b) => cmp(a.region || '', b.region || '') || cmp(a.name, b.name));
  return list;
}

// A random number generator from a seed (mulberry32): the same seed
// draws the same lanes.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

// The lane draw (docs/centre.md, "The lane draw"): the bowlers in the form
// (none: every entry offered), by name, shuffled from `seed`
// (Fisher-Yates), dealt in turn to the form's lanes (one lane only: as
// many of the centre's lanes as 4 a lane needs), in lane order.
export function draw(names, formLanes, allLanes, seed) {
  const people = [...names].sort((a, b) => a.localeCompare(b, 'ru'));
  const next = rng(seed);
  for (let i = people.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [people[i], people[j]] = [people[j], people[i]];
  }
  let lanes = [...new Set(formLanes)].sort((x, y) => x - y);
  const need = Math.ceil(people.length / SLOTS);
  if (lanes.length < need) lanes = [...new Set([...lanes, ...allLanes])].sort((x, y) => x - y).slice(0, Math.max(need, lanes.length));
  if (!lanes.length || lanes.length * SLOTS < people.length) return null;
  const rows = lanes.map((lane) => ({ lane, names: [] }));
  people.forEach((n, i) => rows[i % rows.length].names.push(n));
  return rows.filter((r) => r.names.length);
}

function editForm(b) {
  const e = B.edit;
  const shown = (p) => p.name + ' · ' + p.class + (p.region ? ' · ' + p.region : '');
  const people = [['', t('nobody')], ...sorted(B.people, e.sort).map((p) => [p.name, shown(p)])];
  const rows = e.rows.map((r, i) => {
    const lanes = [...new Set([...B.lanes, Number(r.lane)])].filter(Boolean).sort((x, y) => x - y);
    return h('fieldset', { class: 'lane-row' },
      h('legend', { class: 'vh', text: t('lane', r.lane) }),
      select(t('laneLabel'), 'lane-' + i, String(r.lane), lanes.map((n) => [String(n), t('lane', n)]), (v) => { r.lane = Number(v); e.drawn = undefined; redraw(); }, t('laneSelect', i + 1)),
      Array.from({ length: SLOTS }, (_, k) => select(t('slotLabel', k + 1), 'slot-' + i + '-' + k, r.names[k] || '',
        people, (v) => { r.names[k] = v; e.drawn = undefined; }, t('slot', r.lane, k + 1))),
      h('button', { type: 'button', text: '×', 'aria-label': t('blockRemoveLane', r.lane), onclick: () => { e.rows.splice(i, 1); e.drawn = undefined; redraw(); } }));
  });
  const seed = h('input', { id: 'draw-seed-' + b.id, type: 'number', min: '0', max: '4294967295', value: String(e.seed), 'data-testid': 'draw-seed',
    onchange: (ev) => { e.seed = Number(ev.target.value) >>> 0; } });
  const tools = h('div', { class: 'form-tools' },
    select(t('sortBy'), 'sort', e.sort, [['entered', t('sort_entered')], ['name', t('sort_name')], ['class', t('sort_class')], ['region', t('sort_region')]],
      (v) => { e.sort = v; redraw(); }),
    h('label', { class: 'field', for: 'draw-seed-' + b.id }, h('span', { text: t('drawSeed') }), seed),
    h('button', { type: 'button', text: t('drawLanes'), onclick: () => {
      const chosen = e.rows.flatMap((r) => r.names.filter(Boolean));
      const names = chosen.length ? chosen : B.people.map((p) => p.name);
      const drawn = draw(names, e.rows.map((r) => Number(r.lane)), B.lanes, e.seed);
      if (!drawn) { say(t('drawNoLanes', names.length), false); return; }
      e.rows = drawn;
      e.drawn = e.seed;
      say(t('drawn', e.seed), true);
      redraw();
    } }));
  return h('form', { class: 'lanes-form', 'data-testid': 'lanes-form-' + b.id, onsubmit: async (ev) => {
    ev.preventDefault();
    const [lanes, why] = formLanes(e.rows);
    if (!lanes) { say(why, false); return; }
    if (await saveLanes(b.id, lanes, e.drawn)) { B.edit = null; redraw(); focusIn('[data-testid="block-' + b.id + '"] button'); }
  } },
  tools,
  e.drawn !== undefined ? h('p', { class: 'note', 'data-testid': 'drawn', text: t('drawn', e.drawn) }) : null,
  rows,
  h('div', { class: 'actions' },
    h('button', { type: 'button', text: t('blockAddLane'), onclick: () => {
      const used = new Set(e.rows.map((r) => r.lane));
      e.rows.push({ lane: B.lanes.find((n) => !used.has(n)) || B.lanes[0] || 1, names: [] });
      redraw();
    } }),
    h('button', { type: 'submit', class: 'primary', text: t('saveLanes', b.id) }),
    h('button', { type: 'button', text: t('cancel'), onclick: () => { B.edit = null; redraw(); focusIn('[data-testid="block-' + b.id + '"] button'); } })));
}

const isFinals = (id) => ((B.programme && B.programme.finals) || []).some((f) => f.round_robin === id || (f.step_ladder || []).includes(id));

function blockCard(b, mark) {
  const finals = isFinals(b.id);
  const editing = B.edit && B.edit.block === b.id;
  const has = Object.keys(b.lanes || {}).length > 0;
  return h('section', { class: 'block panel', 'data-testid': 'block-' + b.id },
    h('h3', { text: t('blockHead', b.id, b.event, t('nGames', b.games), b.day) + (finals ? ' · ' + t('finalsBlock') : '') }),
    editing ? editForm(b) : laneList(b.lanes, mark, b.status, b.id),
    B.judge && !editing ? h('div', { class: 'actions' },
      h('button', { type: 'button', text: t('editLanes', b.id), onclick: () => {
        const rows = Object.entries(b.lanes || {}).map(([lane, names]) => ({ lane: Number(lane), names: names.filter((n) => B.names.includes(n)) }));
        if (!rows.length) rows.push({ lane: B.lanes[0] || 1, names: [] });
        // A seed for the lane draw, shown (and changeable) before it is used.
        const seed = crypto.getRandomValues(new Uint32Array(1))[0] % 1000000;
        B.edit = { block: b.id, rows, sort: 'entered', seed };
        redraw();
        focusIn('[data-testid="lanes-form-' + b.id + '"] select');
      } }),
      has ? h('button', { type: 'button', class: 'primary', text: t('pushBlock', b.id), onclick: () => pushBlock(b.id) }) : null) : null);
}

// A lane's part of a push as the centre answers it (its `lanes`, as
// /api/pushes has them): accepted, refused with the lane's reason, held
// while the lane is offline, waiting, or no answer.
function pushedLane(l) {
  const status = l.status === 'offline' ? t('offline_status') : t(l.status);
  const tone = l.status === 'accepted' ? 'good' : l.status === 'pending' || l.status === 'offline' ? 'warn' : 'bad';
  return h('li', { class: 'pill ' + tone, 'data-testid': 'pushed-' + l.lane, text: t('lane', l.lane) + ': ' + status + (l.error ? ' — ' + l.error : '') });
}

// "Sent" only while it is true of every lane: none refused, none silent,
// and at least one sent (not all held).
function showPushed(block, lanes) {
  const list = Object.values(lanes || {}).sort((a, b) => a.lane - b.lane);
  const sent = list.some((l) => l.status === 'accepted' || l.status === 'pending')
    && !list.some((l) => l.status === 'refused' || l.status === 'no_answer' || l.status === 'cancelled');
  $('push-status').replaceChildren(...[h('span', { text: block + ':' }), sent && h('span', { class: 'sent', text: ' ' + t('sent') }),
    h('ul', { class: 'lanes pushed' }, list.map(pushedLane))].filter(Boolean));
}

// Pushes a block's lineups from the programme and says what each lane
// answered; a lane still waiting is read again from /api/pushes until it
// answers (or the centre gives it up as no answer).
async function pushBlock(id) {
  const seq = (B.pushSeq = (B.pushSeq || 0) + 1);
  let r = await post('/api/push', { block: id });
  if (r.status === 409 && r.body && r.body.begun) {
    // Lanes have begun the block: pushing it again asks why.
    const lanes = Object.entries(r.body.begun).map(([n, st]) => t('lane', n) + ': ' + lifeText(st)).join('; ');
    const reason = await askReason(t('againTitle', id), t('againText', lanes), t('againReason'), t('againOk', id));
    if (reason === null) { $('push-status').replaceChildren(); say(t('againNot', id), false); return; }
    r = await post('/api/push', { block: id, again: true, reason });
  }
  if (r.status !== 200) {
    $('push-status').replaceChildren();
    say((r.body && r.body.error) || String(r.status), false);
    return;
  }
  $('push-error').textContent = '';
  showPushed(id, r.body.lanes);
  B.hooks.render();
  let lanes = r.body.lanes;
  while (seq === B.pushSeq && Object.values(lanes || {}).some((l) => l.status === 'pending')) {
    await new Promise((done) => setTimeout(done, 1000));
    const all = await api('/api/pushes');
    const p = all.status === 200 && all.body.find((x) => x.id === r.body.push);
    if (!p || seq !== B.pushSeq) return;
    lanes = p.lanes;
    showPushed(id, lanes);
  }
}

const WAITING = { 'no bowler in the category': 'waiting_none', 'fewer than 3 bowlers in the round robin': 'waiting_fewer', 'the first step-ladder match is not decided': 'waiting_undecided', 'the round robin is not finished': 'waiting_rr',
  'the first step-ladder match is tied: record its roll-off\'s winner': 'waiting_tied' };

function lanesText(lanes) {
  return Object.entries(lanes || {}).map(([lane, names]) => t('lane', lane) + ': ' + names.join(', ')).join('; ');
}

function proposalCard(f) {
  return h('section', { class: 'panel proposal', 'data-testid': 'finals-proposal-' + f.category },
    h('h3', { text: t('finalsTitle', f.category) }),
    h('p', { class: 'note', text: t('rounds', f.rounds.length) + ' · ' + f.seeds.map((s, i) => (i + 1) + '. ' + s).join(', ') }),
    f.blocks.map((p) => h('div', { class: 'stage-row', 'data-testid': 'proposal-' + p.block },
      h('h4', { text: t('stage_' + p.stage) + ' · ' + p.block }),
      p.waiting ? h('p', { class: 'note', text: t(WAITING[p.waiting] || p.waiting) })
        : h('p', { text: t('proposed') + lanesText(p.lanes) }),
      Object.keys(p.current || {}).length ? h('p', { class: 'note', text: t('nowLanes') + lanesText(p.current) }) : null,
      B.judge && !p.waiting ? h('button', { type: 'button', class: 'primary', text: t('confirm', p.block),
        onclick: () => saveLanes(p.block, p.lanes) }) : null,
      p.roll_off ? rollOff(p.block, p.roll_off) : null)));
}

// A tied step-ladder match: who won its roll-off, one press each.
function rollOff(block, pair) {
  return h('div', { class: 'roll-off', 'data-testid': 'roll-off-' + block },
    h('p', { class: 'alarm', text: t('tied', pair[0], pair[1]) }),
    B.judge ? pair.map((winner) => h('button', { type: 'button', text: t('rollOffWon', block, winner), onclick: async () => {
      const r = await post('/api/finals/roll-off', { block, winner });
      if (r.status !== 200) { say((r.body && r.body.error) || String(r.status), false); return; }
      B.programme = r.body;
      say(t('rollOffSaved', block), true);
      B.hooks.changed();
    } })) : null);
}

function focusIn(selector) {
  const el = document.querySelector(selector);
  if (el) el.focus();
}

function redraw() {
  B.key = '';
  B.hooks.render();
}

// Draws the blocks and the finals' proposals when what they show changed,
// and never under an open form (a poll would take its choices away).
export function render(mark, force) {
  const p = B.programme;
  const key = JSON.stringify([p, B.names, B.lanes, B.finals, B.judge, B.edit]);
  if (!force && (key === B.key || (B.edit && B.key))) return;
  B.key = key;
  // A button focused keeps the focus when drawn again (each names its
  // block).
  const a = document.activeElement;
  const again = a && a.tagName === 'BUTTON' && a.closest('#blocks, #finals') ? a.textContent : null;
  $('finals').replaceChildren(...(p && B.finals.length ? B.finals.map(proposalCard) : []));
  $('blocks').replaceChildren(...(p ? p.blocks.map((b) => blockCard(b, mark)) : [h('p', { text: t('noProgramme') })]));
  const b = again && [...document.querySelectorAll('#blocks button, #finals button')].find((x) => x.textContent === again);
  if (b) b.focus();
}

// What the blocks are drawn from, as the page last read it.
export function update(d) {
  if ('programme' in d) B.programme = d.programme;
  if (d.entries) {
    B.people = d.entries.filter((e) => !e.withdrawn).map((e) => ({ name: e.name, class: e.class, region: e.region }));
    B.names = B.people.map((p) => p.name);
  }
  if (d.finals) { B.lanes = d.finals.lanes || []; B.finals = d.finals.finals || []; }
  if ('judge' in d) { B.judge = d.judge; if (!d.judge) B.edit = null; }
}

export function programme() { return B.programme; }

// hooks: render() redraws the page, changed() reads the blocks and
// proposals again after a change. (A block's push is this module's own.)
export function init(hooks) { B.hooks = hooks; }

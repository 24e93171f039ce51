// What the page and the TV share: building elements, reading the API, and
// a lane's state object (docs/replay-output.md) read for flags.
import { t, getLang } from './i18n.js';

export function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'text') el.textContent = v;
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v);
  }
  for (const kid of kids.flat()) if (kid) el.append(kid);
  return el;
}

// A request to the centre. On the Russian page it asks in Russian
// (`Accept-Language: ru`): the centre then answers a refusal, and the lanes'
// answers to a push, in Russian too (`error_ru`, a problem's `message_ru`,
// src/centre/say.rs), which the page shows in place of the English.
export async function api(path, opts) {
  const o = { ...(opts || {}) };
  const ru = getLang() === 'ru';
  if (ru) {
    const headers = new Headers(o.headers || {});
    headers.set('Accept-Language', 'ru');
    o.headers = headers;
  }
  const res = await fetch(path, o);
  let body = null;
  try { body = await res.json(); } catch (_) { body = null; }
  if (ru && (res.status >= 400 || /^\/api\/(push|pushes|hold)\b/.test(path))) sayRussian(body);
  return { status: res.status, body };
}

// Every `error` and `message` that has its Russian beside it, in Russian.
function sayRussian(v) {
  if (!v || typeof v !== 'object') return;
  if (typeof v.error_ru === 'string') v.error = v.error_ru;
  if (typeof v.message_ru === 'string') v.message = v.message_ru;
  for (const x of Object.values(v)) sayRussian(x);
}

// The flags a lane shows at a glance: [text, tone].
export function flags(state) {
  const out = [];
  if (!state) return out;
  const ps = state.pinsetter || {};
  if (ps.link === 'down') out.push([t('linkDown'), 'bad']);
  if (ps.fault) out.push([t('fault', ps.fault), 'bad']);
  if (state.hold) out.push([t('hold', state.hold.by, state.hold.reason), 'bad']);
  for (const b of state.blindfolds || []) if (b.adjusting || b.recheck) out.push([t('blindfold', b.bowler), 'warn']);
  for (const c of state.conduct || []) {
    if (c.kind === 'slow_bowling' && c.level === 'penalty' && !c.confirmed_by && !c.withdrawn) out.push([t('slow', c.bowler), 'warn']);
  }
  if (state.journal && state.journal.state === 'failed') out.push([t('journalFailed'), 'bad']);
  return out;
}

// Each bowler of a lane's state with their series so far.
export function bowlers(state) {
  return ((state && state.bowlers) || []).map((b) => ({ name: b.name, class: b.class, series: b.series || 0, games: (b.games || []).length }));
}

// A bowler's sex as the page's language writes it: М/Ж on the Russian
// page, M/F on the English.
export function sexText(sex) {
  return sex === 'F' ? t('sexF') : sex === 'M' ? t('sexM') : (sex || '');
}

// A standings category's title in the page's language.
export function categoryTitle(c, lang) {
  return (lang === 'ru' ? c.title_ru : c.title) || c.title || c.id || '';
}

// The centre's offset from UTC in seconds (`zone` in /api/centre): times
// of day are shown as the centre's clock reads them.
let zoneOffset = 0;
export function setZone(zone) {
  if (zone && Number.isFinite(zone.offset_s)) zoneOffset = zone.offset_s;
}

// A time (RFC 3339 text or Unix seconds) as HH:MM:SS in the centre's zone.
export function clock(at) {
  const ms = typeof at === 'number' ? at * 1000 : Date.parse(at || '');
  if (!Number.isFinite(ms)) return '';
  return new Date(ms + zoneOffset * 1000).toISOString().slice(11, 19);
}

// A bowler's own phone (/me): the bowler picks their name from the lane
// order (kept in the URL's #fragment and in localStorage), then the phone
// reads out, through its screen reader, the callout the lane spoke for
// each of their own balls, and nothing else: no score, no mark, no other
// bowler's ball. The score is said only when the bowler asks for it.

import { setLang, lang } from './i18n.js';
import { pt } from './phone-words.js';
import { $, h, replace, setText, param, store, load, known, follow, currentOrder, calloutText } from './live.js';

const KEY = 'lanecall.me';

const S = {
  lang: known(param('lang')), // chosen in the URL or on the page; else the bowler's, else the lane's
  lane: null,
  conn: 'wait', // wait | ok | down
  me: null,     // the bowler's name
  seen: null,   // the keys of the callouts the page has seen
};

// ----- who the bowler is ----------------------------------------------------

function fromUrl() {
  const frag = location.hash.slice(1);
  if (frag) {
    try { return decodeURIComponent(frag); } catch (e) { return null; }
  }
  return param('bowler');
}

// The name in the URL: `/me#Anna%20K.` (a `?bowler=` given is dropped).
function urlFor(name) {
  const u = new URL(location.href);
  u.searchParams.delete('bowler');
  u.hash = name ? encodeURIComponent(name) : '';
  return u.pathname + u.search + u.hash;
}

// Another bowler (or none): what was said for the one before goes.
function become(name) {
  S.me = name || null;
  store(KEY, S.me);
  for (const id of ['live', 'score']) hush($(id));
  render();
}

function choose(name) {
  become(name);
  history.pushState(null, '', urlFor(S.me));
  $(S.me ? 'me-h' : 'pick-h').focus();
}

function entryOf(lane, name) {
  if (!lane || !name) return null;
  return currentOrder(lane).find((b) => b.name === name) ||
    (lane.bowlers || []).filter((b) => b.name === name).pop() || null;
}

// ----- what is said ----------------------------------------------------------

// Sets a live region's text so a screen reader says it even when it is the
// same as before: emptied first, filled a moment later.
function say(el, text) {
  const n = hush(el);
  setTimeout(() => { if (el.said === n) el.textContent = text; }, 150);
}

// Empties a live region, and drops what was about to be said in it.
function hush(el) {
  el.said = (el.said || 0) + 1;
  el.replaceChildren();
  return el.said;
}

const key = (c) => c.t + '|' + c.bowler + '|' + (c.words || []).join(' ');

// The callouts in `list` the page has not seen: those after the ones it
// saw, or (in a new journal) those it never saw.
function fresh(seen, list) {
  const n = seen.length;
  if (list.length >= n && (n === 0 || key(list[n - 1]) === seen[n - 1])) return list.slice(n);
  const old = new Set(seen);
  return list.filter((c) => !old.has(key(c)));
}

// A callout for a ball (the lane also speaks the score on request, with
// "frame": never read out here).
function forBall(c) {
  return !(c.words || []).includes('frame');
}

function setLane(lane) {
  const list = lane.callouts || [];
  let mine = null;
  if (S.seen && S.me) {
    const got = fresh(S.seen, list).filter((c) => c.bowler === S.me && forBall(c));
    mine = got.length ? got[got.length - 1] : null;
  }
  S.seen = list.map(key);
  S.lane = lane;
  render();
  if (mine) say($('live'), calloutText(mine));
}

// "Frame 4, 37": the last settled frame of the bowler's current game and
// the score through it.
function scoreText() {
  const b = entryOf(S.lane, S.me);
  const games = (b && b.games) || [];
  const g = games[games.length - 1];
  const settled = g ? (g.frames || []).filter((f) => f.cumulative !== null && f.cumulative !== undefined) : [];
  const last = settled[settled.length - 1];
  return (last ? pt('scoreText', last.frame, last.cumulative) : pt('scoreNone')) + (S.conn === 'down' ? pt('scoreOld') : '');
}

// ----- the page ----------------------------------------------------------------

function applyLang() {
  const b = entryOf(S.lane, S.me);
  setLang(S.lang || known(b && b.lang) || known(S.lane && S.lane.speaker_language) || 'ru');
  document.documentElement.lang = lang();
  const lt = $('lang-toggle');
  setText(lt, pt('langSwitch'));
  lt.setAttribute('lang', lang() === 'ru' ? 'en' : 'ru');
  lt.setAttribute('aria-label', pt('langSwitchLabel'));
  const words = { 'pick-h': 'whoAreYou', 'pick-help': 'pickHelp', 'last-h': 'lastBall', 'live-hint': 'liveHint', 'score-btn': 'myScore', 'not-me': 'notMe' };
  for (const [id, w] of Object.entries(words)) setText($(id), pt(w));
}

function show(el, text) {
  el.hidden = !text;
  setText(el, text || '');
}

function render() {
  applyLang();
  const lane = S.lane;
  const laneName = lane && lane.lane ? pt('lane', lane.lane) : 'Lanecall';
  setText($('lane'), laneName);
  show($('conn'), S.conn === 'down' ? pt('connLost') : S.conn === 'wait' ? pt('connecting') : '');
  $('conn').classList.toggle('soft', S.conn === 'wait');
  show($('hold'), lane && lane.hold ? pt('hold', lane.hold.by, lane.hold.reason) : '');
  const order = lane ? currentOrder(lane) : [];
  $('pick').hidden = !!S.me;
  $('mine').hidden = !S.me;
  document.title = (S.me ? S.me + ' — ' : '') + pt('me') + ' · ' + laneName;
  if (!S.me) {
    replace($('names'), lane && !order.length ? h('li', { text: pt('noLineup') }) : order.map((b, i) => h('li', {},
      h('button', { type: 'button', id: 'pick-' + i, 'data-testid': 'me-pick-' + i, text: b.name, onclick: () => choose(b.name) }))));
    return;
  }
  setText($('me-h'), S.me);
  const inOrder = order.some((b) => b.name === S.me);
  const up = lane && lane.up;
  setText($('turn'), !lane ? '' : !inOrder ? pt('notInLineup', S.me)
    : up && up.bowler === S.me ? pt('yourTurn', up.frame, up.ball) : pt('notYourTurn'));
}

function init() {
  const named = fromUrl();
  S.me = named || load(KEY) || null;
  store(KEY, S.me);
  history.replaceState(null, '', urlFor(S.me));
  // Back and forward between the list and a bowler.
  window.addEventListener('popstate', () => become(fromUrl()));
  $('score-btn').addEventListener('click', () => { if (S.lane && S.me) say($('score'), scoreText()); });
  $('not-me').addEventListener('click', () => choose(null));
  // The language chosen on the page, kept in the URL (a reload keeps it):
  // what was said before is in the other language.
  $('lang-toggle').addEventListener('click', () => {
    S.lang = lang() === 'ru' ? 'en' : 'ru';
    const u = new URL(location.href);
    u.searchParams.set('lang', S.lang);
    history.replaceState(null, '', u);
    for (const id of ['live', 'score']) hush($(id));
    render();
  });
  render();
  follow(setLane, (c) => {
    if (S.conn === c) return;
    S.conn = c;
    render();
  });
}

init();

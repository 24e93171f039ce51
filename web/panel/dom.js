// What every page of the panel (/, /board, /me) shares: building its
// elements, drawing them again without losing focus, the browser's
// storage, and a callout as text. No dependencies.

import { t, lang } from './i18n.js';

export const $ = (id) => document.getElementById(id);
export const PIN_ROWS = [[7, 8, 9, 10], [4, 5, 6], [2, 3], [1]];

export function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'text') el.textContent = v;
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'value') el.value = v;
    else if (k === 'checked' || k === 'disabled' || k === 'hidden' || k === 'selected') el[k] = !!v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const kid of kids.flat(9)) {
    if (kid === null || kid === undefined || kid === false) continue;
    el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }
  return el;
}

// Replaces a container's content, keeping what was typed into its fields
// and keyboard focus (and the caret) on the element with the same id when
// it is drawn again: the lane may change while a judge types.
export function replace(container, ...kids) {
  redraw(container, kids, true);
}

// Draws a form that is the picture of its model (every keystroke is in the
// model already): only focus and the caret are kept. Nothing typed is
// carried over by id, since after a move or a removal the same id holds
// another bowler.
export function drawModel(container, ...kids) {
  redraw(container, kids, false);
}

function redraw(container, kids, keepTyped) {
  const active = document.activeElement;
  const fid = active && container.contains(active) ? active.id : null;
  let sel = null;
  try { sel = fid && active.selectionStart !== undefined ? [active.selectionStart, active.selectionEnd] : null; } catch (e) { sel = null; }
  const typed = new Map();
  if (keepTyped) for (const el of container.querySelectorAll('input[id], select[id], textarea[id]')) {
    if (el.type !== 'checkbox') typed.set(el.id, el.value);
  }
  while (container.firstChild) container.firstChild.remove();
  container.append(...kids.flat(9).filter(Boolean));
  for (const [id, v] of typed) {
    const el = document.getElementById(id);
    if (el && container.contains(el) && el.value !== v && (el.tagName !== 'SELECT' || [...el.options].some((o) => o.value === v))) el.value = v;
  }
  if (fid) {
    const again = document.getElementById(fid);
    if (again && !again.disabled) {
      again.focus({ preventScroll: true });
      try { if (sel && again.setSelectionRange) again.setSelectionRange(sel[0], sel[1]); } catch (e) { /* not a text field */ }
    }
  }
}

// Sets text only when it changes: a live region would read it out again.
export function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

// The browser's storage (`null` removes): in a private window the page
// goes on without it.
export function store(k, v) {
  try {
    if (v === null) localStorage.removeItem(k);
    else localStorage.setItem(k, v);
  } catch (e) { /* private mode */ }
}

export function load(k) {
  try { return localStorage.getItem(k); } catch (e) { return null; }
}

// A callout as text in the page's language: the lane's own English text,
// or its words translated.
export function calloutText(c) {
  if (lang() === 'en' && c.text) return c.text;
  const words = (c.words || []).map((w) => (/^\d+$/.test(w) ? w : t('w_' + w)));
  return words.join(', ') || c.text || '';
}

// What the marks on a score sheet mean, each drawn as the sheet draws it:
// a legend one tap away on every page with a sheet (a tablet has no hover
// to show a tooltip), and a line under the printed sheet. Each page draws
// the sample balls itself (`draw(kind, mark)`), so the legend shows its
// own marks. No dependencies.

import { t } from './i18n.js';
import { h } from './dom.js';

// Every mark: its kind (the ball's classes on the sheet), the symbol shown
// and the word that says what it means. `print`: drawn on paper too (the
// ball in play and the ball up are the live lane's only).
export const MARKS = [
  { kind: 'mark', mark: 'X', word: 'mkStrike', print: true },
  { kind: 'mark', mark: '/', word: 'mkSpare', print: true },
  { kind: '', mark: '-', word: 'mkGutter', print: true },
  { kind: '', mark: '7', word: 'mkPins', print: true },
  { kind: 'foul', mark: 'F', word: 'mkFoul', print: true },
  { kind: 'wrong-deck', mark: '-', word: 'mkWrongDeck', print: true },
  { kind: 'split', mark: '7', word: 'mkSplit', print: true },
  { kind: 'in-play', mark: '9', word: 'mkInPlay', print: false },
  { kind: 'next', mark: '', word: 'mkNext', print: false },
];

// The legend's list: each mark drawn by `draw(kind, mark)` beside what it
// means. `paper`: only the marks a printed sheet has.
export function legendList(draw, idp, paper) {
  return h('ul', { class: 'legend-list', 'data-testid': idp + 'legend-list' },
    MARKS.filter((m) => !paper || m.print).map((m) => h('li', { 'data-testid': idp + 'legend-' + m.word },
      h('span', { class: 'legend-mark', 'aria-hidden': 'true' }, draw(m.kind, m.mark)),
      h('span', { class: 'legend-text', text: t(m.word) }))));
}

// Wires a legend's button and panel: a tap opens it, another tap, its
// Close button or Escape closes it (focus back on the button).
export function wireLegend(button, panel) {
  const set = (open, back) => {
    panel.hidden = !open;
    button.setAttribute('aria-expanded', String(open));
    if (back) button.focus();
  };
  button.setAttribute('aria-controls', panel.id);
  set(false);
  button.addEventListener('click', () => set(panel.hidden));
  panel.addEventListener('click', (e) => { if (e.target.closest('[data-legend-close]')) set(false, true); });
  panel.addEventListener('keydown', (e) => { if (e.key === 'Escape') { e.preventDefault(); set(false, true); } });
  button.addEventListener('keydown', (e) => { if (e.key === 'Escape' && !panel.hidden) set(false); });
}

// The legend panel's content in the current language: a heading, the list
// and a Close button. `draw` as for legendList.
export function legendPanel(draw, idp) {
  return [
    h('h2', { class: 'legend-h', id: idp + 'legend-h', text: t('legendTitle') }),
    legendList(draw, idp, false),
    h('button', { type: 'button', id: idp + 'legend-close', class: 'legend-close', 'data-legend-close': '', 'data-testid': idp + 'legend-close', text: t('legendClose') }),
  ];
}

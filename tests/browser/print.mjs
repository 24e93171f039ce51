// A page printed to an A4 PDF through Chromium, checked as a protocol must
// print: laid out at A4's printable width nothing is wider than the page,
// no table row may be split and table heads repeat on each page, the
// toolbar is not printed; every page of the PDF is A4 and carries its
// number ("2 / 3"). Returns the PDF's pages' text (pdftext.mjs).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { same } from './harness.mjs';
import { pdfPages } from './pdftext.mjs';

export async function printA4(page, shots, name, { maxPages }) {
  const viewport = page.viewportSize();
  await page.emulateMedia({ media: 'print' });
  // The printable width of A4 (210 mm less 2 × 12 mm margins) at 96 px an inch.
  await page.setViewportSize({ width: Math.floor((186 / 25.4) * 96), height: 1000 });
  const layout = await page.evaluate(() => {
    const doc = document.documentElement;
    const width = doc.clientWidth;
    const wide = [...document.querySelectorAll('.doc *')]
      .filter((el) => el.getBoundingClientRect().right > width + 0.5 || el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'visible')
      .map((el) => el.tagName + '.' + el.className + ' ' + (el.textContent || '').slice(0, 30));
    return {
      page: [doc.scrollWidth <= width, width],
      wide,
      rows: [...document.querySelectorAll('tr')].filter((tr) => getComputedStyle(tr).breakInside !== 'avoid').length,
      heads: [...document.querySelectorAll('thead')].filter((t) => getComputedStyle(t).display !== 'table-header-group').length,
      toolbar: getComputedStyle(document.querySelector('.toolbar')).display,
      trs: document.querySelectorAll('tr').length,
    };
  });
  same('the page as wide as A4\'s printable width', layout.page, [true, 702]);
  same('elements wider than the page', layout.wide, []);
  same('rows that may be split, heads not repeated, the toolbar', [layout.rows, layout.heads, layout.toolbar], [0, 0, 'none']);
  if (layout.trs < 20) throw new Error(`only ${layout.trs} table rows`);
  const printed = await page.pdf({ format: 'A4', printBackground: true });
  writeFileSync(join(shots, name + '.pdf'), printed);
  const pdf = printed.toString('latin1');
  const pages = (pdf.match(/\/Type\s*\/Page(?!s)/g) || []).length;
  if (pages < 1 || pages > maxPages) throw new Error(`the PDF has ${pages} pages (1 to ${maxPages} expected)`);
  const boxes = [...new Set((pdf.match(/\/MediaBox\s*\[[^\]]*\]/g) || []).map((b) => b.replace(/\s+/g, ' ')))];
  same('every page A4 (595 × 842 pt)', boxes.map((b) => b.match(/[\d.]+/g).slice(2).map((x) => Math.floor(Number(x)))), [[595, 842]]);
  const texts = pdfPages(printed);
  same('pages with text', texts.length, pages);
  same('page numbers', texts.map((x) => x.match(/^\d+ \/ \d+/)?.[0]), texts.map((_, i) => `${i + 1} / ${pages}`));
  console.error(`${name} prints on ${pages} A4 page(s)`);
  await page.emulateMedia({ media: 'screen' });
  await page.setViewportSize(viewport);
  return texts;
}

// What of `wanted` the text `text` lacks.
export const missing = (text, wanted) => wanted.filter((w) => !text.includes(w));

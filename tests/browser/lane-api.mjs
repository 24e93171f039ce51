// What the scoreboard's and the phone's scripts share: a judge acting
// through the API (not the panel), balls from the pinsetter, the page's
// weight, colour contrast, and the panel's own words for the callouts.
import { readFileSync } from 'node:fs';
import { pin, pinsetter, until } from './harness.mjs';

// A pin mask as the pinsetter sends it: '1' for a standing pin, pin 1 first.
export const mask = (pins) => Array.from({ length: 10 }, (_, i) => (pins.includes(i + 1) ? '1' : '0')).join('');

export const ballsOf = (lane) => lane.bowlers.reduce((n, b) => n + b.games.reduce(
  (m, g) => m + g.frames.reduce((k, f) => k + f.balls.length, 0), 0), 0);

// The bowlers of the latest block, in lane order.
export function order(lane) {
  const block = Math.max(...lane.bowlers.map((b) => b.block));
  return lane.bowlers.filter((b) => b.block === block).sort((a, b) => a.position - b.position);
}

export function judge(page, api, lane) {
  const post = async (path, data) => {
    const r = await page.request.post(api(path), { data });
    if (r.status() !== 200) throw new Error(`${path} ${JSON.stringify(data)}: ${r.status()} ${await r.text()}`);
    return r.json();
  };
  return {
    login: () => post('/api/login', { pin, name: 'Judge Orlova' }),
    act: (ev) => post('/api/actions', ev),
    // Sets the lane order and starts a block of `games`.
    async start(bowlers, games) {
      await post('/api/actions', { ev: 'lineup', bowlers });
      await post('/api/actions', { ev: 'start_block', games });
      await until('the block started', async () => !!(await lane()).up);
    },
    // The pinsetter sets the deck the rules expect for the ball up, then
    // reports `after` standing; waits for the ball on the lane's sheet.
    async bowl(after) {
      const before = await lane();
      const n = ballsOf(before);
      await pinsetter('READY', mask(before.up.standing));
      await pinsetter('PINS', mask(after));
      await until(`the ball leaving ${JSON.stringify(after)} on the lane`, async () => ballsOf(await lane()) === n + 1);
      return lane();
    },
  };
}

// What the page just loaded weighs as transferred (headers and bodies):
// its HTML, scripts and styles, from the browser's own resource timing,
// after every module the page imports has loaded.
export async function weight(page) {
  await page.waitForLoadState('load');
  return page.evaluate(() => {
    const nav = performance.getEntriesByType('navigation')[0];
    const files = [[new URL(nav.name).pathname, nav.transferSize]];
    for (const r of performance.getEntriesByType('resource')) {
      const path = new URL(r.name).pathname;
      if (/\.(js|css)$/.test(path)) files.push([path, r.transferSize]);
    }
    return { files, total: files.reduce((n, [, b]) => n + b, 0) };
  });
}

// The contrast ratio of each selector's text colour against the first
// opaque background behind it (WCAG's relative luminance).
export function contrasts(page, selectors) {
  return page.evaluate((sels) => {
    const rgb = (s) => (s.match(/[\d.]+/g) || []).map(Number);
    const lum = ([r, g, b]) => {
      const c = [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
      return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
    };
    const background = (el) => {
      for (let e = el; e; e = e.parentElement) {
        const c = rgb(getComputedStyle(e).backgroundColor);
        if (c.length === 3 || c[3] === 1) return c.slice(0, 3);
      }
      return [255, 255, 255];
    };
    return sels.map((sel) => {
      const el = document.querySelector(sel);
      if (!el) return [sel, null];
      const a = lum(rgb(getComputedStyle(el).color));
      const b = lum(background(el));
      return [sel, Math.round(((Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)) * 100) / 100];
    });
  }, selectors);
}

// The panel's own words (web/panel/i18n.js), to say what a callout's
// words are in Russian as the pages should.
export async function panelWords() {
  const src = readFileSync(new URL('../../web/panel/i18n.js', import.meta.url), 'utf8');
  return import('data:text/javascript,' + encodeURIComponent(src));
}

// A callout as the panel says it in `lang`: the lane's English text, or
// its words in the panel's words.
export function calloutIn(i18n, lang, c) {
  if (lang === 'en') return c.text;
  i18n.setLang(lang);
  return c.words.map((w) => (/^\d+$/.test(w) ? w : i18n.t('w_' + w))).join(', ');
}

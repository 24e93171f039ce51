// The scoreboard (/board) in headless Chromium: node board.mjs URL PIN SCREENSHOT_DIR
//
// A judge sets four bowlers and starts a block through the API; the
// pinsetter's balls come from the test harness (`READY <mask>`, `PINS
// <mask>`, answered `sent` on stdin). The board must show what GET
// /api/lane holds, fit a TV and a tablet without scrolling, and keep its
// text at 7:1 contrast. Exits non-zero on the first failed step.
import { join } from 'node:path';
import { url, shots, id, same, run, standInEventStream } from './harness.mjs';
import { judge, order, weight, contrasts } from './lane-api.mjs';

const ALL = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
const FRAMES = ALL;

// What the board must show for the lane: each bowler's name, marks and
// running totals per frame and game total; the bowler, frame and ball up;
// the pins standing for the ball up.
function expected(lane) {
  const game = lane.up ? lane.up.game : 1;
  return {
    rows: order(lane).map((b) => {
      const g = b.games.find((x) => x.game === game);
      const frames = FRAMES.map((n) => {
        const f = g && g.frames.find((x) => x.frame === n);
        return [f ? f.marks : '', f && f.cumulative !== null ? String(f.cumulative) : ''];
      });
      // The total as far as it is settled: the last frame's running total.
      const done = g ? g.frames.filter((f) => f.cumulative !== null) : [];
      return [b.name, frames, done.length ? String(done[done.length - 1].cumulative) : ''];
    }),
    up: lane.up ? [lane.up.bowler, lane.up.frame, lane.up.ball] : null,
    upName: lane.up ? lane.up.bowler : null,
    standing: lane.up ? lane.up.standing : null,
  };
}

// A finished game from its balls' pinfalls, frame by frame, with its
// marks and running totals as the lane scores them (replay-output.md).
function gameOf(num, frames) {
  const rolls = frames.flat();
  let at = 0;
  let cum = 0;
  const marks = (balls) => {
    let s = '';
    let left = 10;
    for (const p of balls) {
      s += left === 10 && p === 10 ? 'X' : p === left ? '/' : p === 0 ? '-' : String(p);
      left = p === left ? 10 : left - p;
    }
    return s;
  };
  const out = frames.map((balls, k) => {
    const strike = balls[0] === 10;
    const spare = !strike && balls[0] + balls[1] === 10;
    cum += k === 9 ? balls.reduce((a, b) => a + b, 0)
      : strike ? 10 + rolls[at + 1] + rolls[at + 2] : spare ? 10 + rolls[at + 2] : balls[0] + balls[1];
    at += balls.length;
    return {
      frame: k + 1, marks: marks(balls), cumulative: cum,
      balls: balls.map((p) => ({ pinfall: p, standing: [], foul: false, split: false, wrong_deck: null })),
    };
  });
  return { game: num, frames: out, total: cum, complete: true };
}

function shownOnBoard() {
  const q = (sel, root = document) => root.querySelector(`[data-testid="${sel}"]`);
  const rows = [...document.querySelectorAll('[data-testid^="board-row-"]')].map((r, i) => [
    q(`board-name-${i}`).textContent,
    Array.from({ length: 10 }, (_, k) => [q(`board-marks-${i}-${k + 1}`).textContent, q(`board-cum-${i}-${k + 1}`).textContent]),
    q(`board-total-${i}`).textContent,
  ]);
  const upRow = document.querySelector('tbody.is-up');
  const upFrame = upRow && upRow.querySelector('td.frame.up');
  const balls = upFrame ? [...upFrame.querySelectorAll('.ball')] : [];
  const upBall = balls.findIndex((b) => b.classList.contains('next')) + 1;
  const name = upRow && upRow.querySelector('.who').textContent;
  const pins = [...document.querySelectorAll('[data-testid="board-pins"] .pin.up')]
    .map((p) => Number(p.textContent)).sort((a, b) => a - b);
  return {
    rows,
    up: upRow ? [name, Number(upFrame.dataset.testid.split('-').pop()), upBall] : null,
    upName: upRow ? q('board-up').textContent : null,
    standing: document.querySelector('[data-testid="board-pins"]') ? pins : null,
  };
}

await run(async ({ page, api, shot, step, lane, until }) => {
  const j = judge(page, api, lane);
  const board = (query = '') => new URL('board' + query, url).href;
  // Waits for the board to show what the lane holds now; on failure says
  // what differs.
  const showsTheLane = async (what) => {
    let got, want;
    for (let i = 0; i < 100; i++) {
      want = expected(await lane());
      got = await page.evaluate(shownOnBoard);
      if (JSON.stringify(got) === JSON.stringify(want)) return want;
      await page.waitForTimeout(100);
    }
    same(what, got, want);
  };
  // Nothing scrolls and every bowler's row, the pins and the header are
  // on the screen, in type large for the screen.
  const fits = async (w, hgt, rows) => {
    await page.setViewportSize({ width: w, height: hgt });
    await page.waitForFunction(([ww, hh]) => window.innerWidth === ww && window.innerHeight === hh, [w, hgt]);
    const m = await page.evaluate((n) => {
      const box = (sel) => {
        const r = document.querySelector(`[data-testid="${sel}"]`).getBoundingClientRect();
        return [Math.floor(r.left), Math.floor(r.top), Math.ceil(r.right), Math.ceil(r.bottom)];
      };
      const inside = (b) => b[0] >= 0 && b[1] >= 0 && b[2] <= innerWidth && b[3] <= innerHeight;
      const parts = ['board-title', 'board-now', 'board-pins', ...Array.from({ length: n }, (_, i) => `board-row-${i}`)];
      return {
        scroll: [document.documentElement.scrollWidth, document.documentElement.scrollHeight],
        out: parts.filter((p) => !inside(box(p))),
        cumPx: parseFloat(getComputedStyle(document.querySelector('[data-testid="board-cum-0-1"]')).fontSize),
        markPx: parseFloat(getComputedStyle(document.querySelector('.ball')).fontSize),
      };
    }, rows);
    if (m.scroll[0] > w || m.scroll[1] > hgt) throw new Error(`at ${w}x${hgt} the board scrolls: ${m.scroll}`);
    same(`parts outside the ${w}x${hgt} screen`, m.out, []);
    // A running total's digits at least 1/40 of the screen's height.
    if (m.cumPx < hgt / 40 || m.markPx < hgt / 45) throw new Error(`at ${w}x${hgt} the type is small: totals ${m.cumPx}px, marks ${m.markPx}px`);
    return m;
  };
  const contrastAtLeast7 = async (what, sels) => {
    const got = await contrasts(page, sels);
    const low = got.filter(([, r]) => r === null || r < 7);
    if (low.length) throw new Error(`${what}: contrast below 7:1 for ${JSON.stringify(low)}`);
    console.error(`${what}: contrast ${got.map(([s, r]) => `${s} ${r}`).join(', ')}`);
  };

  step('a judge sets four bowlers and starts a block of two games');
  await j.login();
  await j.start([
    { name: 'Anna K.', class: 'B2' },
    { name: 'Boris', class: 'B3' },
    { name: 'Varvara Sokolova-Tretyakova', class: 'B2', lang: 'en' },
    { name: 'Gleb', class: 'B3' },
  ], 2);

  step('the board loads, without a login, in the lane\'s language');
  await page.context().clearCookies();
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.goto(board());
  await page.waitForSelector(id('board-row-3'));
  const w = await weight(page);
  console.error(`board page weight: ${w.total} bytes (${w.files.map(([f, b]) => `${f} ${b}`).join(', ')})`);
  if (!(w.total > 0 && w.total < 150 * 1024)) throw new Error(`the board weighs ${w.total} bytes`);
  for (const f of ['/board', '/panel/board.js', '/panel/board.css']) {
    if (!w.files.some(([p]) => p === f)) throw new Error(`${f} was not loaded: ${JSON.stringify(w.files)}`);
  }
  same('the page language', await page.evaluate(() => document.documentElement.lang), (await lane()).speaker_language);
  await showsTheLane('the board before the first ball');
  same('no connection alert', await page.locator(id('board-conn')).isVisible(), false);

  step('a frame of balls: a strike, 8-1, a gutter and a spare, 9 and a spare, then 8');
  await j.bowl([]);
  await j.bowl([7, 10]);
  await j.bowl([10]);
  await j.bowl(ALL);
  await j.bowl([]);
  await j.bowl([2]);
  await j.bowl([]);
  await j.bowl([4, 7]);
  const want = await showsTheLane('the board after nine balls');
  // The lane's sheet as the steps above bowled it, so a board that shows
  // nothing cannot pass by a lane that holds nothing.
  same('the marks of frame 1', want.rows.map((r) => r[1][0][0]), ['X', '81', '-/', '9/']);
  same('the bowler up', want.up, ['Anna K.', 2, 2]);
  same('the pins standing', want.standing, [4, 7]);

  step('at 1920x1080 and 1280x800 nothing scrolls and every row is on the screen');
  const tv = await fits(1920, 1080, 4);
  await page.screenshot({ path: join(shots, 'board-1920x1080.png') });
  const tablet = await fits(1280, 800, 4);
  await page.screenshot({ path: join(shots, 'board-1280x800.png') });
  console.error(`type: totals ${tv.cumPx}px at 1920x1080, ${tablet.cumPx}px at 1280x800`);

  step('the text is at least 7:1 against its background, dark and light');
  const texts = ['body', '[data-testid="board-title"]', '[data-testid="board-info"]', 'thead th',
    '[data-testid="board-cum-0-1"]', '[data-testid="board-marks-0-1"] .ball', '.is-up .who',
    '[data-testid="board-up"]', '[data-testid="board-standing"]', '[data-testid="board-row-1"] .cls',
    '[data-testid="board-total-1"]', '[data-testid="board-lang"]'];
  await contrastAtLeast7('dark', texts);
  await page.click(id('board-theme'));
  await page.waitForFunction(() => document.documentElement.classList.contains('light') && location.search.includes('theme=light'));
  await contrastAtLeast7('light', texts);
  await shot('board-light-1280x800');
  await page.click(id('board-theme'));

  step('the lane is held: a banner says so, and the board still fits');
  await j.login();
  await j.act({ ev: 'hold', on: true, reason: 'oil on the approach' });
  await page.waitForSelector(id('board-hold'), { state: 'visible' });
  const hold = await page.locator(id('board-hold')).innerText();
  if (!hold.includes('ДОРОЖКА ОСТАНОВЛЕНА') || !hold.includes('oil on the approach')) throw new Error(`the hold banner says: ${hold}`);
  await fits(1280, 800, 4);
  await contrastAtLeast7('the hold banner', ['[data-testid="board-hold"]']);
  await shot('board-held-1280x800');
  await j.act({ ev: 'hold', on: false });
  await page.waitForSelector(id('board-hold'), { state: 'hidden' });

  step('in English from the URL, and back to Russian by a tap');
  await page.goto(board('?lang=en'));
  await page.waitForSelector(id('board-row-3'));
  same('the page language', await page.evaluate(() => document.documentElement.lang), 'en');
  await page.waitForFunction(() => document.querySelector('thead th.total').textContent === 'Total');
  await showsTheLane('the board in English');
  await page.click(id('board-lang'));
  await page.waitForFunction(() => document.documentElement.lang === 'ru' && location.search.includes('lang=ru')
    && document.querySelector('thead th.total').textContent === 'Итого');

  step('the lane refuses the stream (too many screens): the board reads the lane instead');
  await page.route('**/api/events', (route) => route.fulfill({
    status: 503, json: { error: 'too many live views: close one, or read GET /api/lane now and then' },
  }));
  await page.goto(board());
  await page.waitForSelector(id('board-row-3'));
  await j.bowl([]);
  await showsTheLane('the board after a ball, read without the stream');
  await page.waitForSelector(id('board-conn'), { state: 'hidden' });
  await page.unroute('**/api/events');

  step('the stream drops: "connection lost" until a snapshot comes again');
  const served = await lane();
  await standInEventStream(page);
  await page.goto(board());
  await page.waitForSelector(id('board-row-3'));
  await page.waitForFunction(() => window.laneEvents);
  await page.evaluate(() => window.laneEvents.onerror(new Event('error')));
  await page.waitForSelector(id('board-conn'), { state: 'visible' });
  const lost = await page.locator(id('board-conn')).innerText();
  if (!lost.includes('СВЯЗЬ ПОТЕРЯНА')) throw new Error(`the connection alert says: ${lost}`);
  await fits(1280, 800, 4);
  await shot('board-connection-lost');
  // Back, with Anna K. asking to adjust her blindfold.
  const adjusting = { ...served, blindfolds: [{ bowler: 'Anna K.', checked_at: 1000, ok: true, by: 'Judge Orlova', adjusting: true, recheck: false }] };
  await page.evaluate((l) => window.laneEvents.dispatchEvent(new MessageEvent('lane', { data: JSON.stringify(l) })), adjusting);
  await page.waitForSelector(id('board-conn'), { state: 'hidden' });
  await page.waitForSelector(id('board-blindfold'), { state: 'visible' });
  same('the blindfold banner', await page.locator(id('board-blindfold')).innerText(), 'ПОПРАВЛЯЕТ ПОВЯЗКУ: Anna K.');
  await fits(1280, 800, 4);
  await contrastAtLeast7('the blindfold banner', ['[data-testid="board-blindfold"]']);
  await shot('board-blindfold-1280x800');

  step('games of 200 and more, two bowlers with a handicap: every total inside its cell, the handicap line shown');
  const X = [10];
  const games = [
    [X, X, X, X, X, X, X, X, X, [10, 10, 10]], // 300
    [[9, 1], X, [9, 1], X, [9, 1], X, [9, 1], X, [9, 1], [10, 9, 1]], // 200
    [X, X, X, [8, 2], X, X, [9, 1], X, X, [10, 10, 8]],
    [[8, 1], X, [7, 3], X, X, [9, 1], X, X, [8, 2], [10, 8, 1]],
  ].map((frames) => gameOf(1, frames));
  // Marks the legend explains: Gleb's split in frame 3, Varvara's ball at
  // a wrong deck in frame 4, and Gleb's last ball still in play.
  games[3].frames[2].balls[0].split = true;
  games[2].frames[3].balls[0].wrong_deck = { expected: ALL, set: [1, 2, 3, 4, 6, 7, 8, 9, 10], missing: [5], extra: [] };
  const handicaps = [12, 40, 0, 0];
  const names = order(served).map((b) => b.name);
  const big = {
    ...served,
    up: null,
    in_play: { bowler: names[3], game: 1, frame: 10, ball: 3 },
    blindfolds: [],
    bowlers: served.bowlers.map((b) => {
      const k = names.indexOf(b.name);
      return k < 0 ? b : { ...b, handicap: handicaps[k], games: [games[k]] };
    }),
  };
  same('the games\' totals', games.map((g) => g.total), [300, 200, 255, 205]);
  await page.evaluate((l) => window.laneEvents.dispatchEvent(new MessageEvent('lane', { data: JSON.stringify(l) })), big);
  await page.waitForSelector(id('board-hd-0'));
  // Every running total, game total and handicap line: its text's width
  // against its cell's, with a margin of 4 % of the cell on each side (two
  // totals side by side never read as one number), and nothing scrolled
  // inside it. (The handicap line's text is what is seen: "+12 = 312".)
  const numbersOutside = () => page.evaluate(() => [...document.querySelectorAll('.grid .cum, .grid .tot, [data-testid^="board-hd-"]')]
    .filter((el) => el.textContent).flatMap((el) => {
      const range = document.createRange();
      range.selectNodeContents(el);
      const text = range.getBoundingClientRect();
      const cell = el.closest('td').getBoundingClientRect();
      const box = el.closest('.cum, .tot, .hd');
      const gap = cell.width * 0.04;
      const wide = text.width > cell.width || text.left < cell.left + gap || text.right > cell.right - gap
        || box.scrollWidth > box.clientWidth;
      return wide ? [`${el.textContent}: text ${text.width.toFixed(1)} px [${text.left.toFixed(1)}, ${text.right.toFixed(1)}], `
        + `cell ${cell.width.toFixed(1)} px [${cell.left.toFixed(1)}, ${cell.right.toFixed(1)}], scroll ${box.scrollWidth} > ${box.clientWidth}`] : [];
    }));
  for (const theme of ['dark', 'light']) {
    if ((await page.evaluate(() => document.documentElement.classList.contains('light'))) !== (theme === 'light')) {
      await page.click(id('board-theme'));
    }
    for (const [w, hgt] of [[1920, 1080], [1280, 800]]) {
      const m = await fits(w, hgt, 4);
      same(`the board of the 200+ games at ${w}x${hgt}, ${theme}`, (await page.evaluate(shownOnBoard)).rows, expected(big).rows);
      same(`totals wider than their cells at ${w}x${hgt}, ${theme}`, await numbersOutside(), []);
      same(`the handicap lines at ${w}x${hgt}, ${theme}`, await page.evaluate(() => [0, 1, 2, 3].map((i) => {
        const el = document.querySelector(`[data-testid="board-hd-${i}"]`);
        return el && el.checkVisibility() ? el.textContent : null;
      })), ['+12 = 312', '+40 = 240', null, null]);
      await contrastAtLeast7(`the 200+ games at ${w}x${hgt}, ${theme}`, ['[data-testid="board-total-0"]', '[data-testid="board-hd-0"]',
        '[data-testid="board-cum-2-9"]', '[data-testid="board-marks-2-4"] .wrong-deck']);
      console.error(`200+ at ${w}x${hgt}, ${theme}: totals ${m.cumPx}px`);
      await page.screenshot({ path: join(shots, `board-200-${w}x${hgt}-${theme}.png`) });
    }
  }

  step('one tap on "Legend": the star, the red dashed box and the circle, drawn as on the board');
  same('the legend before a tap', await page.locator(id('board-legend')).isVisible(), false);
  await page.click(id('board-legend-btn'));
  await page.waitForSelector(id('board-legend'), { state: 'visible' });
  same('the button says it is open', await page.getAttribute(id('board-legend-btn'), 'aria-expanded'), 'true');
  // How a ball is drawn: its symbol with the star, its outline, its circle
  // and its colour.
  const drawn = (el) => {
    const s = getComputedStyle(el);
    const sym = el.querySelector('.sym');
    return [el.textContent + getComputedStyle(sym, '::after').content.replace(/^none$|"/g, ''), s.outlineStyle, getComputedStyle(sym).borderRadius, s.color];
  };
  const legendShows = () => page.evaluate((f) => {
    const draw = new Function(`return ${f}`)();
    return ['mkWrongDeck', 'mkInPlay', 'mkSplit'].map((k) => {
      const li = document.querySelector(`[data-testid="board-legend-${k}"]`);
      return [...draw(li.querySelector('.ball')), li.querySelector('.legend-text').textContent];
    });
  }, drawn.toString());
  const onBoard = await page.evaluate((f) => {
    const draw = new Function(`return ${f}`)();
    const q = (s) => document.querySelector(s);
    return [draw(q('[data-testid="board-marks-2-4"] .ball')), draw(q('[data-testid="board-marks-3-10"] .ball:nth-child(3)')),
      draw(q('[data-testid="board-marks-3-3"] .ball'))];
  }, drawn.toString());
  const legendNow = await legendShows();
  same('the board\'s own marks', onBoard.map((m) => m.slice(0, 3)), [['8*', 'none', '0px'], ['1', 'dashed', '0px'], ['7', 'none', '50%']]);
  same('the legend\'s marks, drawn as the board draws them', legendNow.map((m) => m.slice(1, 4)), onBoard.map((m) => m.slice(1, 4)));
  same('the legend\'s words', legendNow.map((m) => [m[0], m[4]]), [
    ['-*', 'звёздочка: бросок при неверной расстановке; судья принимает его или объявляет недействительным'],
    ['9', 'красная пунктирная рамка: мяч ещё в игре, фол на этот бросок ещё могут объявить'],
    ['7', 'в кружке: сплит'],
  ]);
  const legendBox = await page.evaluate(() => {
    const r = document.querySelector('[data-testid="board-legend"]').getBoundingClientRect();
    return r.left >= 0 && r.top >= 0 && r.right <= innerWidth && r.bottom <= innerHeight;
  });
  same('the legend on the 1280x800 screen', legendBox, true);
  await contrastAtLeast7('the legend', ['[data-testid="board-legend-mkSplit"] .legend-text', '[data-testid="board-legend-close"]']);
  await shot('board-legend-1280x800');
  await page.click(id('board-lang'));
  await page.waitForFunction(() => document.querySelector('[data-testid="board-legend-mkSplit"] .legend-text')?.textContent === 'circled: a split');
  same('the legend\'s words in English', (await legendShows()).map((m) => m[4]), [
    'star: bowled at a wrong deck; the judge accepts it or declares it dead',
    'red dashed box: the ball is still in play, a foul may still be called on it',
    'circled: a split',
  ]);
  same('the button in English', await page.locator(id('board-legend-btn')).textContent(), 'Legend');
  await page.click(id('board-legend-close'));
  await page.waitForSelector(id('board-legend'), { state: 'hidden' });
});

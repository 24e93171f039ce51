// The lane view in headless Chromium: node lane.mjs URL PIN SCREENSHOT_DIR [pad]
//
// Without `pad`: four bowlers on a lane whose pinsetter the test harness
// plays (`BALL`, `READY`, `PINS` lines): the lane's current game fits the
// screen of a landscape and a portrait tablet, frame columns keep their
// width, totals appear once frames settle, team totals, the tabs and the
// browser's history, a penalty undone, both languages, the printed sheet
// and the page's weight.
//
// With `pad`: a lane whose string pinsetter's expander does not answer
// (its I2C bus is not there): the panel names the failing part in red with
// its fix, and the pin pad records a ball in one tap plus the pins still
// standing, the pins down before it cannot be tapped, and a ball recorded
// by hand is undone.
import { join } from 'node:path';
import { url, pin, shots, id, same, pinsetter, run, dateOnLane } from './harness.mjs';

const padMode = process.argv[5] === 'pad';
const NAMES = ['Anna Kuznetsova', 'Boris Tikhonov', 'Clara Matveeva', 'Dmitri Romanov'];
const CYRILLIC = /[А-Яа-яЁё]/;
// Words only the English screen shows (the Russian one must not).
const ENGLISH = ['Total', 'Block', 'Game', 'Print', 'Up:', 'Standing', 'Connected', 'Pinsetter', 'Speaker', 'Team', 'Series', 'Frame'];

await run(async ({ page, api, step, lane, until }) => {
  const post = async (body) => {
    const r = await page.request.post(api('/api/actions'), { data: body });
    if (r.status() !== 200) throw new Error(`${JSON.stringify(body)}: ${r.status()} ${await r.text()}`);
  };
  const text = (name) => page.locator(id(name)).innerText();
  const shows = (name, want) => page.waitForFunction(
    ([s, w]) => document.querySelector(s)?.textContent.includes(w), [id(name), want]);
  const shot = (name) => page.screenshot({ path: join(shots, `${name}.png`) });
  // Where an element is on the screen, and whether all of it is in sight.
  const inView = (sel) => page.evaluate((s) => {
    const el = document.querySelector(s);
    if (!el) return `${s}: not on the page`;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth
      ? true : `${s}: ${JSON.stringify([r.left, r.top, r.right, r.bottom])} in ${innerWidth}×${innerHeight}`;
  }, sel);
  const noScroll = () => page.evaluate(() => [document.documentElement.scrollHeight, innerHeight, document.documentElement.scrollWidth, innerWidth]);
  const login = async () => {
    await page.fill(id('login-pin'), pin);
    await page.fill(id('login-name'), 'Judge Orlova');
    await page.click(id('login-submit'));
    await shows('judge-name', 'Judge Orlova');
  };
  // The bowler's index in the lane's bowlers, by name.
  const bi = (l, name) => l.bowlers.findIndex((b) => b.name === name);
  const frameOf = (l, name, f) => l.bowlers[bi(l, name)].games[0]?.frames.find((x) => x.frame === f);

  if (padMode) {
    step('a judge logs in to a lane whose pin switches cannot be read; two bowlers, one game');
    await page.goto(url);
    await page.waitForSelector(id('lane-table'));
    await login();
    await post({ ev: 'lineup', bowlers: [{ name: 'Anna K.', class: 'B3' }, { name: 'Boris', class: 'B3' }] });
    await post({ ev: 'start_block', games: 1 });

    step('the silent expander in red; a tap says what is wrong and what to do meanwhile');
    await shows('status-part-switches', 'Датчики кеглей: СБОЙ');
    same('the part is red', await page.getAttribute(id('status-part-switches'), 'class'), 'pill bad notes');
    await page.click(`${id('status-part-switches')} summary`);
    const part = await text('status-part-switches');
    if (!part.includes('Для техника:') || !part.includes('/dev/i2c-21') || !part.includes('pin pad')) throw new Error(`the part's line: ${part}`);
    await page.click(`${id('status-part-switches')} summary`);

    step('the pin pad is there without a tap, naming who is up');
    await page.waitForSelector(id('pad'));
    await shows('up-now', 'Anna K., игра 1, фрейм 1, бросок 1');
    await shows('manual-offer', 'Нет связи с пинсеттером');
    let clicks = 0;
    const tap = async (name) => { clicks++; await page.click(id(name)); };

    step('ball 1: pins 7 and 10 still stand, in one tap plus the pins');
    await tap('pad-pin-7');
    await tap('pad-pin-10');
    await shows('pad-record', 'стоят 7, 10');
    await tap('pad-record');
    await until('the ball on the server', async () => !!frameOf(await lane(), 'Anna K.', 1));
    same('taps for ball 1', clicks, 3);
    same('/api/lane ball 1', frameOf(await lane(), 'Anna K.', 1).balls.map((b) => b.standing), [[7, 10]]);
    await shows('toast', 'Кегли записаны: Anna K., фрейм 1, бросок 1 — стоят 7, 10');

    step('ball 2: only 7 and 10 can be tapped; the spare is one tap');
    await shows('up-now', 'Anna K., игра 1, фрейм 1, бросок 2');
    const disabled = await page.evaluate(() => [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
      .filter((n) => document.querySelector(`[data-testid="pad-pin-${n}"]`).disabled));
    same('the pins that cannot be tapped for ball 2', disabled, [1, 2, 3, 4, 5, 6, 8, 9]);
    await page.setViewportSize({ width: 1280, height: 800 });
    await shot('pad-1280x800-ru-light');
    await page.setViewportSize({ width: 800, height: 1280 });
    await shot('pad-800x1280-ru-light');
    clicks = 0;
    await tap('pad-record');
    await until('ball 2 on the server', async () => frameOf(await lane(), 'Anna K.', 1).balls.length === 2);
    same('taps for ball 2', clicks, 1);
    same('/api/lane frame 1', [frameOf(await lane(), 'Anna K.', 1).marks, frameOf(await lane(), 'Anna K.', 1).balls[1].standing], ['8/', []]);

    step('Boris strikes in one tap, and the ball is undone');
    await shows('up-now', 'Boris, игра 1, фрейм 1, бросок 1');
    clicks = 0;
    await tap('pad-record');
    await until('the strike on the server', async () => !!frameOf(await lane(), 'Boris', 1));
    same('taps for a strike', clicks, 1);
    same('/api/lane Boris frame 1', frameOf(await lane(), 'Boris', 1).marks, 'X');
    await shows('toast', 'Кегли записаны: Boris, фрейм 1, бросок 1 — все сбиты');
    await page.click(id('toast-undo'));
    await until('the strike taken off the sheet', async () => !frameOf(await lane(), 'Boris', 1));
    const after = await lane();
    same('/api/lane up after the undo', [after.up.bowler, after.up.game, after.up.frame, after.up.ball, after.up.standing.length],
      ['Boris', 1, 1, 1, 10]);
    same('/api/lane Anna after the undo', frameOf(after, 'Anna K.', 1).marks, '8/');
    await shows('toast', 'Бросок снят: Boris снова бросает фрейм 1, бросок 1');
    await shows('up-now', 'Boris, игра 1, фрейм 1, бросок 1');
    const [sh, ih] = await noScroll();
    if (sh > ih) throw new Error(`the lane view with the pad scrolls: ${sh} > ${ih}`);

    step('the printed sheet has the event\'s title');
    await page.evaluate(() => { window.print = () => {}; });
    await page.click(id('print-lane'));
    same('the printed title', await page.locator(id('print-title')).textContent(), 'Cup of the Volga 2026');
    return;
  }

  step('the panel loads: its weight');
  // Every response's body but the lane's event stream, which never ends.
  const sizes = [];
  let requests = 0;
  const stream = (r) => new URL(r.url()).pathname === '/api/events';
  page.on('request', (r) => { if (!stream(r)) requests++; });
  page.on('response', async (r) => {
    if (!stream(r)) sizes.push([new URL(r.url()).pathname, (await r.body()).length]);
  });
  await page.goto(url);
  await page.waitForSelector(id('lane-table'));
  await shows('connection', 'Связь есть');
  await until('every response read', async () => sizes.length === requests && sizes.some(([p]) => p === '/api/session'));
  const weight = sizes.reduce((a, [, n]) => a + n, 0);
  console.error(`page weight: ${weight} bytes (${(weight / 1024).toFixed(1)} KB) in ${sizes.length} responses: ${sizes.map(([p, n]) => `${p} ${n}`).join(', ')}`);
  if (weight >= 150 * 1024) throw new Error(`the page weighs ${weight} bytes`);
  same('the address of the first tab', new URL(page.url()).hash, '#lane');

  step('four bowlers in two teams; the block starts');
  await login();
  await post({ ev: 'lineup', bowlers: [
    { name: NAMES[0], class: 'B3', handicap: 12, team: 'Kazan' },
    { name: NAMES[1], class: 'B2', handicap: 8, team: 'Kazan' },
    { name: NAMES[2], class: 'B3', team: 'Ufa' },
    { name: NAMES[3], class: 'B3', team: 'Ufa' },
  ] });
  await post({ ev: 'start_block', games: 2 });
  await page.waitForSelector(id('frame-3-1-10'));
  await shows('up-now', NAMES[0]);
  // Every frame cell's width, row by row.
  const widths = () => page.evaluate(() => [0, 1, 2, 3].map((b) => [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((f) =>
    Math.round(document.querySelector(`[data-testid="frame-${b}-1-${f}"]`).getBoundingClientRect().width * 10) / 10)));
  await page.setViewportSize({ width: 1280, height: 800 });
  const before = await widths();
  for (const row of before) {
    if (new Set(row.slice(0, 9)).size !== 1 || !(row[9] > row[0])) throw new Error(`frames 1-9 differ or the 10th is not wider: ${row}`);
  }

  step('frame 1 of every bowler from the pinsetter');
  const ball = async (mask, name, frame, n) => {
    await pinsetter('BALL', mask);
    await until(`${name}'s ball ${frame}.${n} on the server`, async () => (frameOf(await lane(), name, frame)?.balls.length || 0) >= n);
    await page.waitForSelector(id(`ball-${bi(await lane(), name)}-1-${frame}-${n}`));
  };
  const second = async (deck, mask, name, frame) => {
    await pinsetter('READY', deck);
    await pinsetter('PINS', mask);
    await until(`${name}'s ball ${frame}.2 on the server`, async () => (frameOf(await lane(), name, frame)?.balls.length || 0) >= 2);
    await page.waitForSelector(id(`ball-${bi(await lane(), name)}-1-${frame}-2`));
  };
  await ball('0000000001', NAMES[0], 1, 1); // 9, the 10 pin stands
  step('an open frame shows no total, nor a handicap added to nothing');
  const cum = (b, f) => page.locator(`${id(`frame-${b}-1-${f}`)} .cum .n`).textContent();
  same('Anna\'s frame 1 total while it is open', await cum(0, 1), '');
  same('Anna\'s game total while frame 1 is open', await text('total-0-1'), '');
  same('a handicap total while nothing is settled', await page.locator(id('total-hd-0-1')).count(), 0);
  await second('0000000001', '0000000000', NAMES[0], 1); // spare: waits for a bonus ball
  same('Anna\'s frame 1 total after a spare, before its bonus ball', await cum(0, 1), '');
  await ball('0000000000', NAMES[1], 1, 1); // strike
  await ball('0000000111', NAMES[2], 1, 1); // 7
  await second('0000000111', '0000000001', NAMES[2], 1); // 9, open: settled at once
  await ball('0000001111', NAMES[3], 1, 1); // 6
  await second('0000001111', '0000001000', NAMES[3], 1); // 9
  step('Anna\'s next ball settles her frame 1: the totals are the lane\'s');
  await ball('0000000011', NAMES[0], 2, 1); // 8: the spare's bonus
  let l = await lane();
  for (const [b, name] of NAMES.entries()) {
    const g = l.bowlers[b].games[0];
    const settled = g.frames.filter((f) => f.cumulative !== null);
    await page.waitForFunction(([s, w]) => document.querySelector(s)?.textContent === w, [id(`total-${b}-1`), settled.length ? String(g.total) : '']);
    for (const f of g.frames) same(`${name}'s frame ${f.frame} total`, await cum(b, f.frame), f.cumulative === null ? '' : String(f.cumulative));
  }
  same('the lane\'s frame 1 of Anna', [frameOf(l, NAMES[0], 1).cumulative, l.bowlers[0].games[0].total], [18, 18]);
  const withH = await text('total-hd-0-1');
  if (!/\+12 = 30$/.test(withH.trim())) throw new Error(`Anna's total with handicap: ${withH}`);
  same('Boris\'s strike waits for its bonus balls', [await cum(1, 1), await text('total-1-1')], ['', '']);
  same('the frame cells keep their width', await widths(), before);

  step('team totals are the sums of the lane\'s');
  for (const team of ['Kazan', 'Ufa']) {
    const members = l.bowlers.filter((b) => b.team === team);
    const row = page.locator(id(`team-${team}`));
    same(`${team}'s game total`, await row.locator('.tg').textContent(), String(members.reduce((a, b) => a + b.games[0].total, 0)));
    same(`${team}'s series`, await row.locator('.ts').textContent(), String(members.reduce((a, b) => a + b.series, 0)));
  }
  step('a team\'s series with handicap adds its members\' own, as every export gives them');
  const settledAny = (b) => b.games.some((g) => g.frames.some((f) => f.cumulative !== null));
  for (const team of ['Kazan', 'Ufa']) {
    const members = l.bowlers.filter((b) => b.team === team && settledAny(b));
    if (!members.some((b) => b.handicap)) continue;
    const shown = await page.locator(id(`team-${team}`)).locator('td').last().locator('.hd').textContent();
    const want = members.reduce((a, b) => a + b.series_with_handicap, 0);
    if (!shown.endsWith(' ' + want)) throw new Error(`${team}'s series with handicap: ${shown}, the lane's ${want}`);
  }

  step('every bowler\'s current frame and the ball up are in sight without scrolling');
  for (const [w, h] of [[1280, 800], [800, 1280]]) {
    await page.setViewportSize({ width: w, height: h });
    l = await lane();
    const cells = l.bowlers.map((b, i) => {
      const up = l.up.bowler === b.name;
      const last = b.games[0]?.frames.length ? b.games[0].frames[b.games[0].frames.length - 1].frame : 1;
      return `frame-${i}-1-${up ? l.up.frame : last}`;
    });
    for (const sel of [...cells.map(id), id('ball-up'), id('up-now'), id('tab-history')]) {
      const v = await inView(sel);
      if (v !== true) throw new Error(`at ${w}×${h}, out of sight: ${v}`);
    }
    const [sh, ih, sw, iw] = await noScroll();
    if (sh > ih || sw > iw) {
      await page.screenshot({ path: join(shots, `lane-scrolls-${w}x${h}.png`), fullPage: true });
      throw new Error(`at ${w}×${h} the page scrolls: ${sw}×${sh}`);
    }
    same(`the ball up at ${w}×${h}`, await page.locator(`${id(`frame-0-1-2`)} ${id('ball-up')}`).count(), 1);
  }

  step('on an assistant\'s tablet (nobody logged in, the login form shown), the same');
  {
    const ctx = await page.context().browser().newContext();
    const ro = await ctx.newPage();
    await ro.goto(page.url());
    await ro.locator(id('login-pin')).waitFor();
    for (const [w, h] of [[1280, 800], [800, 1280]]) {
      await ro.setViewportSize({ width: w, height: h });
      await ro.locator(id('ball-up')).waitFor();
      const out = await ro.evaluate(([sels]) => sels.map((s) => {
        const el = document.querySelector(s);
        const r = el && el.getBoundingClientRect();
        return r && r.width > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth ? null : s;
      }).filter(Boolean), [l.bowlers.map((b, i) => id(`frame-${i}-1-1`)).concat([id('ball-up'), id('login-pin')])]);
      const [sh, ih, sw, iw] = await ro.evaluate(() => [document.documentElement.scrollHeight, innerHeight, document.documentElement.scrollWidth, innerWidth]);
      if (out.length || sh > ih || sw > iw) {
        await ro.screenshot({ path: join(shots, `lane-readonly-scrolls-${w}x${h}.png`), fullPage: true });
        throw new Error(`read-only at ${w}×${h}: out of sight ${JSON.stringify(out)}, page ${sw}×${sh}`);
      }
      await ro.screenshot({ path: join(shots, `lane-readonly-${w}x${h}.png`) });
    }
    await ctx.close();
  }

  step('screenshots in both languages and themes; no text left in the other language');
  for (const [w, h] of [[1280, 800], [800, 1280]]) {
    await page.setViewportSize({ width: w, height: h });
    for (const lang of ['ru', 'en']) {
      const shown = await page.evaluate(() => document.documentElement.lang);
      if (shown !== lang) await page.click(id('lang-toggle'));
      await page.waitForFunction((want) => document.documentElement.lang === want, lang);
      const all = await page.evaluate(() => document.body.innerText);
      if (lang === 'en') {
        const left = all.replace('Русский', '');
        if (CYRILLIC.test(left)) throw new Error(`Russian left on the English screen: ${left.match(/.*[А-Яа-яЁё].*/)[0]}`);
      } else {
        const left = ENGLISH.filter((x) => all.includes(x));
        if (left.length) throw new Error(`English left on the Russian screen: ${left}`);
      }
      for (const theme of ['light', 'dark']) {
        const dark = await page.evaluate(() => document.documentElement.classList.contains('dark'));
        if (dark !== (theme === 'dark')) await page.click(id('theme-toggle'));
        await page.mouse.move(0, 0);
        await page.evaluate(() => document.activeElement?.blur());
        await shot(`lane-${w}x${h}-${lang}-${theme}`);
      }
    }
    await page.click(id('theme-toggle'));
    await page.click(id('lang-toggle'));
  }
  await page.waitForFunction(() => document.documentElement.lang === 'ru' && !document.documentElement.classList.contains('dark'));

  step('the pin pad while the pinsetter sends asks first');
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.click(id('pad-toggle'));
  await page.waitForSelector(id('pad'));
  const asked = [];
  page.once('dialog', (d) => { asked.push(d.message()); d.dismiss(); });
  await page.click(id('pad-pin-10'));
  await page.click(id('pad-record'));
  await until('the confirmation', async () => asked.length === 1);
  if (!asked[0].includes('Пинсеттер на связи') || !asked[0].includes(NAMES[0])) throw new Error(`the confirmation says: ${asked[0]}`);
  same('nothing recorded after the confirmation is declined', frameOf(await lane(), NAMES[0], 2).balls.length, 1);
  await page.click(id('pad-toggle'));
  await page.waitForSelector(id('pad'), { state: 'detached' });

  step('tabs: one panel at a time, the address says which, reload keeps it, Back goes back');
  const visible = () => page.evaluate(() => [...document.querySelectorAll('[role="tabpanel"]')].filter((p) => !p.hidden).map((p) => p.id));
  await page.click(id('tab-order'));
  same('panels shown after the order tab', await visible(), ['panel-order']);
  same('the address', new URL(page.url()).hash, '#order');
  same('the order tab selected', await page.getAttribute(id('tab-order'), 'aria-selected'), 'true');
  await page.reload();
  await page.waitForSelector(id('lineup-locked'));
  same('panels shown after reloading', await visible(), ['panel-order']);
  await page.click(id('tab-judge'));
  same('the address', new URL(page.url()).hash, '#judge');
  await page.goBack();
  await page.waitForSelector(id('lineup-locked'));
  same('panels shown after Back', await visible(), ['panel-order']);
  await page.goBack();
  await page.waitForSelector(id('lane-table'));
  same('panels shown after Back again', await visible(), ['panel-lane']);
  same('the address', new URL(page.url()).hash, '#lane');
  await page.focus(id('tab-lane'));
  await page.keyboard.press('ArrowRight');
  same('the arrow key moves to the next tab', [new URL(page.url()).hash, await page.evaluate(() => document.activeElement.id)], ['#order', 'tab-order']);

  step('a penalty is confirmed on screen and undone');
  await page.click(id('tab-judge'));
  await page.selectOption(id('penalty-bowler'), NAMES[1]);
  await page.fill(id('penalty-reason'), 'unsporting conduct');
  await page.click(id('penalty-submit'));
  await shows('toast', `Штраф для ${NAMES[1]} записан`);
  const penalty = async () => (await lane()).conduct.filter((c) => c.kind === 'penalty' && c.bowler === NAMES[1]);
  same('the penalty on the server', (await penalty()).map((c) => !!c.withdrawn), [false]);
  await page.click(id('toast-undo'));
  await until('the penalty withdrawn on the server', async () => (await penalty()).every((c) => c.withdrawn === true));
  await shows('toast', `Штраф для ${NAMES[1]} отменён`);
  same('no Undo of an undo', await page.locator(id('toast-undo')).count(), 0);

  step('the printed sheet');
  await page.click(id('tab-lane'));
  await page.evaluate(() => { window.print = () => { window.printed = (window.printed || 0) + 1; }; });
  await page.click(id('print-lane'));
  same('printed', await page.evaluate(() => window.printed), 1);
  await page.emulateMedia({ media: 'print' });
  const sheet = await page.locator(id('print-sheet')).innerText();
  const session = await (await page.request.get(api('/api/session'))).json();
  const bowled = await lane();
  const on = `Дата игры: ${dateOnLane(bowled, bowled.blocks[0].started_at)}`;
  for (const want of [session.event || 'Протокол', on, 'Дорожка 5', 'Блок 1', ...NAMES, 'Kazan', 'Ufa', 'Серия', 'Гандикап 12', 'Главный судья дорожки']) {
    if (!sheet.includes(want)) throw new Error(`the printed sheet lacks ${want}:\n${sheet}`);
  }
  same('signature lines', (sheet.match(/Подпись/g) || []).length, 3);
  // Paper has no tap: the marks it draws are explained under it, drawn
  // as it draws them (the ball in play and the ball up are not on paper).
  same('the printed legend', await page.evaluate(() => [...document.querySelectorAll('[data-testid="print-legend-list"] li')]
    .map((li) => [li.querySelector('.legend-mark').textContent, li.querySelector('.legend-mark .ball').className, li.querySelector('.legend-text').textContent])), [
    ['X', 'ball mark', 'страйк: все 10 кеглей сбиты первым броском фрейма'],
    ['/', 'ball mark', 'спэр: вторым броском сбиты все оставшиеся кегли'],
    ['-', 'ball', 'ни одной кегли не сбито'],
    ['7', 'ball', 'число: столько кеглей сбито'],
    ['F', 'ball foul', 'фол: заступ за линию фола, кегли не засчитаны'],
    ['-*', 'ball wrong-deck', 'звёздочка: бросок при неверной расстановке; судья принимает его или объявляет недействительным'],
    ['7', 'ball split', 'в кружке: сплит'],
  ]);
  const hidden = await page.evaluate(() => ['top', 'main'].map((x) => getComputedStyle(document.getElementById(x)).display));
  same('nothing but the sheet in print', hidden, ['none', 'none']);
  await page.screenshot({ path: join(shots, 'lane-print.png'), fullPage: true });
  await page.emulateMedia({ media: 'screen' });
}, { contextOptions: padMode ? {} : { viewport: { width: 1280, height: 800 } } });

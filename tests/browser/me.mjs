// The bowler's phone (/me) in headless Chromium: node me.mjs URL PIN SCREENSHOT_DIR
//
// A judge sets two bowlers (Anna K. with English callouts, Boris with the
// lane's Russian) and starts a block through the API; the pinsetter's
// balls come from the test harness. The live region must say exactly the
// lane's callout for the chosen bowler's own balls and nothing else.
// Exits non-zero on the first failed step.
import { join } from 'node:path';
import { url, shots, id, same, run, standInEventStream, WAIT_MS } from './harness.mjs';
import { judge, order, weight, contrasts, panelWords, calloutIn } from './lane-api.mjs';

await run(async ({ page, api, shot, step, lane, until }) => {
  const j = judge(page, api, lane);
  const me = (hash = '') => new URL('me' + hash, url).href;
  const i18n = await panelWords();
  const text = (name) => page.locator(id(name)).textContent();
  const live = () => text('me-live');
  // The lane's latest callout for `who`, as the page must say it.
  const latestCallout = async (who, lang) => {
    const c = (await lane()).callouts.filter((x) => x.bowler === who).pop();
    return calloutIn(i18n, lang, c);
  };
  const says = async (name, want) => {
    await page.waitForFunction(([sel, w]) => document.querySelector(sel)?.textContent === w, [id(name), want])
      .catch(async () => same(`${name} says`, await text(name), want));
  };
  // Every text the live region was given since the page loaded.
  const heard = () => page.evaluate(() => window.heard);
  // (One observer a page: listening again starts a new list.)
  const listen = () => page.evaluate(() => {
    window.heard = [];
    if (window.listening) return;
    window.listening = true;
    const el = document.querySelector('[data-testid="me-live"]');
    new MutationObserver(() => { if (el.textContent) window.heard.push(el.textContent); })
      .observe(el, { childList: true, characterData: true, subtree: true });
  });
  // The score the lane's sheet gives `who`: the last settled frame of the
  // current game and the total through it.
  const scoreOf = async (who, lang) => {
    const b = order(await lane()).find((x) => x.name === who);
    const g = b.games[b.games.length - 1];
    const f = g.frames.filter((x) => x.cumulative !== null).pop();
    return (lang === 'en' ? 'Frame ' : 'Фрейм ') + f.frame + ', ' + f.cumulative;
  };
  // Nothing wider than the screen, every button at least 48 px.
  const noSideScroll = async (p, what) => {
    const m = await p.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      width: window.innerWidth,
      small: [...document.querySelectorAll('button')].filter((b) => b.offsetParent)
        .map((b) => b.getBoundingClientRect()).filter((r) => r.width < 48 || r.height < 48).length,
    }));
    if (m.scroll > m.width) throw new Error(`${what}: ${m.scroll} px wide on a ${m.width} px screen`);
    if (m.small) throw new Error(`${what}: ${m.small} buttons smaller than 48 px`);
  };

  step('a judge sets Anna K. (English) and Boris (the lane\'s language) and starts a block');
  await j.login();
  await j.start([{ name: 'Anna K.', class: 'B2', lang: 'en' }, { name: 'Boris', class: 'B3' }], 1);
  const laneLang = (await lane()).speaker_language;
  same('the lane\'s language', laneLang, 'ru');

  step('the phone lists the lane order, in the lane\'s language');
  await page.context().clearCookies();
  await page.setViewportSize({ width: 360, height: 740 });
  await page.goto(me());
  await page.waitForSelector(id('me-pick-1'));
  const w = await weight(page);
  console.error(`me page weight: ${w.total} bytes (${w.files.map(([f, b]) => `${f} ${b}`).join(', ')})`);
  if (!(w.total > 0 && w.total < 150 * 1024)) throw new Error(`the phone page weighs ${w.total} bytes`);
  same('the names to pick', await page.locator('[data-testid="me-names"] button').allTextContents(),
    order(await lane()).map((b) => b.name));
  same('the page language', await page.evaluate(() => document.documentElement.lang), 'ru');
  same('the headings', await page.locator('h1:visible').allTextContents(), ['Кто вы?']);
  await noSideScroll(page, 'the list');
  await shot('me-list');

  step('Anna K. picks her name: kept in the URL and the browser, the page in English');
  await page.click(id('me-pick-0'));
  await says('me-name', 'Anna K.');
  same('the URL', new URL(page.url()).hash, '#Anna%20K.');
  same('what the browser keeps', await page.evaluate(() => localStorage.getItem('lanecall.me')), 'Anna K.');
  same('the page language', await page.evaluate(() => document.documentElement.lang), 'en');
  same('the focus', await page.evaluate(() => document.activeElement.id), 'me-h');
  same('the live regions', [await page.locator(id('me-live')).getAttribute('aria-live'),
    await page.locator(id('me-score')).getAttribute('aria-live')], ['polite', 'polite']);
  same('what the live region says before a ball', await live(), '');
  await listen();

  step('her first ball: the live region says the lane\'s callout for it');
  await j.bowl([7, 10]);
  const first = await latestCallout('Anna K.', 'en');
  await says('me-live', first);
  same('the callout', first, '7, 10');

  step('her second ball: the callout for it');
  await j.bowl([10]);
  const second = await latestCallout('Anna K.', 'en');
  await says('me-live', second);
  same('the callout', second, '10, right side');

  step('Boris\'s ball: the live region is unchanged');
  await j.bowl([]);
  await until('Boris\'s callout on the lane', async () => (await lane()).callouts.some((c) => c.bowler === 'Boris'));
  // The page has the lane after his ball when it says she is up again.
  await says('me-turn', 'Your turn: frame 2, ball 1');
  same('what the live region says', await live(), second);
  same('everything the live region said', await heard(), [first, second]);

  step('"My score" says the score of the lane\'s sheet, in its own region');
  await page.click(id('me-score-btn'));
  const score = await scoreOf('Anna K.', 'en');
  await says('me-score', score);
  same('the score', score, 'Frame 1, 9');
  same('everything the live region said', await heard(), [first, second]);
  await shot('me-bowler');

  step('a reload keeps Anna K. and says nothing old');
  await page.reload();
  await says('me-name', 'Anna K.');
  await says('me-turn', 'Your turn: frame 2, ball 1');
  same('what the live region says after the reload', await live(), '');
  same('what the score region says after the reload', await text('me-score'), '');
  await listen();
  await j.bowl([1, 2, 4]);
  const third = await latestCallout('Anna K.', 'en');
  await says('me-live', third);
  same('everything the live region said after the reload', await heard(), [third]);

  step('"Not me": back to the list; Boris picks his name and hears Russian');
  await page.click(id('me-not-me'));
  await page.waitForSelector(id('me-pick-1'));
  same('the URL', new URL(page.url()).hash, '');
  same('what the browser keeps', await page.evaluate(() => localStorage.getItem('lanecall.me')), null);
  same('the focus', await page.evaluate(() => document.activeElement.id), 'pick-h');
  await page.click(id('me-pick-1'));
  await says('me-name', 'Boris');
  same('the URL', new URL(page.url()).hash, '#Boris');
  same('the page language', await page.evaluate(() => document.documentElement.lang), 'ru');
  await listen();
  await j.bowl([]); // Anna's spare: not his
  await says('me-turn', 'Ваша очередь: фрейм 2, бросок 1');
  same('what the live region says after her ball', await live(), '');
  await j.bowl([4, 7, 8]);
  const his = await latestCallout('Boris', 'ru');
  same('his callout', his, '4, 7, 8, ' + (i18n.setLang('ru'), i18n.t('w_left_side')));
  await says('me-live', his);
  same('everything the live region said', await heard(), [his]);

  step('the stream drops and comes back: nothing old is said again, only a new ball');
  const served = await lane();
  await standInEventStream(page);
  await page.reload();
  await says('me-name', 'Boris');
  await page.waitForFunction(() => window.laneEvents);
  // Every change of the live region, its emptying before a new text too.
  await page.evaluate(() => {
    window.changes = [];
    const el = document.querySelector('[data-testid="me-live"]');
    new MutationObserver(() => window.changes.push(el.textContent))
      .observe(el, { childList: true, characterData: true, subtree: true });
  });
  const push = (l) => page.evaluate((x) => window.laneEvents.dispatchEvent(
    new MessageEvent('lane', { data: JSON.stringify(x) })), l);
  const withBall = (l, words) => ({ ...l, callouts: [...l.callouts,
    { t: l.callouts[l.callouts.length - 1].t + 1000, bowler: 'Boris', standing: [], words, text: words.join(', ') }] });
  await push(served);
  const one = withBall(served, ['strike']);
  await push(one);
  await says('me-live', calloutIn(i18n, 'ru', one.callouts[one.callouts.length - 1]));
  await page.evaluate(() => window.laneEvents.onerror(new Event('error')));
  await page.waitForSelector(id('me-conn'), { state: 'visible' });
  same('the connection alert', await text('me-conn'), 'СВЯЗЬ ПОТЕРЯНА — переподключение…');
  await push(one);
  await page.waitForSelector(id('me-conn'), { state: 'hidden' });
  const two = withBall(one, ['spare']);
  await push(two);
  const spare = calloutIn(i18n, 'ru', two.callouts[two.callouts.length - 1]);
  await says('me-live', spare);
  same('every change of the live region', await page.evaluate(() => window.changes), ['страйк', '', spare]);

  step('the text is at least 7:1 against its background');
  const got = await contrasts(page, ['body', '[data-testid="me-live"]', '#turn', '#live-hint', '[data-testid="me-score-btn"]', '[data-testid="me-not-me"]', '[data-testid="me-lane"]', '[data-testid="me-lang"]']);
  const low = got.filter(([, r]) => r === null || r < 7);
  if (low.length) throw new Error(`contrast below 7:1: ${JSON.stringify(low)}`);

  step('?lang=en: Boris (the lane\'s Russian) reads the page in English; a tap on the switch, Russian, kept in the URL');
  const words = () => page.evaluate(() => [document.documentElement.lang,
    ...['lang-toggle', 'last-h', 'score-btn', 'not-me'].map((x) => document.getElementById(x)?.textContent)]);
  await page.goto(new URL('me?lang=en#Boris', url).href);
  await says('me-name', 'Boris');
  await page.waitForFunction(() => document.getElementById('turn').textContent);
  same('the page from ?lang=en', await words(), ['en', 'Русский', 'Your last ball', 'My score', 'Not me']);
  same('the switch names its language', await page.getAttribute(id('me-lang'), 'lang'), 'ru');
  await page.click(id('me-score-btn'));
  // His strike waits for its bonus balls: nothing settled yet.
  same('Boris\'s settled frames', order(await lane()).find((b) => b.name === 'Boris').games[0].frames.filter((f) => f.cumulative !== null), []);
  await says('me-score', 'No frame scored yet');
  await page.click(id('me-lang'));
  await page.waitForFunction(() => document.documentElement.lang === 'ru');
  same('the page after a tap on the switch', await words(), ['ru', 'English', 'Ваш последний бросок', 'Мой счёт', 'Это не я']);
  same('what the score region says after the switch', await text('me-score'), '');
  same('the URL after the switch', [new URL(page.url()).searchParams.get('lang'), new URL(page.url()).hash], ['ru', '#Boris']);
  await page.reload();
  await says('me-name', 'Boris');
  same('the page after a reload', await words(), ['ru', 'English', 'Ваш последний бросок', 'Мой счёт', 'Это не я']);
  await page.goto(new URL('me?lang=ru#Anna%20K.', url).href);
  await says('me-name', 'Anna K.');
  same('Anna K. (English) with ?lang=ru', await words(), ['ru', 'English', 'Ваш последний бросок', 'Мой счёт', 'Это не я']);
  await page.click(id('me-not-me'));
  await page.waitForSelector(id('me-pick-1'));
  same('the list keeps the language', [await page.locator('h1:visible').allTextContents(), new URL(page.url()).search], [['Кто вы?'], '?lang=ru']);
  await noSideScroll(page, 'the list with the switch');

  step('at 320 px and 400 % zoom with large text nothing scrolls sideways');
  const phone = await page.context().browser().newContext({ viewport: { width: 320, height: 640 }, deviceScaleFactor: 4 });
  const small = await phone.newPage();
  small.setDefaultTimeout(WAIT_MS);
  await small.goto(me());
  await small.waitForSelector(id('me-pick-1'));
  const h1px = () => small.evaluate(() => parseFloat(getComputedStyle(document.getElementById('pick-h')).fontSize));
  const before = await h1px();
  // Large text: the root font size doubled (CSSOM, which the page's
  // Content-Security-Policy allows).
  await small.evaluate(() => { document.documentElement.style.fontSize = '200%'; });
  same('the heading\'s size at 200 % text', await h1px(), before * 2);
  try {
    await noSideScroll(small, 'the list at 400 %');
    await small.screenshot({ path: join(shots, 'me-list-400.png'), fullPage: true });
    await small.click(id('me-pick-1'));
    await small.waitForFunction((sel) => document.querySelector(sel)?.textContent === 'Boris', id('me-name'));
    await small.click(id('me-score-btn'));
    await small.waitForFunction((sel) => document.querySelector(sel)?.textContent, id('me-score'));
    await noSideScroll(small, 'Boris\'s page at 400 %');
    await small.screenshot({ path: join(shots, 'me-bowler-400.png'), fullPage: true });
  } finally {
    await phone.close();
  }
});

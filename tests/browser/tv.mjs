// The TV (/tv) on a 1920×1080 screen with 20 lanes and two categories:
// lane 1 online with two bowlers, the others silent: never taller or
// wider than the screen, 3 × 2 cards paged ("1/4") by
// `window.tvNext()`, by `?page=N` and by itself every `?interval` ms, the
// cards not rebuilt when a poll brings nothing new, `?lang=`. The doubles
// (bowled) have their card; the round robin and the step-ladder theirs once
// they have games; a long Cyrillic surname is whole on its lane's card.
// Then the director's page in Russian: a refused entry change is said in
// Russian.
// Arguments: URL PIN SCREENSHOT_DIR.
import { run, url, pin, id, same, WAIT_MS } from './harness.mjs';

await run(async ({ page, shot, step, api }) => {
  const standings = await (await page.request.get(api('/api/standings'))).json();
  const open = async (query) => {
    await page.goto(new URL('/tv?' + query, url).href);
    await page.locator('body[data-ready="true"]').waitFor({ state: 'attached' });
  };
  const shown = () => page.locator('#board .tv-card:not(.empty)').evaluateAll((cs) => cs.map((c) => c.dataset.testid));
  const fits = () => page.evaluate(() => {
    const d = document.documentElement;
    const out = [...document.querySelectorAll('.tv-card')].filter((c) => c.getBoundingClientRect().bottom > innerHeight);
    return [d.scrollHeight, d.scrollWidth, document.body.scrollHeight, out.length];
  });

  step('page 1 of 4 in English, within 1920×1080');
  await open('lang=en&interval=0');
  same('the page indicator', await page.locator(id('tv-page')).innerText(), '1/4');
  same('the title', await page.locator('#title').innerText(), 'Moscow Open, ten-pin bowling for the blind');
  same('page 1', await shown(), ['category-B1-1', 'category-B2-1', 'team-doubles-1', 'lane-1', 'lane-2', 'lane-3']);
  same('heights, widths, cards below the screen', await fits(), [1080, 1920, 1080, 0]);
  const b1 = page.locator(id('category-B1-1'));
  same('B1 on the TV', [await b1.locator('h2').innerText(), ...(await b1.locator('li').evaluateAll((ls) => ls.map((l) => l.textContent)))],
    ['B1 men and women', ...standings.categories[0].entries.map((e) => (e.rank === null
      ? `–${e.name} (${e.mark}) — ${e.total}` : `${e.rank}.${e.name} — ${e.total}`))]);
  // The protocol's test withdrew Olga: last, with no rank, marked.
  same('Olga on the TV', await b1.locator('li').last().evaluate((l) => [l.textContent, l.dataset.mark]),
    ['–Olga Smirnova (withdrawn) — ' + standings.categories[0].entries.find((e) => e.name === 'Olga Smirnova').total, 'withdrawn']);
  await page.locator(id('lane-3')).getByText('Lane 3').waitFor();
  const doubles = standings.teams.find((ev) => ev.event === 'doubles');
  same('the doubles on the TV', await page.locator(id('team-doubles-1')).locator('li').evaluateAll((ls) => ls.map((l) => l.textContent)),
    doubles.entries.map((e) => `${e.rank}.${e.name} — ${e.total}`));
  // Lane 1 is online, Olga up: its bowlers and series (the lane's state).
  const one = page.locator(id('lane-1'));
  same('lane 1', [await one.getAttribute('class'), await one.locator('li').evaluateAll((ls) => ls.map((l) => [l.textContent, l.className]))],
    ['tv-card lane', [['Anna Kuznetsova — 173', ''], ['Olga Smirnova — 150', 'up']]]);
  same('lane 2, offline', await page.locator(id('lane-2')).getAttribute('class'), 'tv-card lane off');
  const size = await page.locator(id('lane-1')).locator('h2').evaluate((e) => parseFloat(getComputedStyle(e).fontSize));
  if (size < 40) throw new Error(`a card's title is ${size}px: not large type`);
  await shot('centre-tv-1920');

  step('a poll that brings nothing new leaves the cards as they are');
  const polls = await page.evaluate(() => {
    window.firstCard = document.querySelector('#board .tv-card h2');
    return Number(document.body.dataset.polls);
  });
  await page.waitForFunction((n) => Number(document.body.dataset.polls) >= n + 2, polls, { timeout: WAIT_MS });
  same('the same title element after two polls', await page.evaluate(() => document.querySelector('#board .tv-card h2') === window.firstCard), true);

  step('the next page: other lanes');
  same('tvNext', await page.evaluate(() => window.tvNext()), 2);
  same('the page indicator', await page.locator(id('tv-page')).innerText(), '2/4');
  same('page 2', await shown(), ['lane-4', 'lane-5', 'lane-6', 'lane-7', 'lane-8', 'lane-9']);
  same('heights, widths, cards below the screen', await fits(), [1080, 1920, 1080, 0]);
  await page.evaluate(() => window.tvNext());
  same('page 3', await shown(), ['lane-10', 'lane-11', 'lane-12', 'lane-13', 'lane-14', 'lane-15']);
  same('tvNext', await page.evaluate(() => window.tvNext()), 4);
  same('page 4', await shown(), ['lane-16', 'lane-17', 'lane-18', 'lane-19', 'lane-20']);
  same('after the last, the first', await page.evaluate(() => window.tvNext()), 1);

  step('?page=4 starts on page 4');
  await open('lang=en&interval=0&page=4');
  same('the page indicator', await page.locator(id('tv-page')).innerText(), '4/4');
  same('page 4', await shown(), ['lane-16', 'lane-17', 'lane-18', 'lane-19', 'lane-20']);

  step('it pages by itself');
  await open('lang=en&interval=200');
  await page.locator(id('tv-page')).getByText('2/4').waitFor();
  await page.locator(id('tv-page')).getByText('3/4').waitFor();

  step('?lang=ru: Russian');
  await open('lang=ru&interval=0');
  same('the title', await page.locator('#title').innerText(), 'Открытый чемпионат Москвы по боулингу, спорт слепых');
  same('titles', await page.locator('#board .tv-card h2').allInnerTexts(), ['B1 мужчины и женщины', 'B2 мужчины и женщины',
    'Пары · doubles', 'Дорожка 1', 'Дорожка 2', 'Дорожка 3']);
  same('heights, widths, cards below the screen', await fits(), [1080, 1920, 1080, 0]);
  same('no round robin before it has a game', await page.locator('[data-testid^="rr-"]').count(), 0);

  step('in Russian, a long Cyrillic surname is whole on its lane\'s card');
  const LONG = 'Константинопольская Александра';
  await page.route('**/api/lanes', async (route) => {
    const res = await route.fetch();
    const lanes = await res.json();
    const one = lanes.find((l) => l.lane === 1);
    if (one && one.state && one.state.bowlers && one.state.bowlers[0]) one.state.bowlers[0].name = LONG;
    await route.fulfill({ response: res, json: lanes });
  });
  // The round robin and the step-ladder as they are once bowled: the
  // centre's own standings, their games filled in.
  await page.route('**/api/standings', async (route) => {
    const res = await route.fetch();
    const st = await res.json();
    const rr = [['Anna Kuznetsova', 2, 0], ['Ivan Petrov', 1, 0], ['Dmitri Orlov', 0, 0]]
      .map(([name, wins, ties], i) => ({ rank: i + 1, name, preliminary: 300 - i, games: [180, 170], scratch: 350, handicap: 0,
        women_pins: 0, pins: 350, wins, ties, bonus: wins * 20, total: 650 - i * 30 }));
    st.finals = { B1: { round_robin: rr, round_robin_complete: true,
      step_ladder: { matches: [{ round: 1, a: 'Dmitri Orlov', b: 'Ivan Petrov', a_score: 201, b_score: 187, winner: 'Dmitri Orlov', complete: true }], places: [] } } };
    await route.fulfill({ response: res, json: st });
  });
  await open('lang=ru&interval=0');
  await page.locator(id('rr-B1-1')).waitFor();
  const lane = page.locator(id('lane-1'));
  await lane.getByText(LONG).waitFor();
  same('the surname whole and not cut', await lane.locator('.who').first().evaluate((w) => [w.textContent, w.scrollWidth <= w.clientWidth]),
    [LONG, true]);
  same('the round robin', [await page.locator(id('rr-B1-1')).locator('h2').innerText(),
    ...(await page.locator(id('rr-B1-1')).locator('li').evaluateAll((ls) => ls.map((l) => l.textContent)))],
    ['Круговой турнир, B1 мужчины и женщины', '1.Anna KuznetsovaП2 — 650', '2.Ivan PetrovП1 — 620', '3.Dmitri OrlovП0 — 590']);
  same('the step-ladder', [await page.locator(id('ladder-B1-1')).locator('h2').innerText(),
    ...(await page.locator(id('ladder-B1-1')).locator('li').evaluateAll((ls) => ls.map((l) => l.textContent)))],
    ['Степ-лэддер, B1 мужчины и женщины', '1)Dmitri Orlov — Ivan Petrov — 201:187']);
  same('heights, widths, cards below the screen', await fits(), [1080, 1920, 1080, 0]);
  await shot('centre-tv-finals-ru');
  await page.unroute('**/api/lanes');
  await page.unroute('**/api/standings');

  step('the director\'s page in Russian: a refused entry change is said in Russian');
  await page.goto(url);
  await page.evaluate(() => localStorage.setItem('lang', 'ru'));
  await page.goto(url);
  await page.getByLabel('ПИН', { exact: true }).fill(pin);
  await page.getByRole('button', { name: 'Войти' }).click();
  await page.click('#tab-entries');
  await page.getByRole('button', { name: 'Изменить: Anna Kuznetsova' }).click();
  await page.locator('#entry-name').fill('Ivan Petrov');
  await page.getByRole('button', { name: 'Сохранить: Anna Kuznetsova' }).click();
  await page.locator('#entries-problems').getByText('«Ivan Petrov» — другой участник', { exact: false }).waitFor();
  same('the refusal in Russian', await page.locator('#entries-problems').innerText(),
    '«Ivan Petrov» — другой участник: имя принадлежит одному участнику (сначала снимите или удалите ту запись)');
}, { contextOptions: { viewport: { width: 1920, height: 1080 } } });

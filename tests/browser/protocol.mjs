// The results protocol (/protocol) in a real browser: the example
// programme's heading in both languages, a section per category and event
// with the API's numbers, the finals, the signature lines; printed to an A4
// PDF, nothing wider than the page and no table row split; then the
// director's page's separate links; the CSV for Excel (a byte order mark,
// `;`, the finals) and the start list from the page's links; a bowler
// withdrawn: no rank, last, marked. Arguments: URL PIN SCREENSHOT_DIR.
import { run, url, pin, shots, id, same } from './harness.mjs';
import { printA4, missing } from './print.mjs';

await run(async ({ page, shot, step, api }) => {
  const standings = await (await page.request.get(api('/api/standings'))).json();
  // A line's games as the protocol shows them: a game in progress starred.
  const games = (e) => e.games.map((x, i) => String(x) + (e.playing && e.playing.game === i + 1 ? '*' : ''));
  const ready = () => page.locator('body[data-ready="true"]').waitFor({ state: 'attached' });
  // Each row of a section's first table, as cells' text.
  const rows = (section) => page.locator(id(section)).locator('table').first().locator('tbody tr')
    .evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));

  step('the heading in English: both titles, dates, place, judges');
  await page.goto(new URL('/protocol?lang=en', url).href);
  await ready();
  const header = page.locator(id('protocol-header'));
  same('the titles', [await header.locator('h1').innerText(), await header.locator('.title-ru').innerText()],
    ['Moscow Open, ten-pin bowling for the blind', 'Открытый чемпионат Москвы по боулингу, спорт слепых']);
  await header.getByText('Dates: 28-30 November 2026 · Place: Moscow, Kosmik bowling centre').waitFor();
  same('the judges', await header.locator('.judges li').allInnerTexts(),
    ['chief judge: Irina Orlova', 'chief secretary: Pavel Sokolov', 'lane judge: Maria Lebedeva']);

  step('each category: its title, the combined bonus, the handicap, the API\'s numbers');
  same('the sections', await page.locator('section.result h2').allInnerTexts(), [
    'Singles · B1 men and women', 'Singles with handicap · B2 men and women', 'Doubles · doubles', 'Finals · B1 men and women']);
  const b1 = standings.categories.find((c) => c.id === 'B1');
  // Rank, name, region, class, sex, G1, G2, scratch, bonus, total.
  same('B1', await rows('protocol-category-B1'), b1.entries.map((e) => [String(e.rank), e.name, e.region, e.class, e.sex,
    ...games(e), String(e.scratch), String(e.bonus), String(e.total)]));
  // Worked by hand: Anna is the journal's first bowler (173) in S1 on
  // lane 1 and in S2 on lane 2, a woman in a combined category (+10 a game);
  // Dmitri its second (150) on lanes 2 and 3.
  const line = async (name) => (await rows('protocol-category-B1')).find((r) => r[1] === name).slice(4);
  same('Anna\'s line', await line('Anna Kuznetsova'), ['F', '173', '173', '346', '20', '366']);
  same('Dmitri\'s line', await line('Dmitri Orlov'), ['M', '150', '150', '300', '0', '300']);
  await page.locator(id('protocol-category-B1')).locator(id('combined-note')).getByText('women get +10 pins a game').waitFor();
  const b2 = standings.categories.find((c) => c.id === 'B2');
  same('B2 (Sergei: 8 pins a game)', await rows('protocol-category-B2'), b2.entries.map((e) => [String(e.rank), e.name, e.region, e.class, e.sex,
    ...games(e), String(e.scratch), String(e.handicap), String(e.bonus), String(e.total)]));
  same('B2 heads', await page.locator(id('protocol-category-B2')).locator('thead th').allInnerTexts(),
    ['№', 'Bowler', 'Region', 'Class', 'Sex', 'G1', 'G2', 'Scratch', 'Hcp', 'Women +10', 'Total']);
  const doubles = standings.teams.find((t) => t.event === 'doubles');
  same('doubles', await rows('protocol-event-doubles'), doubles.entries.map((e) => [String(e.rank), e.name, e.members.join(', '),
    ...games(e), String(e.scratch), String(e.total)]));

  step('the finals: the round robin with wins, ties and bonus, the step-ladder');
  const finals = page.locator(id('protocol-finals-B1'));
  same('round-robin heads', await finals.locator('table').first().locator('thead th').allInnerTexts(),
    ['№', 'Bowler', 'Prelim', 'Games', 'Scratch', 'Wins', 'Ties', 'Bonus', 'Total']);
  same('round robin', await rows('protocol-finals-B1'), standings.finals.B1.round_robin.map((r) => [String(r.rank), r.name,
    String(r.preliminary), r.games.join(' '), String(r.scratch), String(r.wins), String(r.ties), String(r.bonus), String(r.total)]));
  // Every round-robin row adds up: the parts of its total are columns.
  for (const r of standings.finals.B1.round_robin) {
    same('the parts of ' + r.name + '\'s total', r.preliminary + r.scratch + r.handicap + r.women_pins + r.bonus, r.total);
  }
  same('step-ladder', await page.locator(id('step-ladder-B1')).locator('h4').allInnerTexts(),
    ['Match 1: 3rd against 2nd', 'Match 2: the winner against 1st']);

  step('the signature lines: chief judge and chief secretary, from the judges');
  same('signatures', await page.locator(id('signatures')).locator('.sign').evaluateAll((s) => s.map((x) => [
    x.querySelector('.role').textContent, x.querySelector('.who').textContent])),
  [['Chief judge', 'Irina Orlova'], ['Chief secretary', 'Pavel Sokolov']]);
  const text = await page.locator('#doc').innerText();
  if (/\bnull\b|undefined|NaN/.test(text)) throw new Error('the protocol shows null, undefined or NaN');
  await shot('centre-protocol');

  step('printed: A4 pages, nothing wider than the page, no row split');
  const texts = await printA4(page, shots, 'centre-protocol', { maxPages: 6 });
  const pages = texts.length;
  // What is printed: the heading on the first page, every section, the
  // signatures on the last.
  same('the heading on page 1', missing(texts[0], ['Moscow Open, ten-pin bowling for the blind',
    'Открытый чемпионат Москвы по боулингу, спорт слепых', 'RESULTS PROTOCOL', 'Dates: 28-30 November 2026']), []);
  same('the sections printed', missing(texts.join(''), [...(await page.locator('section.result h2').allInnerTexts()), 'Round robin', 'Step-ladder']), []);
  same('the signatures on the last page', missing(texts[pages - 1], ['Chief judge', 'Irina Orlova', 'Chief secretary', 'Pavel Sokolov']), []);

  step('in Russian: the Russian title first, Russian headings and signatures');
  await page.goto(new URL('/protocol?lang=ru', url).href);
  await ready();
  same('the titles', [await header.locator('h1').innerText(), await header.locator('.title-en').innerText()],
    ['Открытый чемпионат Москвы по боулингу, спорт слепых', 'Moscow Open, ten-pin bowling for the blind']);
  same('the sections', await page.locator('section.result h2').allInnerTexts(), [
    'Одиночный разряд · B1 мужчины и женщины', 'Одиночный разряд с гандикапом · B2 мужчины и женщины',
    'Парный разряд · doubles', 'Финал · B1 мужчины и женщины']);
  await page.locator(id('signatures')).getByText('Главный секретарь').waitFor();
  await shot('centre-protocol-ru');

  step('the page\'s switch: English, and the address says so');
  await page.click('#lang');
  await page.locator(id('signatures')).getByText('Chief secretary').waitFor();
  same('the address', new URL(page.url()).searchParams.get('lang'), 'en');

  step('the director\'s page: the protocol and each export, one link each');
  await page.goto(url);
  await page.click('#tab-results');
  const links = page.locator('#results .links a');
  await links.first().waitFor();
  same('the links', await links.evaluateAll((as) => as.map((a) => [a.textContent, new URL(a.href).pathname])),
    [['Protocol (print/PDF)', '/protocol'], ['TXT', '/results.txt'], ['CSV', '/results.csv'], ['JSON', '/results.json']]);
  const apart = await links.evaluateAll((as) => as.slice(1).every((a, i) => a.getBoundingClientRect().left > as[i].getBoundingClientRect().right + 2));
  same('the links apart', apart, true);

  step('the Russian protocol\'s CSV for Excel: a byte order mark, `;`, the finals');
  await page.goto(new URL('/protocol?lang=ru', url).href);
  await ready();
  same('the CSV link', [await page.locator('#csv').innerText(), new URL(await page.locator('#csv').getAttribute('href'), url).search],
    ['CSV для Excel', '?lang=ru']);
  const csvBytes = await (await page.request.get(new URL(await page.locator('#csv').getAttribute('href'), url).href)).body();
  same('a byte order mark', [...csvBytes.subarray(0, 3)], [0xef, 0xbb, 0xbf]);
  const csv = csvBytes.toString('utf8').slice(1).split('\r\n');
  same('the Russian headings, `;`', csv[0].split(';').slice(0, 3), ['категория', 'место в квалификации', 'фамилия имя']);
  const annaRow = csv.find((r) => r.startsWith('B1;') && r.includes('Anna Kuznetsova')).split(';');
  same('Anna in the CSV', [annaRow[4], annaRow[5], annaRow[annaRow.length - 4]], ['B1', 'Ж', '366']);
  if (!csv.some((r) => r.startsWith('категория;место в круговом турнире;'))) throw new Error('the CSV has no round robin');

  step('the start list from the protocol\'s page: each block, lane and bowler in order');
  same('the start list link', await page.locator('#startlist').innerText(), 'Стартовый лист');
  const list = await (await page.request.get(new URL(await page.locator('#startlist').getAttribute('href'), url).href)).text();
  for (const want of ['Стартовый лист', 'Блок S1 · singles · день 1 · игр: 6', '  Дорожка 1', '    1. Anna Kuznetsova']) {
    if (!list.includes(want)) throw new Error(`the start list lacks ${JSON.stringify(want)}:\n${list}`);
  }

  step('a bowler withdrawn: not ranked, last of the category, marked');
  same('login', (await page.request.post(api('/api/login'), { data: { pin } })).status(), 200);
  const w = await page.request.post(api('/api/entries/withdraw'), { data: { name: 'Olga Smirnova' } });
  same('withdrawn', w.status(), 200);
  await page.click('#refresh');
  await ready();
  await page.locator(id('protocol-category-B1')).locator('td[data-mark="withdrawn"]').waitFor();
  const b1After = await rows('protocol-category-B1');
  same('Olga last, marked', b1After[b1After.length - 1].slice(0, 2), ['снят', 'Olga Smirnova']);
  same('the others ranked 1 to 3', b1After.slice(0, -1).map((r) => r[0]), ['1', '2', '3']);
  const after = await (await page.request.get(api('/api/standings'))).json();
  const olga = after.categories[0].entries.find((e) => e.name === 'Olga Smirnova');
  same('Olga in the API', [olga.rank, olga.mark], [null, 'withdrawn']);
  if (after.finals.B1.seeds.includes('Olga Smirnova')) throw new Error('a withdrawn bowler is seeded');
  await shot('centre-protocol-withdrawn');
});

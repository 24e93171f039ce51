// A whole small championship run from the director's page in a real
// browser, against `lanecall demo --lanes 3` (tests/centre/centre_demo.rs): its
// lanes bowl whatever block the centre pushes. The entries imported from a
// spreadsheet's CSV (one with errors first: nothing changed, each bad row
// named), the qualifying singles pushed by the demo and the trios from the
// page, the standings per category and team as the API says, the B1 round
// robin proposed, confirmed and pushed, the step-ladder's two matches
// after it, the protocol printed to an A4 PDF, the TV within 1920×1080,
// the page within 1920×1080 and 1280×800. Arguments: URL PIN
// SCREENSHOT_DIR.
import { run, url, pin, shots, id, same, until } from './harness.mjs';
import { printA4, missing } from './print.mjs';
import { noOverflow } from './centre-page.mjs';

// How long a block may take to be bowled: seconds at the demo's 300x,
// minutes on a loaded machine.
const BOWLING = 300;

await run(async ({ page, shot, step, api }) => {
  const get = async (path) => (await page.request.get(api(path))).json();
  const standings = () => get('/api/standings');
  const refused = [];
  page.on('response', (r) => { if (r.status() >= 400) refused.push(r.status() + ' ' + new URL(r.url()).pathname); });
  page.on('console', (m) => { if (m.type() === 'error' && !m.text().includes('400')) refused.push('console: ' + m.text() + ' ' + m.location().url); });
  // A table's rows as the page shows them, a game per word in a games cell.
  const rows = (section) => page.locator(id(section)).locator('table').first().locator('tbody tr')
    .evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((c) => (c.querySelector('.g')
      ? [...c.querySelectorAll('.g')].map((g) => g.lastChild.textContent).join(' ') : c.textContent))));
  const str = (x) => (x === null || x === undefined ? '' : String(x));
  // Pushes a block from the block tab and waits until every lane it went
  // to has accepted it.
  const push = async (block) => {
    await page.click('#tab-block');
    await page.locator(id('block-' + block)).getByRole('button', { name: 'Отправить составы блока ' + block }).click();
    await page.locator('#push-status').getByText('Отправлено').waitFor();
    await until(`every lane accepted ${block}`, async () => {
      const p = (await get('/api/pushes'))[0];
      return p.block === block && Object.values(p.lanes).every((l) => l.status === 'accepted');
    }, 60);
  };
  // Confirms a finals block's proposed lanes in one press; the lanes.
  const confirm = async (block, want) => {
    await page.click('#tab-block');
    const prop = page.locator(id('proposal-' + block));
    await prop.getByText('Предложено: ' + want).waitFor();
    await prop.getByRole('button', { name: 'Подтвердить дорожки блока ' + block }).click();
    await page.locator(id('block-' + block)).getByText(want.split('; ')[0]).waitFor();
  };

  step('the three lanes online, the demo\'s director has pushed Q1');
  await page.goto(url);
  for (const n of [1, 2, 3]) await page.locator(id('lane-' + n)).getByText('на связи', { exact: true }).waitFor();
  await until('Q1 pushed', async () => (await get('/api/pushes'))[0]?.block === 'Q1');

  step('a judge logs in');
  await page.click('#tab-entries');
  await page.getByLabel('ПИН', { exact: true }).fill(pin);
  await page.getByRole('button', { name: 'Войти' }).click();
  await page.getByText('Судья: chief judge').waitFor();
  await page.getByText('Участников: 9', { exact: true }).waitFor();

  step('a CSV with errors: each bad row named, nothing changed');
  const before = (await get('/api/entries')).entries;
  const csv = (await (await page.request.get(api('/entries.csv'))).text()).replace(/^\uFEFF/, '').trim().split('\r\n');
  const head = csv[0].split(',');
  same('the CSV\'s columns', head, ['name', 'class', 'sex', 'region', 'team', 'handicap', 'withdrawn']);
  const upload = (lines) => page.getByLabel('Загрузить CSV', { exact: true }).setInputFiles({
    name: 'entries.csv', mimeType: 'text/csv', buffer: Buffer.from('\uFEFF' + lines.join('\r\n') + '\r\n'),
  });
  // Rows 11 and 12 (the header is row 1): a class B4, a sex Q.
  await upload([...csv, 'Nina Guseva,B4,F,Tver,,,', 'Oleg Popov,B2,Q,Tver,,,']);
  const problems = page.locator('#entries-problems li');
  await problems.first().waitFor();
  same('the bad rows and columns named', (await problems.allInnerTexts()).map((p) => p.match(/^строка (\d+), столбец (\d+)/)?.slice(1)),
    [['11', '2'], ['12', '3']]);
  same('the entries unchanged', (await get('/api/entries')).entries, before);
  await shot('championship-import-refused');

  step('the spreadsheet\'s CSV imported: a handicap, a region');
  // As a spreadsheet in a Russian locale saves it: semicolons; Daria
  // Volkova (B2) given 12 pins a game, Galina Lebedeva's region written out.
  const edited = csv.map((line) => {
    const cells = line.split(',');
    if (cells[0] === 'Daria Volkova') cells[5] = '12';
    if (cells[0] === 'Galina Lebedeva') cells[3] = 'Kazan, Tatarstan';
    return cells.map((c) => (c.includes(',') ? `"${c}"` : c)).join(';');
  });
  await upload(edited);
  // Shown before it is made: the two entries it changes.
  const changing = page.getByText(/^изменить \(2\): /);
  await changing.waitFor();
  same('the entries it changes', (await changing.innerText()).slice(14).split(', ').sort(), ['Daria Volkova', 'Galina Lebedeva']);
  await page.getByRole('button', { name: 'Применить загрузку' }).click();
  await page.locator(id('entry-Galina Lebedeva')).getByText('Kazan, Tatarstan').waitFor();
  await page.locator(id('entry-Daria Volkova')).locator('td:nth-child(6)').getByText('12', { exact: true }).waitFor();
  await page.getByText('Участников: 9', { exact: true }).waitFor();
  await shot('championship-entries');

  step('Q1 bowled on the three lanes');
  await until('every bowler\'s two Q1 games complete', async () => (await standings()).categories
    .every((c) => c.entries.every((e) => e.complete === 2)), BOWLING);

  step('T1, the trios, pushed from the page and bowled');
  await push('T1');
  await until('every team\'s T1 game complete', async () => (await standings()).teams
    .every((t) => t.entries.every((e) => e.complete === 1)), BOWLING);

  step('the standings per category and per team, as the centre computed them');
  await page.click('#tab-standings');
  const st = await standings();
  same('the categories', st.categories.map((c) => c.id), ['B1', 'B2', 'B3']);
  // The page polls: it shows what the API says a moment later.
  const shows = (section, want) => until(`${section} on the page`, async () => JSON.stringify(await rows(section)) === JSON.stringify(want))
    .catch(async (e) => { same(section, await rows(section), want); throw e; });
  for (const c of st.categories) {
    await shows('category-' + c.id, c.entries.map((e) => [str(e.rank), e.name, ...(c.combined ? [{ M: 'М', F: 'Ж' }[e.sex]] : []), str(e.lane), e.games.join(' '), str(e.scratch),
      str(e.handicap), ...(c.women_pins ? [str(e.bonus)] : []), str(e.total)]));
  }
  // The handicap imported, worked here: 12 pins for each of Daria's games.
  const daria = st.categories.find((c) => c.id === 'B2').entries.find((e) => e.name === 'Daria Volkova');
  same('Daria\'s handicap and total', [daria.handicap, daria.total],
    [24, daria.games.reduce((a, b) => a + b, 0) + 24 + daria.bonus]);
  const trios = st.teams.find((t) => t.event === 'trios');
  same('three trios', trios.entries.map((e) => e.name).sort(), ['Kazan', 'Moscow', 'Tula']);
  await shows('team-trios', trios.entries.map((e) => [str(e.rank), e.name, e.members.join(', '),
    str(e.lane), e.games.join(' '), str(e.scratch), str(e.handicap), str(e.total)]));
  await shot('championship-standings');

  step('the round robin proposed from B1\'s ranking, confirmed in one press, pushed and bowled');
  const b1 = st.categories.find((c) => c.id === 'B1').entries.map((e) => e.name);
  const finals = (await get('/api/finals')).finals[0];
  same('the seeds: B1 as ranked', finals.seeds, b1);
  const rr = finals.blocks[0].lanes;
  await confirm('RR-B1', Object.entries(rr).map(([n, names]) => `Дорожка ${n}: ${names.join(', ')}`).join('; '));
  await page.locator(id('proposal-SL1-B1')).getByText('Круговой турнир не закончен').waitFor();
  await push('RR-B1');
  await until('the round robin bowled', async () => (await standings()).finals.B1.round_robin_complete, BOWLING);

  step('the step-ladder: the round robin\'s 3rd against its 2nd, then the winner against its 1st');
  // A match bowled; if tied, the roll-off's winner (its second bowler)
  // recorded on the page. Its winner.
  const decide = async (block, k) => {
    const match = async () => (await standings()).finals.B1.step_ladder.matches[k];
    await until(`${block} bowled`, async () => (await match())?.complete, BOWLING);
    const m = await match();
    if (m.tie) {
      console.error(`${block}: ${m.a} ${m.a_score}, ${m.b} ${m.b_score}: a tie, its roll-off recorded`);
      await page.click('#tab-block');
      const roll = page.locator(id('roll-off-' + block));
      await roll.getByText(`Ничья: ${m.a} и ${m.b}.`, { exact: false }).waitFor();
      await roll.getByRole('button', { name: `Переигровку блока ${block} выиграл(а) ${m.b}` }).click();
      await page.locator('#push-error').getByText(`Победитель переигровки блока ${block} записан`).waitFor();
      same(`${block}'s winner`, (await match()).winner, m.b);
    }
    return (await match()).winner;
  };
  const table = (await standings()).finals.B1.round_robin.map((r) => r.name);
  await confirm('SL1-B1', `Дорожка 1: ${table[2]}, ${table[1]}`);
  await push('SL1-B1');
  const first = await decide('SL1-B1', 0);
  await confirm('SL2-B1', `Дорожка 1: ${first}, ${table[0]}`);
  await push('SL2-B1');
  await decide('SL2-B1', 1);
  same('three places', (await standings()).finals.B1.step_ladder.places.length, 3);

  step('the finals on the page: the round robin\'s table, the bracket, the places');
  await page.click('#tab-standings');
  const f = (await standings()).finals.B1;
  // Scratch, then the handicap and the women's pins each in its own
  // column when someone has them: a row adds up, the preliminary pins
  // carried in.
  const hcp = f.round_robin.some((r) => r.handicap > 0);
  const women = f.round_robin.some((r) => r.women_pins > 0);
  await shows('finals-B1', f.round_robin.map((r) => [str(r.rank), r.name, str(r.preliminary),
    r.games.join(' '), str(r.scratch), ...(hcp ? [str(r.handicap)] : []), ...(women ? [str(r.women_pins)] : []),
    str(r.wins), str(r.ties), str(r.bonus), str(r.total)]));
  for (const r of f.round_robin) {
    same(r.name + '\'s row adds up', r.preliminary + r.scratch + r.handicap + r.women_pins + r.bonus, r.total);
  }
  const places = () => page.locator(id('ladder-B1')).locator('.match.done').last().locator('li').allInnerTexts();
  await until('the places on the page', async () => JSON.stringify(await places()) === JSON.stringify(f.step_ladder.places))
    .catch(async (e) => { same('the places', await places(), f.step_ladder.places); throw e; });
  same('the final\'s winner first', f.step_ladder.places[0], f.step_ladder.matches[1].winner);
  await shot('championship-finals');

  step('the protocol printed to an A4 PDF');
  await page.goto(new URL('/protocol?lang=ru', url).href);
  await page.locator('body[data-ready="true"]').waitFor({ state: 'attached' });
  const sections = await page.locator('section.result h2').allInnerTexts();
  // B2 with handicap: Daria's, imported.
  same('a section per category and event, the finals', sections, ['Одиночный разряд · B1 мужчины и женщины',
    'Одиночный разряд с гандикапом · B2 мужчины и женщины', 'Одиночный разряд · B3 мужчины и женщины', 'Тройки · trios', 'Финал · B1 мужчины и женщины']);
  const texts = await printA4(page, shots, 'championship-protocol', { maxPages: 6 });
  same('printed', missing(texts.join(''), [...sections, 'Демонстрационный чемпионат lanecall', 'Kazan, Tatarstan',
    ...f.step_ladder.places]), []);
  same('the signatures on the last page', missing(texts[texts.length - 1], ['Главный судья', 'Irina Orlova']), []);

  step('the TV at 1920×1080');
  await page.goto(new URL('/tv?interval=0', url).href);
  await page.locator('body[data-ready="true"]').waitFor({ state: 'attached' });
  same('heights, widths, cards below the screen', await page.evaluate(() => {
    const d = document.documentElement;
    const out = [...document.querySelectorAll('.tv-card')].filter((c) => c.getBoundingClientRect().bottom > innerHeight);
    return [d.scrollHeight, d.scrollWidth, document.body.scrollHeight, out.length];
  }), [1080, 1920, 1080, 0]);
  await shot('championship-tv');

  step('the director\'s page at 1920×1080 and 1280×800');
  await page.goto(url);
  await noOverflow(page, shot, 'championship');
  same('requests refused (the bad import only) and console errors', refused, ['400 /api/entries/import']);
}, { contextOptions: { viewport: { width: 1920, height: 1080 } } });

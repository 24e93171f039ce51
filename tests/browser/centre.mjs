// The centre's page in a real browser: lane 7 at a glance (online, who is
// up, its hold and pinsetter fault, its bowlers, a journal conflict's
// alarm), the chief judge's login,
// the programme's block S1 pushed in one click, lane 7's acceptance shown, the standings from lane 7's journal,
// the English switch, and the TV view. Arguments: URL PIN SCREENSHOT_DIR.
import { run, url, pin, id, same } from './harness.mjs';

await run(async ({ page, shot, step, api, until }) => {
  step('lane 7 at a glance');
  await page.goto(url);
  const card = page.locator(id('lane-7'));
  await card.getByText('на связи').waitFor();
  await card.getByText('Orlov — игра 1, фрейм 3, бросок 2').waitFor();
  await card.getByText('ОСТАНОВЛЕНА — Judge Orlova: oil').waitFor();
  await card.getByText('Сбой пинсеттера: JAM').waitFor();
  await card.getByText('Копия журнала: 367 строк, расхождений: 1').waitFor();
  await page.locator(id('alarm-conflict-7')).getByText('ТРЕВОГА: расхождение в журнале дорожки 7', { exact: false }).waitFor();
  await shot('centre-lanes');

  step('the chief judge logs in and pushes block S1 of the programme in one click');
  await page.click('#tab-block');
  await page.fill('input[type=password]', pin);
  await page.getByRole('button', { name: 'Войти' }).click();
  await page.getByText('Судья: chief judge').waitFor();
  const block = page.locator(id('block-S1'));
  await block.getByText('Дорожка 7: Anna Kuznetsova, Boris Tikhonov, Vera Matveeva, Gleb Romanov').waitFor();
  // Lane 7's journal is S1's lineup, bowled: S1 shows it, and pushing it
  // again asks why first.
  await block.locator(id('life-state-7')).getByText(/^(идёт игра|сыгран)/).waitFor();
  await block.getByRole('button', { name: 'Отправить составы блока S1' }).click();
  const ask = page.getByRole('dialog');
  await ask.getByText('Блок S1 уже начат').waitFor();
  await ask.getByLabel('Причина повторной отправки').fill('новый состав после сбоя');
  await ask.getByRole('button', { name: 'Отправить блок S1 снова' }).click();
  await page.locator('.push').getByText('Дорожка 7: принят').waitFor();
  const first = await (await page.request.get(api('/api/pushes'))).json();
  same('the programme\'s push, its reason kept', [first.length, first[0].block, first[0].lanes['7'].status, first[0].again], [1, 'S1', 'accepted', 'новый состав после сбоя']);

  await shot('centre-block');

  step('the standings from lane 7\'s journal, worked by hand');
  // One game each (tests/logs/four_bowlers.expect.json); every class has
  // 12 bowlers or fewer, so men and women are combined and a woman gets
  // +10 a game: Anna 182 + 10, Vera 214 + 10. Columns: rank, bowler, sex,
  // lane, games, scratch, handicap, women's pins, total.
  await page.click('#tab-standings');
  const rows = async (cat) => {
    const section = page.locator(id('category-' + cat));
    await section.waitFor();
    return [await section.locator('h2').innerText(),
      ...(await section.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent))))];
  };
  same('B1', await rows('B1'), ['B1 мужчины и женщины',
    ['1', 'Anna Kuznetsova', 'Ж', '7', '182', '182', '0', '10', '192'], ['2', 'Gleb Romanov', 'М', '7', '119', '119', '0', '0', '119']]);
  same('B2', await rows('B2'), ['B2 мужчины и женщины', ['1', 'Boris Tikhonov', 'М', '7', '132', '132', '0', '0', '132']]);
  same('B3', await rows('B3'), ['B3 мужчины и женщины', ['1', 'Vera Matveeva', 'Ж', '7', '214', '214', '0', '10', '224']]);
  await shot('centre-standings');

  step('in English');
  await page.click('#lang');
  await page.locator(id('category-B1')).getByText('B1 men and women').waitFor();
  await page.click('#tab-block');
  await page.locator('.push').getByText('Lane 7: accepted').first().waitFor();
  await page.click('#tab-lanes');
  await page.locator(id('lane-7')).getByText('HELD — Judge Orlova: oil').waitFor();
  await page.locator(id('alarm-conflict-7')).getByText('ALARM: conflicting journal lines on lane 7', { exact: false }).waitFor();

  step('the TV');
  await page.setViewportSize({ width: 1920, height: 1080 });
  await page.goto(new URL('/tv', url).href);
  await page.getByText('Lane 7').waitFor();
  await page.getByText('Orlov — 0').waitFor();
  await shot('centre-tv');
});

// The programme made on the centre's page in a real browser
// (tests/centre/centre_director.rs): from a programme file with its title and
// nothing else and four entries added by the entries' API, a judge makes
// a doubles event (its teams chosen from the entries), a singles event,
// a block, the B1 finals' three blocks and the finals; a block with the
// wrong number of games is refused with the check's words; the Russian
// and the English page label every field. Arguments: URL PIN
// SCREENSHOT_DIR (the chief judge's shared PIN).
import { run, url, pin, id, same } from './harness.mjs';

await run(async ({ page, shot, step, api }) => {
  step('a judge logs in and opens the programme');
  await page.goto(url);
  await page.getByLabel('ПИН', { exact: true }).fill(pin);
  await page.getByLabel('Имя (с общим ПИН главного судьи)').fill('Irina Orlova');
  await page.getByRole('button', { name: 'Войти' }).click();
  await page.getByText('Судья: Irina Orlova').waitFor();
  await page.click('#tab-programme');
  await page.getByText('Программа взята из файла; первое изменение здесь сохранит её в центре.').waitFor();

  step('a doubles event, its teams chosen from the entries');
  const event = page.locator('#prog-event-form');
  await event.getByLabel('Обозначение').fill('doubles');
  await event.getByLabel('Вид', { exact: true }).selectOption('doubles');
  for (const [n, name, a, b] of [[0, 'Tula', 'Anna', 'Ivan'], [1, 'Kazan', 'Olga', 'Dmitri']]) {
    await page.getByRole('button', { name: 'Добавить команду' }).click();
    const team = event.locator('fieldset.prog-team').nth(n);
    await team.getByLabel('Название команды').fill(name);
    await team.getByLabel('Участник 1').selectOption(a);
    await team.getByLabel('Участник 2').selectOption(b);
  }
  await event.getByRole('button', { name: 'Добавить вид' }).click();
  await page.locator(id('prog-event-doubles')).getByText('Kazan: Olga, Dmitri; Tula: Anna, Ivan').waitFor();

  step('a singles event');
  await event.getByLabel('Обозначение').fill('singles');
  await event.getByLabel('Вид', { exact: true }).selectOption('singles');
  await event.getByRole('button', { name: 'Добавить вид' }).click();
  await page.locator(id('prog-event-singles')).waitFor();

  step('the blocks: a squad, the round robin and the step-ladder');
  const block = async (bid, games, day) => {
    const form = page.locator('#prog-block-form');
    await form.getByLabel('Обозначение').fill(bid);
    await form.getByLabel('Вид программы').selectOption('singles');
    await form.getByLabel('Игр').fill(String(games));
    await form.getByLabel('День').fill(String(day));
    await form.getByRole('button', { name: 'Добавить блок' }).click();
  };
  // Each block answered (the form drawn afresh) before the next.
  const added = async (bid, games, day) => { await block(bid, games, day); await page.locator(id('prog-block-' + bid)).waitFor(); };
  await added('S1', 6, 1);
  await added('RR-B1', 3, 2);
  await added('SL1-B1', 1, 2);
  await added('SL2-B1', 1, 2);

  step('a block of 13 games is refused, every problem said');
  await block('S9', 13, 0);
  // Both problems at once, each by its key (the words in the page's
  // language).
  await page.locator('#prog-problems li').nth(1).waitFor();
  same('the problems', (await page.locator('#prog-problems li').allTextContents()).map((l) => l.split(':')[0]),
    ['block[5].games', 'block[5].day']);
  same('nothing kept of a refused block', await page.locator(id('prog-block-S9')).count(), 0);

  step('the finals of B1');
  const finals = page.locator('#prog-finals-form');
  // Every category is offered: finals of one with no bowler yet wait.
  same('the categories offered', await finals.getByLabel('Категория').locator('option').allTextContents(),
    ['B1', 'B1-M', 'B1-F', 'B2', 'B2-M', 'B2-F', 'B3', 'B3-M', 'B3-F']);
  await finals.getByLabel('Категория').selectOption('B1');
  same('eight finalists unless said', await finals.getByLabel('Финалистов (лучшие N, от 3 до 8)').inputValue(), '8');
  await finals.getByLabel('Блок кругового турнира').selectOption('RR-B1');
  await finals.getByLabel('Блок степ-лэддера 1').selectOption('SL1-B1');
  await finals.getByLabel('Блок степ-лэддера 2').selectOption('SL2-B1');
  await finals.getByRole('button', { name: 'Добавить финал' }).click();
  await page.locator(id('prog-finals-B1')).getByText('RR-B1').waitFor();
  await page.getByText('Программа ведётся на этой странице (programme.toml центра).').waitFor();
  await page.locator('#prog-changes li').first().getByText('Irina Orlova · добавлен · финал B1').waitFor();
  await shot('centre-programme');

  step('a block edited: its day');
  await page.getByRole('button', { name: 'Изменить: S1', exact: true }).click();
  await page.locator('#prog-block-form').getByLabel('День').fill('3');
  await page.getByRole('button', { name: 'Сохранить: S1', exact: true }).click();
  await page.locator(id('prog-block-S1')).locator('td:nth-child(4)').getByText('3', { exact: true }).waitFor();

  step('the English page labels the same fields');
  await page.click('#lang');
  await page.getByText('Blocks (squads)').waitFor();
  await page.locator('#prog-block-form').getByLabel('Games').waitFor();
  await page.locator('#prog-finals-form').getByLabel('Round robin block').waitFor();
  await shot('centre-programme-en');

  const v = await (await page.request.get(api('/api/programme/edit'))).json();
  same('the blocks the centre keeps', v.blocks.map((b) => [b.id, b.games, b.day]),
    [['S1', 6, 3], ['RR-B1', 3, 2], ['SL1-B1', 1, 2], ['SL2-B1', 1, 2]]);
  same('the finals', v.finals.map((f) => [f.category, f.round_robin, ...f.step_ladder]), [['B1', 'RR-B1', 'SL1-B1', 'SL2-B1']]);
});

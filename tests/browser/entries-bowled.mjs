// A bowled bowler's entry on the centre's page in a real browser (the
// centre's mirror holds block S1 and the B1 round robin bowled): the
// chief judge changes a class only after reading what it moves and
// confirming it (a CSV import's preview says it too); a name is corrected and the list shows the name it was;
// a finalist's class is refused once the finals have started. Arguments:
// URL PIN SCREENSHOT_DIR; the PIN is the shared one.
import { run, url, pin, id, same } from './harness.mjs';

await run(async ({ page, shot, step, api }) => {
  step('the chief judge logs in with the shared PIN');
  await page.goto(url);
  await page.click('#tab-entries');
  await page.getByText('Участников: 6', { exact: true }).waitFor();
  await page.getByLabel('ПИН', { exact: true }).fill(pin);
  await page.getByLabel('Имя (с общим ПИН главного судьи)').fill('Irina Orlova');
  await page.getByRole('button', { name: 'Войти' }).click();
  await page.getByText('Судья: Irina Orlova').waitFor();

  step('a bowled bowler\'s class: what it moves, then confirmed');
  await page.getByRole('button', { name: 'Изменить: Sergei Volkov' }).click();
  await page.getByLabel('Класс').selectOption('B3');
  await page.getByRole('button', { name: 'Сохранить: Sergei Volkov' }).click();
  await page.getByText('Это изменит результаты участника, который уже выступал:').waitFor();
  await page.getByText('Sergei Volkov переходит из категории B2 в категорию B3', { exact: true }).waitFor();
  same('nothing changed before the confirmation',
    (await (await page.request.get(api('/api/entries'))).json()).entries.find((e) => e.name === 'Sergei Volkov').class, 'B2');
  await shot('centre-entries-confirm');
  await page.getByRole('button', { name: 'Подтвердить изменение (главный судья)' }).click();
  await page.locator(id('entry-Sergei Volkov')).getByText('B3', { exact: true }).waitFor();

  step('a bowled name corrected');
  await page.getByRole('button', { name: 'Изменить: Ivan Petrov' }).click();
  await page.getByLabel('Участник', { exact: true }).fill('Iwan Petrow');
  await page.getByRole('button', { name: 'Сохранить: Ivan Petrov' }).click();
  await page.locator(id('entry-Iwan Petrow')).getByText('прежнее имя: Ivan Petrov').waitFor();
  await page.getByText('Irina Orlova · изменён: Ivan Petrov → Iwan Petrow').waitFor();

  step('a CSV import that moves a bowled bowler: its preview says what, applied confirmed');
  await page.getByLabel('Загрузить CSV', { exact: true }).setInputFiles({
    name: 'fix.csv', mimeType: 'text/csv', buffer: Buffer.from('name,class,sex,region,handicap\r\nYulia Frolova,B2,F,Tula,5\r\n'),
  });
  await page.getByText('изменить (1): Yulia Frolova', { exact: true }).waitFor();
  await page.locator('#entries-preview').getByText('Yulia Frolova: гандикап 0 → 5', { exact: true }).waitFor();
  await page.getByRole('button', { name: 'Применить загрузку' }).click();
  await page.locator(id('entry-Yulia Frolova')).locator('td:nth-child(6)').getByText('5', { exact: true }).waitFor();

  step('a finalist\'s class once the round robin has games: refused');
  await page.getByRole('button', { name: 'Изменить: Anna Kuznetsova' }).click();
  await page.getByLabel('Класс').selectOption('B2');
  await page.getByRole('button', { name: 'Сохранить: Anna Kuznetsova' }).click();
  await page.locator('#entries-problems').getByText(/финал B1 начался/).waitFor();
  same('no confirmation offered', await page.getByRole('button', { name: 'Подтвердить изменение (главный судья)' }).count(), 0);
  await shot('centre-entries-finals-started');
  const v = await (await page.request.get(api('/api/entries'))).json();
  same('the classes the centre keeps', ['Sergei Volkov', 'Anna Kuznetsova'].map((n) => v.entries.find((e) => e.name === n).class), ['B3', 'B1']);
});

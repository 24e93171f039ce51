// The entries on the centre's page in a real browser: a judge with a PIN
// of their own logs in; a secretary's CSV file (Russian headers, В3, м) is
// previewed and cancelled, added to the list and the import undone; a
// CSV file (a byte order mark, semicolons, as a spreadsheet saves it)
// replaces the list after its preview; the new entry is edited. Arguments: URL PIN SCREENSHOT_DIR; the PIN is Pavel
// Sokolov's own.
import { run, url, pin, id, same } from './harness.mjs';

await run(async ({ page, shot, step, api }) => {
  step('the entries of the programme, before a login');
  await page.goto(url);
  await page.click('#tab-entries');
  await page.getByText('Участников: 6', { exact: true }).waitFor();
  await page.locator(id('entry-Sergei Volkov')).getByText('Tula').waitFor();

  step('a secretary logs in with their own PIN');
  await page.getByLabel('ПИН', { exact: true }).fill(pin);
  await page.getByRole('button', { name: 'Войти' }).click();
  await page.getByText('Судья: Pavel Sokolov').waitFor();

  step('a secretary\'s CSV (Russian headers, В3, м) previewed, then cancelled');
  const russian = '\uFEFFФамилия Имя;Класс;Пол;Регион\r\nПётр Седов;В3;м;Тверь\r\n';
  const file = page.getByLabel('Загрузить CSV', { exact: true });
  await file.setInputFiles({ name: 'ru.csv', mimeType: 'text/csv', buffer: Buffer.from(russian) });
  await page.getByText('+ добавить (1): Пётр Седов', { exact: true }).waitFor();
  await page.getByText('без изменений: 6', { exact: true }).waitFor();
  await shot('centre-entries-preview');
  await page.locator('#entries-preview').getByRole('button', { name: 'Отмена' }).click();
  await page.getByText('+ добавить (1): Пётр Седов').waitFor({ state: 'hidden' });
  same('nothing imported by a preview', (await (await page.request.get(api('/api/entries'))).json()).entries.length, 6);

  step('added to the list, then the import undone');
  await file.setInputFiles({ name: 'ru.csv', mimeType: 'text/csv', buffer: Buffer.from(russian) });
  await page.getByRole('button', { name: 'Применить загрузку' }).click();
  await page.getByText('Участников: 7', { exact: true }).waitFor();
  await page.locator(id('entry-Пётр Седов')).getByText('B3').waitFor();
  page.once('dialog', (d) => d.accept());
  await page.getByRole('button', { name: 'Отменить последнюю загрузку' }).click();
  await page.getByText('Участников: 6', { exact: true }).waitFor();
  await page.getByText('Pavel Sokolov · отменена загрузка CSV, участников: 6').waitFor();

  step('a CSV file imported through the page');
  const csv = await (await page.request.get(api('/entries.csv'))).text();
  const rows = csv.replace(/^\uFEFF/, '').trim().split('\r\n').map((r) => r.replaceAll(',', ';'));
  rows.push('Nina Guseva;B3;F;"Tver; Oblast";;;');
  await page.getByLabel('Как загрузить').selectOption('replace');
  await file.setInputFiles({
    name: 'entries.csv', mimeType: 'text/csv', buffer: Buffer.from('\uFEFF' + rows.join('\r\n') + '\r\n'),
  });
  await page.getByText('+ добавить (1): Nina Guseva', { exact: true }).waitFor();
  await page.getByRole('button', { name: 'Применить загрузку' }).click();
  await page.getByText('Участников: 7', { exact: true }).waitFor();
  const nina = page.locator(id('entry-Nina Guseva'));
  await nina.getByText('Tver; Oblast').waitFor();
  await shot('centre-entries-imported');

  step('the new entry edited');
  await page.getByRole('button', { name: 'Изменить: Nina Guseva' }).click();
  await page.getByLabel('Гандикап').fill('15');
  await page.getByRole('button', { name: 'Сохранить: Nina Guseva' }).click();
  await nina.locator('td:nth-child(6)').getByText('15', { exact: true }).waitFor();
  await page.getByText('Pavel Sokolov · изменён: Nina Guseva').waitFor();
  await shot('centre-entries-edited');

  const v = await (await page.request.get(api('/api/entries'))).json();
  const e = v.entries.find((x) => x.name === 'Nina Guseva');
  same('the entry the centre keeps', [e.class, e.sex, e.region, e.handicap], ['B3', 'F', 'Tver; Oblast', 15]);
  same('the changes recorded', v.changes.slice(0, 2).map((c) => [c.change, c.by]),
    [['edit', 'Pavel Sokolov'], ['import', 'Pavel Sokolov']]);
});

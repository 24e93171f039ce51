// The entries on the centre's page in a real browser: a judge with a PIN
// of their own logs in, imports a CSV file (a byte order mark, semicolons,
// as a spreadsheet saves it), sees the new entry in the list, and edits
// its handicap. Arguments: URL PIN SCREENSHOT_DIR; the PIN is Pavel
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

  step('a CSV file imported through the page');
  const csv = await (await page.request.get(api('/entries.csv'))).text();
  const rows = csv.replace(/^\uFEFF/, '').trim().split('\r\n').map((r) => r.replaceAll(',', ';'));
  rows.push('Nina Guseva;B3;F;"Tver; Oblast";;;');
  await page.getByLabel('Загрузить CSV (заменяет весь список)').setInputFiles({
    name: 'entries.csv', mimeType: 'text/csv', buffer: Buffer.from('\uFEFF' + rows.join('\r\n') + '\r\n'),
  });
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

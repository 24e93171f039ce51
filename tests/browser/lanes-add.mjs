// Lanes added and removed on the centre's page in a real browser: a
// judge with a PIN of their own adds lane 9; its card says "never
// connected", who added it and what its setting up needs; the blocks'
// form offers it; it is removed. Arguments: URL PIN SCREENSHOT_DIR; the
// PIN is Pavel Sokolov's own.
import { run, url, pin, id, same } from './harness.mjs';

await run(async ({ page, shot, step, api }) => {
  step('no lane 9 and no form before a login');
  await page.goto(url);
  await page.locator(id('lane-1')).waitFor();
  same('no add form for a guest', await page.locator(id('lane-add')).count(), 0);

  step('a judge logs in and adds lane 9');
  await page.getByLabel('ПИН', { exact: true }).fill(pin);
  await page.getByRole('button', { name: 'Войти' }).click();
  await page.getByText('Судья: Pavel Sokolov').waitFor();
  await page.getByLabel('Номер дорожки').fill('9');
  await page.getByRole('button', { name: 'Добавить дорожку' }).click();
  const card = page.locator(id('lane-9'));
  await card.getByText('НИ РАЗУ НЕ НА СВЯЗИ').waitFor();
  await card.getByText(/^Добавлена на странице: Pavel Sokolov · /).waitFor();
  await card.locator(id('setup-9')).getByText(/mosquitto_passwd .* lane9/).waitFor();
  await shot('centre-lane-added');

  step('lane 9 again is refused, said on the page');
  await page.getByLabel('Номер дорожки').fill('9');
  await page.getByRole('button', { name: 'Добавить дорожку' }).click();
  await page.locator(id('lane-add-error')).getByText(/9/).waitFor();

  step('the blocks may be given lane 9');
  const finals = await (await page.request.get(api('/api/finals'))).json();
  same('lane 9 offered', finals.lanes.includes(9), true);

  step('lane 9 removed');
  await page.getByRole('button', { name: 'Убрать дорожку 9' }).click();
  await card.waitFor({ state: 'detached' });
  const lanes = await (await page.request.get(api('/api/lanes'))).json();
  same('no card for lane 9', lanes.some((l) => l.lane === 9), false);
});

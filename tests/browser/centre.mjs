// The centre's page in a real browser: lane 7 at a glance (online, who is
// up, its hold and pinsetter fault, its bowlers), the chief judge's login,
// a block's lineups pushed and lane 7's acceptance shown, the English
// switch, and the TV view. Arguments: URL PIN SCREENSHOT_DIR.
import { run, url, pin, id, same } from './harness.mjs';

await run(async ({ page, shot, step, api }) => {
  step('lane 7 at a glance');
  await page.goto(url);
  const card = page.locator(id('lane-7'));
  await card.getByText('на связи').waitFor();
  await card.getByText('Orlov — игра 1, фрейм 3, бросок 2').waitFor();
  await card.getByText('ОСТАНОВЛЕНА — Judge Orlova: oil').waitFor();
  await card.getByText('Сбой пинсеттера: JAM').waitFor();
  await card.getByText('Копия журнала: 367 строк').waitFor();
  await shot('centre-lanes');

  step('the chief judge logs in and pushes block S1');
  await page.click('#tab-block');
  await page.fill('input[type=password]', pin);
  await page.getByRole('button', { name: 'Войти' }).click();
  await page.getByText('Главный судья: chief judge').waitFor();
  await page.fill('#block', 'S1');
  await page.fill('#lineups', JSON.stringify({ 7: [{ name: 'Orlov', class: 'B1' }] }));
  await page.click('#push');
  await page.getByText('Дорожка 7: принят').waitFor();
  await shot('centre-block');
  const pushes = await (await page.request.get(api('/api/pushes'))).json();
  same('the push shown', [pushes[0].block, pushes[0].lanes['7'].status], ['S1', 'accepted']);

  step('in English');
  await page.click('#lang');
  await page.getByText('Lane 7: accepted').waitFor();
  await page.click('#tab-lanes');
  await page.locator(id('lane-7')).getByText('HELD — Judge Orlova: oil').waitFor();

  step('the TV');
  await page.goto(new URL('/tv', url).href);
  await page.getByText('Lane 7').waitFor();
  await page.getByText('Orlov — 0').waitFor();
  await shot('centre-tv');
});

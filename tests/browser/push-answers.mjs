// A block's push says what each lane answered, not "Sent" for all: block
// S1 of the example programme pushed (its lanes are bowling it: the page
// asks why first), lane 1 refusing with
// its reason, lane 2 accepting, lane 3 offline (held until it comes
// back); block S2, none refusing, "Sent"; in Russian, then in English. Arguments: URL PIN SCREENSHOT_DIR.
import { run, url, pin, id, same } from './harness.mjs';

const REFUSAL = 'a game is in progress: finish it first';

await run(async ({ page, shot, step }) => {
  step('the chief judge logs in and pushes block S1');
  await page.goto(url);
  await page.click('#tab-block');
  await page.fill('input[type=password]', pin);
  await page.getByRole('button', { name: 'Войти' }).click();
  await page.getByText('Судья: chief judge').waitFor();
  await page.locator(id('block-S1')).getByRole('button', { name: 'Отправить составы блока S1' }).click();
  // The lanes are bowling S1: pushing it again asks why first.
  const ask = page.getByRole('dialog');
  await ask.getByText('Блок S1 уже начат').waitFor();
  await ask.getByLabel('Причина повторной отправки').fill('проверка ответов дорожек');
  await ask.getByRole('button', { name: 'Отправить блок S1 снова' }).click();

  step('each lane\'s answer, the refusal with its reason');
  const status = page.locator('#push-status');
  await status.locator(id('pushed-1')).getByText('Дорожка 1: отказ — ' + REFUSAL).waitFor();
  await status.locator(id('pushed-2')).getByText('Дорожка 2: принят').waitFor();
  await status.locator(id('pushed-3')).getByText('Дорожка 3: не на связи: ждём дорожку').waitFor();
  const tones = await status.locator('li').evaluateAll((ls) => ls.map((l) => [l.dataset.testid, l.className]));
  same('tones', tones, [['pushed-1', 'pill bad'], ['pushed-2', 'pill good'], ['pushed-3', 'pill warn']]);
  const text = await status.innerText();
  if (text.includes('Отправлено')) throw new Error(`"Отправлено" with a lane refusing: ${text}`);
  same('no error', await page.locator('#push-error').innerText(), '');
  await shot('centre-push-answers');

  step('block S2: lane 2 accepts, lanes 3 and 4 held: "Sent"');
  await page.locator(id('block-S2')).getByRole('button', { name: 'Отправить составы блока S2' }).click();
  // Lane 3 has bowled in S2 (its journal): asked again.
  await ask.getByText('Блок S2 уже начат').waitFor();
  await ask.getByLabel('Причина повторной отправки').fill('проверка ответов дорожек');
  await ask.getByRole('button', { name: 'Отправить блок S2 снова' }).click();
  await status.getByText('Отправлено').waitFor();
  await status.locator(id('pushed-2')).getByText('Дорожка 2: принят').waitFor();
  same('S2\'s lanes', await status.locator('li').evaluateAll((ls) => ls.map((l) => [l.dataset.testid, l.className])),
    [['pushed-2', 'pill good'], ['pushed-3', 'pill warn'], ['pushed-4', 'pill warn']]);

  step('in English, pushed again');
  await page.click('#lang');
  await page.locator(id('block-S1')).getByRole('button', { name: 'Push block S1\'s lineups' }).click();
  await ask.getByText('Block S1 has begun').waitFor();
  await ask.getByLabel('Why push it again').fill('the lanes\' answers checked again');
  await ask.getByRole('button', { name: 'Push block S1 again' }).click();
  await status.locator(id('pushed-1')).getByText('Lane 1: refused — ' + REFUSAL).waitFor();
  await status.locator(id('pushed-3')).getByText('Lane 3: offline: sent when it comes back').waitFor();
  if ((await status.innerText()).includes('Sent')) throw new Error('"Sent" with a lane refusing');
});

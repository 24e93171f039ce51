// A lineup the centre pushed for one of its blocks, on the lane's panel in
// headless Chromium: node pushed.mjs URL PIN SCREENSHOT_DIR
//
// The lineup arrives with the centre's block id and its games (the line the
// centre's command journals, journal.md). The start form offers those games
// and names the block as the centre does; other games are warned of; a
// judge's edit keeps the block; the started block is called by the
// centre's id; once its one game is bowled the panel says the block is
// complete. Exits non-zero on the first failed step.
import { url, pin, id, same, run } from './harness.mjs';

await run(async ({ page, api, shot, step, lane, until }) => {
  const post = (body) => page.request.post(api('/api/actions'), { data: body });
  const waitText = (sel, want) => page.waitForFunction(
    ([s, w]) => document.querySelector(s)?.textContent.includes(w), [sel, want]);

  step('a judge logs in');
  await page.goto(url + '#order');
  await page.waitForSelector('#h-order');
  await page.fill(id('login-pin'), pin);
  await page.fill(id('login-name'), 'Judge Orlova');
  await page.click(id('login-submit'));
  await waitText(id('judge-name'), 'Judge Orlova');

  step("the centre's lineup for block SL-B2-M1, one game");
  const pushed = await post({ ev: 'lineup', bowlers: [{ name: 'Egor Lapin', class: 'B2' }], block: 'SL-B2-M1', games: 1 });
  if (pushed.status() !== 200) throw new Error(`the lineup: ${pushed.status()} ${await pushed.text()}`);
  await waitText(id('start-plan'), 'SL-B2-M1');
  same('the block as the form names it', await page.locator(id('start-plan')).innerText(),
    'Блок SL-B2-M1 из программы центра, игр: 1');
  same('the games offered', await page.inputValue(id('start-games')), '1');
  same('no warning for the programme\'s games', await page.locator(id('start-games-warn')).isVisible(), false);
  await shot('pushed-01-plan');

  step('three games typed: warned; back to one: not');
  await page.fill(id('start-games'), '3');
  await page.waitForSelector(id('start-games-warn'), { state: 'visible' });
  const warned = await page.locator(id('start-games-warn')).innerText();
  if (!warned.includes('игр: 1') || !warned.includes('главного судьи')) throw new Error(`the warning says: ${warned}`);
  await shot('pushed-02-other-games');
  await page.fill(id('start-games'), '1');
  await page.waitForSelector(id('start-games-warn'), { state: 'hidden' });

  step("a judge's edit keeps the centre's block");
  await page.selectOption(id('lineup-voice-0'), 'short');
  await page.click(id('lineup-save'));
  await until('the edit on the server', async () => (await lane()).bowlers?.[0]?.voice === 'short');
  same('the waiting block on the server', (await lane()).next_block, { block: 1, name: 'SL-B2-M1', games: 1 });

  step('the block starts with its game, under its id');
  await page.click(id('start-block'));
  await page.waitForSelector(id('lineup-locked'));
  await waitText('#h-order', 'Блок SL-B2-M1');
  const started = (await lane()).blocks.at(-1);
  same('the block on the lane', [started.name, started.games, started.complete], ['SL-B2-M1', 1, false]);
  await page.click(id('tab-lane'));
  await waitText(id('lane-block'), 'Блок SL-B2-M1');

  step('its one game bowled: the panel says the block is complete');
  for (let i = 0; i < 12; i++) {
    const r = await post({ ev: 'manual_pins', standing: [] });
    if (r.status() !== 200) throw new Error(`strike ${i + 1}: ${r.status()} ${await r.text()}`);
  }
  await until('the block complete on the lane', async () => (await lane()).blocks.at(-1).complete === true);
  await page.click(id('tab-order'));
  await waitText(id('block-complete'), 'SL-B2-M1');
  same('what the panel says', await page.locator(id('block-complete')).innerText(),
    'Все игры блока SL-B2-M1 сыграны: следующие броски не засчитываются. Завершите блок.');
  await shot('pushed-03-complete');
  await page.click(id('lang-toggle'));
  await waitText(id('block-complete'), 'Every game of block SL-B2-M1 is bowled');
});

// The lane panel in headless Chromium: node panel.mjs URL PIN SCREENSHOT_DIR
//
// Asks the test harness for a pinsetter ball by printing `BALL <mask>` and
// waits for `sent` on stdin. Exits non-zero on the first failed step.
import { chromium } from 'playwright-core';
import { createInterface } from 'node:readline';
import { join } from 'node:path';

const [url, pin, shots] = process.argv.slice(2);
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();

async function ball(mask) {
  console.log(`BALL ${mask}`);
  const { value } = await lines.next();
  if (value !== 'sent') throw new Error(`the harness answered ${value}`);
}

const id = (name) => `[data-testid="${name}"]`;

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: [
    '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
  ],
});
let failed = false;
try {
  const context = await browser.newContext({
    viewport: { width: 800, height: 1280 },
    acceptDownloads: true,
  });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const shot = (name) => page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
  const step = (text) => console.error(`step: ${text}`);

  step('the panel loads and connects');
  await page.goto(url);
  await page.waitForSelector(id('sheet'));
  await shot('01-loaded');

  step('a judge logs in');
  await page.fill(id('login-pin'), pin);
  await page.fill(id('login-name'), 'Judge Orlova');
  await page.click(id('login-submit'));
  await page.waitForFunction(
    (sel) => document.querySelector(sel)?.textContent.includes('Judge Orlova'),
    id('judge-name'),
  );

  step('the lane order is set');
  await page.click(id('lineup-add'));
  await page.fill(id('lineup-name-0'), 'Anna K.');
  await page.selectOption(id('lineup-class-0'), 'B1');
  await page.click(id('lineup-add'));
  await page.fill(id('lineup-name-1'), 'Boris');
  await page.selectOption(id('lineup-class-1'), 'B3');
  await page.click(id('lineup-save'));

  step('the block cannot start before the blindfold check');
  await page.fill(id('start-games'), '1');
  await page.click(id('start-block'));
  await page.waitForFunction(
    (sel) => document.querySelector(sel)?.textContent.includes('Anna K.'),
    id('error'),
  );
  await shot('02-blindfold-refused');

  step('the blindfold is checked and the block starts');
  await page.click(id('blindfold-ok-0'));
  await page.click(id('start-block'));
  await page.waitForSelector(id('frame-0-1-1'));
  await shot('03-block-started');

  step('a ball from the pinsetter arrives on the sheet');
  await ball('0000001001'); // 7-10 stand: 8 pins
  await page.waitForFunction(
    (sel) => document.querySelector(sel)?.textContent.includes('8'),
    id('frame-0-1-1'),
  );
  await shot('04-ball-arrived');

  step('a judge corrects it: the 10 pin fell late');
  await page.click(id('ball-0-1-1-1'));
  await page.click(id('pin-10'));
  await page.click(id('correct-submit'));
  await page.waitForFunction(
    (sel) => document.querySelector(sel)?.textContent.includes('9'),
    id('frame-0-1-1'),
  );
  await shot('05-corrected');

  step('the sheet is exported as CSV from the history');
  await page.click(id('history-refresh'));
  const link = page.locator('[data-testid^="export-csv-"]').first();
  await link.waitFor();
  const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
  const chunks = [];
  for await (const chunk of await download.createReadStream()) chunks.push(chunk);
  const csv = Buffer.concat(chunks).toString('utf8');
  if (!csv.includes('Anna K.') || !csv.includes('block,position,bowler')) {
    throw new Error(`the CSV lacks the sheet:\n${csv}`);
  }
  if (!/Anna K\.,B1,.*,1,1,9,/.test(csv.replace(/"/g, ''))) {
    throw new Error(`the CSV lacks the corrected frame (9):\n${csv}`);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await shot('06-landscape');
} catch (e) {
  failed = true;
  console.error(`FAILED: ${e.message}`);
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);

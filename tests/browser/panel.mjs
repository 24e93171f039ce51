// The lane panel in headless Chromium: node panel.mjs URL PIN SCREENSHOT_DIR
//
// Asks the test harness for a pinsetter ball by printing `BALL <mask>` and
// waits for `sent` on stdin. Exits non-zero on the first failed step.
import { join } from 'node:path';
import { url, pin, shots, id, same, pinsetter, run, standInEventStream } from './harness.mjs';

const ball = (mask) => pinsetter('BALL', mask);

await run(async ({ page, shot, step, lane, until }) => {

  step('the panel loads and connects');
  await page.goto(url);
  await page.waitForSelector(id('lane-table'));
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
  await page.click(id('tab-order'));
  await page.click(id('lineup-add'));
  await page.fill(id('lineup-name-0'), 'Anna K.');
  await page.selectOption(id('lineup-class-0'), 'B1');
  await page.click(id('lineup-add'));
  await page.fill(id('lineup-name-1'), 'Boris');
  await page.selectOption(id('lineup-class-1'), 'B3');
  await page.selectOption(id('lineup-extras-1'), 'on'); // split and score: training
  await page.click(id('lineup-save'));
  // Each action is on the server before the next click.
  await until('the lineup on the server', async () => (await lane()).bowlers.length === 2);
  // And on the page: the form is drawn again from what was saved, and a
  // click on a button being redrawn could be lost.
  await page.waitForFunction(() => ['Состав сохранён', 'Lane order saved']
    .includes(document.getElementById('lineup-state')?.textContent));

  step('the block cannot start before the blindfold check');
  await page.fill(id('start-games'), '1');
  await page.click(id('start-block'));
  await page.waitForFunction(
    (sel) => document.querySelector(sel)?.textContent.includes('Anna K.'),
    id('error'),
  );
  await shot('02-blindfold-refused');

  step('the blindfold is checked and the block starts');
  await page.click(id('tab-blindfolds'));
  await page.click(id('blindfold-ok-0'));
  await until('the blindfold check on the server', async () => (await lane()).blindfolds.some((b) => b.ok));
  await page.click(id('tab-order'));
  await page.click(id('start-block'));
  await page.waitForSelector(id('lineup-locked'));
  await page.click(id('tab-lane'));
  await page.waitForSelector(id('frame-0-1-1'));
  await shot('03-block-started');
  const extras = await page.evaluate(() => fetch('/api/lane').then((r) => r.json())
    .then((l) => l.bowlers.map((b) => b.extras)));
  if (JSON.stringify(extras) !== '[null,true]') {
    throw new Error(`the lineup's extras are ${JSON.stringify(extras)}, not [null,true]`);
  }

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
  await page.click(id('tab-history'));
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
  await page.setViewportSize({ width: 800, height: 1280 });

  step('the journal cannot be written: a banner over every section');
  // The lane's events come from a stand-in event stream the script feeds
  // (the daemon's journal does not fail on demand); the lane is the
  // daemon's own, with the journal's state added.
  const served = await lane();
  await standInEventStream(page);
  await page.click(id('tab-lane'));
  await page.reload();
  await page.waitForSelector(id('frame-0-1-1'));
  const push = (journal, more = {}) => page.evaluate(([l, j]) => window.laneEvents.dispatchEvent(
    new MessageEvent('lane', { data: JSON.stringify({ ...l, journal: j }) })), [{ ...served, ...more }, journal]);
  const speakerWhy = 'default: no sound card (/dev/snd is absent)';
  const reason = 'No space left on device (os error 28)';
  await push({
    state: 'failed',
    file: 'lane5-20261130T120000Z-000004.jsonl',
    lines: 40,
    failed: { reason, since_t: 123456, waiting: 3, shed: 0 },
    set_aside: [{ file: 'lane5-20261129T090000Z-000001.jsonl.damaged', reason: 'line 1, the header, is damaged' }],
    notices: [{ at: '2026-11-30T12:03:00Z', message: 'the journal file was deleted while the lane ran: restored from the open file' }],
    mirror: { state: 'failed', path: '/mnt/usb/lanecall', reason: 'Read-only file system (os error 30)' },
  }, { speaker: { state: 'no_device', reason: speakerWhy } });
  const text = (name) => page.locator(id(name)).innerText();
  await page.waitForSelector(id('journal-alert'), { state: 'visible' });
  const banner = await text('journal-alert');
  if (!banner.includes('Счёт остановлен') || !banner.includes(reason) || !banner.includes(': 3')) {
    throw new Error(`the banner says: ${banner}`);
  }
  const notes = await page.locator(id('journal-notes')).textContent();
  if (!notes.includes('000001.jsonl.damaged') || !notes.includes('restored from the open file')) {
    throw new Error(`the journal's notes say: ${notes}`);
  }
  if (!(await text('status-mirror')).includes('Read-only file system')) {
    throw new Error('the failed mirror is not shown');
  }
  // The speaker's reason is the technician's English: not the message on
  // a Russian screen, only its tooltip.
  same('the speaker\'s state on a Russian screen', await text('status-speaker'), 'Динамик: НЕТ УСТРОЙСТВА');
  same('the speaker\'s reason, for the technician', await page.getAttribute(id('status-speaker'), 'title'), `Для техника: ${speakerWhy}`);
  await shot('07-journal-failed');
  // In sight whichever tab is shown, wherever it is scrolled to.
  await page.click(id('tab-history'));
  await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
  const top = await page.locator(id('journal-alert')).boundingBox();
  const height = await page.evaluate(() => window.innerHeight);
  if (!top || top.y < 0 || top.y + top.height > height) throw new Error(`the banner is out of sight on the history: ${JSON.stringify(top)}`);
  await page.screenshot({ path: join(shots, '08-journal-failed-history.png') });

  step('a judge action is refused with the lane\'s reason');
  const refusal = `the journal cannot be written: ${reason}; the lane is held until it can`;
  await page.route('**/api/actions', (route) => route.fulfill({ status: 503, json: { error: refusal } }));
  await page.click(id('tab-judge'));
  await page.click(id('hold-toggle'));
  await page.waitForFunction(
    ([sel, want]) => document.querySelector(sel)?.textContent.includes(want),
    [id('error'), refusal],
  );
  await page.click(id('tab-lane'));
  await page.click(id('ball-0-1-1-1'));
  await page.click(id('correct-submit'));
  await page.waitForFunction(
    ([sel, want]) => document.querySelector(sel)?.textContent.includes(want),
    [id('dialog-error'), refusal],
  );
  await shot('09-refused-in-dialog');
  await page.click(id('dialog-cancel'));
  await page.unroute('**/api/actions');

  step('in English, and in the dark theme');
  await page.click(id('lang-toggle'));
  await page.click(id('theme-toggle'));
  const english = await text('journal-alert');
  if (!english.includes('Scoring stopped') || !english.includes('Call a judge') || !english.includes('3 inputs waiting')) {
    throw new Error(`the English banner says: ${english}`);
  }
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(shots, '10-journal-failed-dark-en.png') });

  step('the journal is written again: the banner goes');
  await push({ state: 'ok', file: 'lane5-20261130T120000Z-000004.jsonl', lines: 44, set_aside: [], notices: [] });
  await page.waitForSelector(id('journal-alert'), { state: 'hidden' });
  await page.waitForSelector(id('journal-notes'), { state: 'hidden' });
  await page.waitForSelector(id('status-mirror'), { state: 'hidden' });
  await shot('11-journal-ok');
}, { contextOptions: { acceptDownloads: true } });

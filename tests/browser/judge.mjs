// A judge's rulings in headless Chromium: node judge.mjs URL PIN SCREENSHOT_DIR
//
// A new blindfold check asked for, a wrong deck and a dead ball, and the
// day's second block. Asks the test harness for pinsetter lines by printing
// `READY <mask>` or `PINS <mask>` and waits for `sent` on stdin. Exits
// non-zero on the first failed step.
import { url, pin, id, same, pinsetter, run, timeOfDay } from './harness.mjs';

await run(async ({ page, shot, step, lane, until }) => {
  const text = (name) => page.locator(id(name)).innerText();
  const showsAt = (sel, want) => page.waitForFunction(
    ([s, w]) => document.querySelector(s)?.textContent.includes(w),
    [sel, want],
  );
  const shows = (name, want) => showsAt(id(name), want);
  // The judge's confirmations: each is read and accepted.
  const asked = [];
  page.on('dialog', (d) => { asked.push(d.message()); d.accept(); });

  step('a judge logs in, sets a B1 bowler, checks the blindfold and starts a block');
  await page.goto(url);
  await page.waitForSelector(id('lane-table'));
  await page.fill(id('login-pin'), pin);
  await page.fill(id('login-name'), 'Judge Orlova');
  await page.click(id('login-submit'));
  await shows('judge-name', 'Judge Orlova');
  await page.click(id('tab-order'));
  await page.click(id('lineup-add'));
  await page.fill(id('lineup-name-0'), 'Anna K.');
  await page.selectOption(id('lineup-class-0'), 'B1');
  await page.click(id('lineup-save'));
  await until('the lineup on the server', async () => (await lane()).bowlers.length === 1);
  await page.click(id('tab-blindfolds'));
  await page.click(id('blindfold-ok-0'));
  await until('the blindfold check on the server', async () => (await lane()).blindfolds.some((b) => b.ok));
  // Times of day on the lane: the daemon runs with TZ=Asia/Kamchatka
  // (UTC+12, never the browser's zone), its journal gives the wall clock.
  const checked = await lane();
  same('the lane\'s time zone', checked.time_zone.offset_s, 12 * 3600);
  const drift = Math.abs(Date.parse(checked.wall_clock.at(-1).wall) - Date.now());
  if (!(drift < 120000)) throw new Error(`the lane's wall clock is ${drift} ms off: ${JSON.stringify(checked.wall_clock)}`);
  const check = checked.blindfolds.find((b) => b.ok);
  await shows('blindfold-row-0', `✓ в порядке, ${timeOfDay(checked, check.checked_at)}, Judge Orlova`);
  await page.click(id('tab-order'));
  await page.fill(id('start-games'), '1');
  await page.click(id('start-block'));
  await page.waitForSelector(id('lineup-locked'));
  await page.click(id('tab-lane'));
  await page.waitForSelector(id('frame-0-1-1'));
  await shows('up-now', 'Anna K.');

  step('a judge asks for a new blindfold check');
  await page.click(id('tab-blindfolds'));
  if (await page.locator(id('blindfold-recheck-awaited-0')).count()) {
    throw new Error('a new check is said to be awaited before anyone asked for one');
  }
  await page.click(id('blindfold-recheck-0'));
  await shows('blindfold-recheck-awaited-0', 'Anna K.: судья запросил новую проверку повязки');
  if (!asked.length || !asked[asked.length - 1].includes('Anna K.')) {
    throw new Error(`the confirmation does not name the bowler: ${JSON.stringify(asked)}`);
  }
  await page.waitForSelector(id('status-blindfold'), { state: 'visible' });
  const status = await text('status-blindfold');
  if (!status.includes('ждёт новой проверки повязки: Anna K.')) throw new Error(`the status says: ${status}`);
  // Asked for already: not offered again until a new check passes.
  await page.waitForSelector(id('blindfold-recheck-0'), { state: 'detached' });
  same('/api/lane blindfolds after the request',
    (await lane()).blindfolds.map((b) => [b.bowler, b.ok, b.recheck]), [['Anna K.', true, true]]);
  await shot('judge-01-recheck-asked');
  await page.click(id('lang-toggle'));
  await shows('blindfold-recheck-awaited-0', 'Anna K.: a judge asked for a new blindfold check');
  await shows('status-blindfold', 'new blindfold check awaited for Anna K.');
  await page.click(id('lang-toggle'));

  step('the new check is recorded: nothing is awaited any more');
  await page.click(id('blindfold-ok-0'));
  await page.waitForSelector(id('blindfold-recheck-awaited-0'), { state: 'detached' });
  await page.waitForSelector(id('status-blindfold'), { state: 'hidden' });
  await page.waitForSelector(id('blindfold-recheck-0'));
  same('/api/lane blindfolds after the new check',
    (await lane()).blindfolds.map((b) => [b.bowler, b.ok, b.recheck]), [['Anna K.', true, false]]);

  step('the pinsetter sets pin 10 alone for frame 1: the banner says "pin 10", not a count of pins');
  await page.click(id('tab-lane'));
  await pinsetter('READY', '0000000001');
  await page.waitForSelector(id('deck-alert'), { state: 'visible' });
  await shows('deck-alert', 'НЕВЕРНАЯ РАССТАНОВКА для Anna K. (фрейм 1, бросок 1)');
  same('the deck banner\'s pins', await page.locator('#deck-alert-pins').innerText(), 'должны стоять: все 10 кеглей · стоят: кегля 10'
    + ' · не хватает: кегли 1, 2, 3, 4, 5, 6, 7, 8, 9. Судья: попросите пинсеттер переставить или доставить кегли. Часы медленной игры стоят.');
  await page.click(id('lang-toggle'));
  await shows('deck-alert', 'WRONG DECK for Anna K. (frame 1, ball 1)');
  same('the deck banner\'s pins in English', await page.locator('#deck-alert-pins').innerText(), 'expected: all ten pins · set: pin 10'
    + ' · missing: pins 1, 2, 3, 4, 5, 6, 7, 8, 9. Judge: have the pinsetter re-rack or respot. The slow-bowling clock waits.');
  await page.click(id('lang-toggle'));
  await shot('judge-02-pin-10-alone');

  step('the pinsetter sets a deck without pin 5 for frame 1: the banner names it');
  await pinsetter('READY', '1111011111');
  await showsAt('#deck-alert-pins', 'не хватает: кегля 5.');
  const deck = await text('deck-alert');
  if (!deck.includes('НЕВЕРНАЯ РАССТАНОВКА для Anna K. (фрейм 1, бросок 1)')
    || !deck.includes('должны стоять: все 10 кеглей · стоят: кегли 1, 2, 3, 4, 6, 7, 8, 9, 10 · не хватает: кегля 5.')) {
    throw new Error(`the deck banner says: ${deck}`);
  }
  const wrong = (await lane()).wrong_deck;
  same('/api/lane wrong_deck', [wrong.bowler, wrong.frame, wrong.ball, wrong.missing, wrong.extra],
    ['Anna K.', 1, 1, [5], []]);
  await shot('judge-02-wrong-deck');

  step('she bowls at it anyway, all nine pins set fall: the ball is starred');
  // Without a ball sensor the lane takes the release to be 2.5 s before
  // the pin report: she bowls after the new check, not before it.
  await page.waitForTimeout(3000);
  await pinsetter('PINS', '0000000000');
  await shows('ball-0-1-1-1', '9*');
  const label = await page.locator(id('ball-0-1-1-1')).getAttribute('aria-label');
  if (!label.includes('при неверной расстановке')) throw new Error(`the ball's label says: ${label}`);
  const star = await page.locator(`${id('ball-0-1-1-1')} .sym`).getAttribute('title');
  if (star !== 'при неверной расстановке') throw new Error(`the star's title is ${star}`);
  const bowled = (await lane()).bowlers[0].games[0].frames[0].balls[0];
  same('/api/lane ball at the wrong deck', [bowled.pinfall, bowled.wrong_deck.missing], [9, [5]]);
  await shot('judge-03-ball-starred');

  step('one tap on ? opens the legend: the star, the red dashed box and the circle, drawn as on the sheet');
  same('the legend before a tap', await page.locator(id('legend')).isVisible(), false);
  await page.click(id('legend-toggle'));
  await page.waitForSelector(id('legend'), { state: 'visible' });
  same('the button says the legend is open', await page.getAttribute(id('legend-toggle'), 'aria-expanded'), 'true');
  // Each mark: its sample's symbol, how it is drawn, and the words.
  const legend = () => page.evaluate(() => ['mkWrongDeck', 'mkInPlay', 'mkSplit'].map((k) => {
    const li = document.querySelector(`[data-testid="legend-${k}"]`);
    const ball = li.querySelector('.legend-mark .ball');
    const sym = ball.querySelector('.sym');
    const s = getComputedStyle(ball);
    return [ball.textContent, s.outlineStyle, getComputedStyle(sym).borderRadius, s.color, li.querySelector('.legend-text').textContent];
  }));
  const starred = await page.evaluate(() => getComputedStyle(document.querySelector('[data-testid="ball-0-1-1-1"]')).color);
  const marks = await legend();
  same('the legend\'s marks', marks.map((m) => m.slice(0, 3)), [['-*', 'none', '0px'], ['9', 'dashed', '0px'], ['7', 'none', '50%']]);
  same('the star drawn in the sheet\'s colour', marks[0][3], starred);
  same('the legend\'s words', marks.map((m) => m[4]), [
    'звёздочка: бросок при неверной расстановке; судья принимает его или объявляет недействительным',
    'красная пунктирная рамка: мяч ещё в игре, фол на этот бросок ещё могут объявить',
    'в кружке: сплит',
  ]);
  await shot('judge-03-legend');
  await page.click(id('lang-toggle'));
  await page.waitForFunction(() => document.querySelector('[data-testid="legend-mkSplit"]')?.textContent.includes('circled: a split'));
  same('the legend\'s words in English', (await legend()).map((m) => m[4]), [
    'star: bowled at a wrong deck; the judge accepts it or declares it dead',
    'red dashed box: the ball is still in play, a foul may still be called on it',
    'circled: a split',
  ]);
  await page.click(id('lang-toggle'));
  await page.click(id('legend-close'));
  await page.waitForSelector(id('legend'), { state: 'hidden' });
  same('focus back on the button', await page.evaluate(() => document.activeElement.id), 'legend-toggle');
  await page.click(id('legend-toggle'));
  await page.waitForSelector(id('legend'), { state: 'visible' });
  await page.keyboard.press('Escape');
  await page.waitForSelector(id('legend'), { state: 'hidden' });

  step('the judge declares it dead: it is gone from the sheet and the lane');
  await page.click(id('tab-judge'));
  await shows('dead-ball-what', 'Anna K., игра 1, фрейм 1, бросок 1 — при неверной расстановке');
  await page.click(id('dead-ball'));
  await shows('toast', 'Бросок объявлен недействительным: Anna K., фрейм 1, бросок 1');
  await page.click(id('tab-lane'));
  await page.waitForSelector(id('ball-0-1-1-1'), { state: 'detached' });
  const after = await lane();
  same('/api/lane balls after the dead ball',
    after.bowlers[0].games.flatMap((g) => g.frames.flatMap((f) => f.balls)), []);
  same('/api/lane last_ball after the dead ball', after.last_ball, null);
  same('/api/lane up after the dead ball',
    [after.up.bowler, after.up.game, after.up.frame, after.up.ball], ['Anna K.', 1, 1, 1]);
  const dead = after.conduct.filter((c) => c.kind === 'dead_ball');
  same('/api/lane dead_ball entries', dead.map((c) => [c.bowler, c.frame, c.ball, c.deck, c.by]),
    [['Anna K.', 1, 1, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 'Judge Orlova']]);
  await page.click(id('tab-judge'));
  await shows('conduct-list', `${timeOfDay(after, dead[0].t)} · Anna K. · Недействительный бросок`);
  await shot('judge-04-dead-ball');

  step('the block ends and the next one starts: Block 2');
  await page.click(id('tab-order'));
  await page.click(id('end-block'));
  await page.waitForSelector(id('start-block'));
  await page.fill(id('start-games'), '1');
  await page.click(id('start-block'));
  await page.waitForSelector(id('lineup-locked'));
  await showsAt('#h-order', 'Блок 2');
  await page.click(id('tab-lane'));
  await shows('lane-block', 'Блок 2 (идёт)');
  const second = await lane();
  same('/api/lane blocks in the second journal', second.blocks.map((b) => [b.block, b.ended]), [[2, false]]);
  same('/api/lane bowlers in block 2', second.bowlers.map((b) => [b.name, b.block]), [['Anna K.', 2]]);
  await page.click(id('lang-toggle'));
  await shows('lane-block', 'Block 2 (in progress)');
  await page.click(id('tab-order'));
  await showsAt('#h-order', 'Block 2');
  await shot('judge-05-block-2');

  step('between blocks, a check of a bowler not on the next lineup');
  await page.click(id('end-block'));
  await page.waitForSelector(id('start-block'));
  await page.fill(id('lineup-name-0'), 'Boris T.');
  await page.selectOption(id('lineup-class-0'), 'B3');
  await page.click(id('lineup-save'));
  await until('the next lineup on the server', async () => (await lane()).bowlers.some((b) => b.name === 'Boris T.'));
  await page.click(id('tab-blindfolds'));
  await shows('blindfolds-day', 'Checked today, not on the lane now');
  await shows('blindfold-day-row-0', 'Anna K.');
  same('no adjusting off the lane', await page.locator(id('blindfold-day-adjust-0')).count(), 0);
  await page.click(id('blindfold-day-fail-0'));
  await until('the failed check on the server', async () => (await lane()).blindfolds.some((b) => b.bowler === 'Anna K.' && !b.ok));
  await shows('blindfold-day-row-0', '✗ failed');
  same('no error shown', await page.locator(id('error')).isVisible(), false);
  await page.click(id('blindfold-day-ok-0'));
  await until('the new check on the server', async () => (await lane()).blindfolds.some((b) => b.bowler === 'Anna K.' && b.ok));
  await shot('judge-06-day-checks');

  step('mid-game, the series with handicap counts every game begun, as the lane and its exports do');
  await page.click(id('tab-order'));
  await page.fill(id('lineup-handicap-0'), '15');
  await page.click(id('lineup-save'));
  await until('the handicap on the server', async () => (await lane()).bowlers.some((b) => b.name === 'Boris T.' && b.handicap === 15));
  await page.fill(id('start-games'), '2');
  await page.click(id('start-block'));
  await page.waitForSelector(id('lineup-locked'));
  for (let ball = 0; ball < 12; ball++) await pinsetter('BALL', '0000000000');
  const boris = async () => (await lane()).bowlers.find((b) => b.name === 'Boris T.');
  await until('game 1 bowled', async () => (await boris()).games[0]?.complete === true);
  // Game 2 begun, no frame of it settled: 7-10 stand after ball 1.
  await pinsetter('BALL', '0000001001');
  await until('game 2 begun', async () => (await boris()).games.length === 2);
  same('the lane\'s series with handicap', [(await boris()).series, (await boris()).series_with_handicap], [300, 330]);
  await page.click(id('tab-lane'));
  await page.click(id('block-view'));
  await page.waitForFunction((sel) => document.querySelector(sel)?.textContent === '330', id('series-hdcp-0'));
  same('the series on the card', await text('series-0'), '300');
  await shot('judge-07-series-mid-game');
});

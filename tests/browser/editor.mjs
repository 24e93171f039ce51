// The lane order editor in headless Chromium: node editor.mjs URL PIN SCREENSHOT_DIR
//
// The lane's [speaker] language is English, the screen's Russian, and its
// pinsetter port never opened. Checks that the editor shows exactly what is
// saved after moves, removals and a substitution, that a new bowler's class
// must be chosen, that the bowler who left keeps a marked card, and that
// the callout language is kept or taken from the lane. Exits non-zero on
// the first failed step.
import { url, pin, id, same, run } from './harness.mjs';

const FIELDS = ['name', 'class', 'handicap', 'team', 'voice', 'lang'];

await run(async ({ page, api, shot, step, lane, until }) => {
  const post = (body) => page.request.post(api('/api/actions'), { data: body });

  // The lane order on the server: the latest block's last entry at each
  // position, as the lane has it.
  const serverOrder = async () => {
    const l = await lane();
    const bs = l.bowlers || [];
    const block = Math.max(0, ...bs.map((b) => b.block || 0));
    const byPos = new Map();
    for (const b of bs) if ((b.block || 0) === block) byPos.set(b.position, b);
    return { lane: l, order: [...byPos.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]) };
  };
  // What the editor's form shows, row by row.
  const form = (prefix) => page.evaluate(([p, fields]) => {
    const rows = [];
    for (let i = 0; document.getElementById(p + 'name-' + i); i++) {
      const row = {};
      for (const f of fields) row[f] = document.getElementById(p + f + '-' + i).value;
      rows.push(row);
    }
    return rows;
  }, [prefix, FIELDS]);
  const shown = async () => (await form('lineup-')).map((r) => [r.name, r.class, r.lang, r.voice]);
  const waitText = (sel, want) => page.waitForFunction(
    ([s, w]) => document.querySelector(s)?.textContent.includes(w), [sel, want]);

  step('the panel loads; the port that never opened is a link down');
  await page.goto(url + '#order');
  await page.waitForSelector('#h-order');
  await page.fill(id('login-pin'), pin);
  await page.fill(id('login-name'), 'Judge Orlova');
  await page.click(id('login-submit'));
  await waitText(id('judge-name'), 'Judge Orlova');
  await waitText('#status-link', 'НЕТ СВЯЗИ');

  step('the server refuses a bowler without a class');
  for (const body of [
    { ev: 'lineup', bowlers: [{ name: 'Nobody' }] },
    { ev: 'substitute', out: 'Anna', in: { name: 'Nobody' } },
  ]) {
    const r = await post(body);
    const text = await r.text();
    if (r.status() !== 400 || !text.includes('class')) throw new Error(`${body.ev} without a class: ${r.status()} ${text}`);
  }

  step('a lineup saved elsewhere: Anna speaks Russian, Boris the lane\'s language, Clara English');
  const saved = await post({ ev: 'lineup', bowlers: [
    { name: 'Anna', class: 'B1', lang: 'ru' },
    { name: 'Boris', class: 'B3' },
    { name: 'Clara', class: 'B2', lang: 'en', voice: 'short' },
  ] });
  if (saved.status() !== 200) throw new Error(`the lineup: ${saved.status()} ${await saved.text()}`);
  await page.waitForFunction(() => document.getElementById('lineup-name-2')?.value === 'Clara');
  same('the editor shows the saved lineup, Boris in the lane\'s language', await shown(), [
    ['Anna', 'B1', 'ru', 'pins'], ['Boris', 'B3', 'en', 'pins'], ['Clara', 'B2', 'en', 'short']]);

  step('↓, ✕ and a new bowler: the form shows the model');
  await page.click(id('lineup-down-0'));
  same('after ↓ on the first bowler', await shown(), [
    ['Boris', 'B3', 'en', 'pins'], ['Anna', 'B1', 'ru', 'pins'], ['Clara', 'B2', 'en', 'short']]);
  await page.click(id('lineup-remove-2'));
  same('after ✕ on the third bowler', await shown(), [['Boris', 'B3', 'en', 'pins'], ['Anna', 'B1', 'ru', 'pins']]);
  await page.click(id('lineup-add'));
  same('a new bowler has no class and the lane\'s language', await shown(), [
    ['Boris', 'B3', 'en', 'pins'], ['Anna', 'B1', 'ru', 'pins'], ['', '', 'en', 'pins']]);
  await page.fill(id('lineup-name-2'), 'Dmitri');

  step('saving without a class is refused on the page');
  await page.click(id('lineup-save'));
  await page.waitForSelector(id('error'), { state: 'visible' });
  const refusal = await page.locator(id('error')).innerText();
  if (!refusal.includes('3') || !/класс/i.test(refusal)) throw new Error(`the refusal says: ${refusal}`);
  same('the server still has the old lineup', (await serverOrder()).order.map((b) => b.name), ['Anna', 'Boris', 'Clara']);
  await shot('editor-01-class-needed');

  step('the class is chosen, Dmitri moves up, the lineup is saved');
  await page.selectOption(id('lineup-class-2'), 'B1');
  await page.click(id('lineup-up-2'));
  // Dmitri wants only the pins hidden behind others called.
  await page.selectOption(id('lineup-voice-1'), 'hidden');
  const before = await shown();
  same('after ↑ on the new bowler', before, [
    ['Boris', 'B3', 'en', 'pins'], ['Dmitri', 'B1', 'en', 'hidden'], ['Anna', 'B1', 'ru', 'pins']]);
  await page.click(id('lineup-save'));
  await page.waitForFunction(async () => {
    const l = await (await fetch('/api/lane')).json();
    return (l.bowlers || []).some((b) => b.name === 'Dmitri');
  });
  await page.waitForFunction(() => document.getElementById('lineup-state')?.textContent === 'Состав сохранён');
  const { order } = await serverOrder();
  same('the server\'s lineup', order.map((b) => [b.name, b.class, b.lang, b.voice]), [
    ['Boris', 'B3', null, 'pins'], ['Dmitri', 'B1', 'en', 'hidden'], ['Anna', 'B1', 'ru', 'pins']]);
  same('the form after saving is the server\'s lineup', await shown(),
    order.map((b) => [b.name, b.class, b.lang || 'en', b.voice]));
  const legends = await page.locator('#panel-order fieldset legend').allInnerTexts();
  same('the editor numbers its rows once each', legends, ['Игрок 1', 'Игрок 2', 'Игрок 3']);
  await shot('editor-02-saved');

  step('the block starts; a substitute comes in for Boris');
  // Each check is on the server before the next click: a click while the
  // panel redraws for the first must not be lost.
  const checks = async () => (await lane()).blindfolds.filter((b) => b.ok).length;
  await page.click(id('tab-blindfolds'));
  for (const i of [1, 2]) {
    const before = await checks();
    await page.click(id(`blindfold-ok-${i}`));
    await until(`blindfold check ${i} on the server`, async () => (await checks()) > before);
  }
  await page.click(id('tab-order'));
  await page.fill(id('start-games'), '2');
  await page.click(id('start-block'));
  await page.waitForSelector(id('lineup-locked'));
  // Nobody's pinsetter reports: the lane view offers the pin pad at once.
  await page.click(id('tab-lane'));
  await page.waitForSelector(id('pad'));
  await page.click(id('tab-order'));
  await page.selectOption(id('sub-out'), 'Boris');
  same('the substitute form: no class, the lane\'s language', (await form('sub-')).map((r) => [r.name, r.class, r.lang]),
    [['', '', 'en']]);
  await page.fill(id('sub-name-0'), 'Elena');
  await page.click(id('sub-submit'));
  await page.waitForSelector(id('error'), { state: 'visible' });
  if (!/класс/i.test(await page.locator(id('error')).innerText())) throw new Error('the substitute without a class is not refused on the page');
  same('nothing was sent', (await serverOrder()).order.map((b) => b.name), ['Boris', 'Dmitri', 'Anna']);
  await page.selectOption(id('sub-class-0'), 'B1');
  await page.click(id('sub-submit'));
  await page.waitForFunction(() => document.querySelector('[data-testid="lineup-locked"]')?.textContent.includes('Elena'));

  step('after the substitution: the form is blank, the lane has the substitute');
  // Blank once the lane has answered (a form drawn from stale fields never is).
  await page.waitForFunction(() => document.getElementById('sub-name-0')?.value === '', null, { timeout: 5000 })
    .catch(() => {});
  same('the substitute form after the substitution', (await form('sub-')).map((r) => [r.name, r.class]), [['', '']]);
  const after = await serverOrder();
  same('the server\'s order', after.order.map((b) => [b.name, b.class, b.lang]), [
    ['Elena', 'B1', 'en'], ['Dmitri', 'B1', 'en'], ['Anna', 'B1', 'ru']]);
  const locked = await page.locator(`${id('lineup-locked')} tbody tr`).allInnerTexts();
  same('the locked order shown', locked.map((r) => r.split('\t').slice(0, 3)), [
    ['1', 'Elena', 'B1'], ['2', 'Dmitri', 'B1'], ['3', 'Anna', 'B1']]);

  step('Elena, a B1 substitute, is shown as needing a blindfold check');
  await page.click(id('tab-blindfolds'));
  const elena = page.locator('[data-testid^="blindfold-row-"]', { hasText: 'Elena' });
  await elena.waitFor();
  if (!(await elena.innerText()).includes('нужна проверка')) throw new Error(`Elena's blindfold card: ${await elena.innerText()}`);
  const dmitri = await page.locator('[data-testid^="blindfold-row-"]', { hasText: 'Dmitri' }).innerText();
  if (dmitri.includes('нужна проверка')) throw new Error(`Dmitri was checked: ${dmitri}`);

  step('Boris keeps a card marked as left on the block sheet; every card\'s number is its own');
  await page.click(id('tab-lane'));
  await page.click(id('block-view'));
  const boris = page.locator('[data-testid^="bowler-"]', { hasText: 'Boris' });
  if (!(await boris.innerText()).includes('выбыл, заменён: Elena')) throw new Error(`Boris's card: ${await boris.innerText()}`);
  const numbers = (await page.locator('#sheet .pos').allInnerTexts()).filter((x) => x.trim()).sort();
  same('the sheet\'s numbers', numbers, ['1.', '2.', '3.']);
  await shot('editor-03-substituted');
  await page.click(id('lang-toggle'));
  await waitText('#sheet', 'left, replaced by Elena');
  await page.click(id('tab-blindfolds'));
  if (!(await elena.innerText()).includes('needs a blindfold check')) throw new Error(`Elena's card in English: ${await elena.innerText()}`);
  await shot('editor-04-substituted-en');

  step('the block ends: the editor starts from the order with the substitute, and saves it as shown');
  const journalBefore = (await lane()).journal.file;
  page.once('dialog', (d) => d.accept());
  await page.click(id('tab-order'));
  await page.click(id('end-block'));
  await page.waitForSelector(id('lineup-name-2'));
  same('the editor after the block', await shown(), [
    ['Elena', 'B1', 'en', 'pins'], ['Dmitri', 'B1', 'en', 'hidden'], ['Anna', 'B1', 'ru', 'pins']]);
  await page.click(id('lineup-save'));
  await page.waitForFunction(async (before) => {
    const l = await (await fetch('/api/lane')).json();
    return l.journal && l.journal.file !== before && (l.bowlers || []).length === 3;
  }, journalBefore);
  const next = await serverOrder();
  same('the next block\'s lineup on the server', next.order.map((b) => [b.name, b.class, b.lang || 'en', b.voice]), await shown());
  // The next block has a journal of its own: it starts with the link's state.
  same('the link in the next block\'s journal', next.lane.pinsetter.link, 'down');
  await waitText('#status-link', 'LINK DOWN');
}, {
  onFail: async () => {
    if (process.env.EDITOR_DEBUG) console.error(JSON.stringify(await (await fetch(new URL('/api/lane', url))).json()).slice(0, 3000));
  },
});

// The tournament director's page in a real browser, two real lanes behind
// it (tests/centre/centre_director.rs): lane 1's card draws Ivan Petrov's frames
// as balls fall; lane 3 of the config, never connected, in red, a lineup
// held for it cancelled from its card; lane 1 held with a reason and
// resumed from its card; the standings per category (a woman's +10 said) and the
// doubles, a game in progress marked; block S2 set by form (the withdrawn
// entry not offered, a name twice refused on the page) and pushed; the
// round robin proposed from the standings, confirmed in one press and
// pushed; times of day as HH:MM:SS in the centre's zone; plurals; both
// themes; no horizontal overflow at 1920×1080 and 1280×800; no request
// refused; the page under 150 KB. Arguments: URL PIN SCREENSHOT_DIR;
// balls are asked of the harness as `BOWL <lane> <notation>`.
import { run, url, pin, id, same, pinsetter } from './harness.mjs';
import { weight } from './lane-api.mjs';
import { TABS, noOverflow } from './centre-page.mjs';

const bowl = (lane, notation) => pinsetter('BOWL', lane + ' ' + notation);

// In the page: each visible element's own text whose contrast with the
// background behind it is under WCAG AA (4.5:1; 3:1 for large text).
function lowContrast() {
  const rgb = (c) => c.match(/[\d.]+/g).map(Number);
  const lum = (c) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
  };
  const behind = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c.length < 4 || c[3] > 0) return c;
    }
    return [255, 255, 255];
  };
  const bad = [];
  for (const el of document.querySelectorAll('body *')) {
    if (!el.getClientRects().length || el.closest('.vh, [hidden]')) continue;
    if (![...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
    const cs = getComputedStyle(el);
    const [a, b] = [lum(rgb(cs.color)), lum(behind(el))].sort((x, y) => y - x);
    const ratio = (a + 0.05) / (b + 0.05);
    const size = parseFloat(cs.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(cs.fontWeight) >= 700);
    if (ratio < (large ? 3 : 4.5)) bad.push(`${el.tagName} "${el.textContent.trim().slice(0, 30)}" ${ratio.toFixed(2)}`);
  }
  return bad;
}

await run(async ({ page, shot, step, api, until }) => {
  const refused = [];
  // A 409 the page asks about (a begun block pushed again, finals before
  // the preliminaries end) is an answer, not a fault; any other is.
  const asked = (u) => /\/api\/(push|blocks\/lanes)$/.test(new URL(u).pathname);
  page.on('response', (r) => { if (r.status() >= 400 && !(r.status() === 409 && asked(r.url()))) refused.push(r.status() + ' ' + r.url()); });
  page.on('console', (m) => {
    const where = m.location() && m.location().url;
    if (m.type() === 'error' && !(/status of 409/.test(m.text()) && where && asked(where))) refused.push('console: ' + m.text());
  });
  await page.setViewportSize({ width: 1920, height: 1080 });

  step('lane 1\'s card shows the frames as the balls fall');
  await page.goto(url);
  const w = await weight(page);
  console.error(`centre page weight: ${w.total} bytes (${w.files.map(([f, b]) => `${f} ${b}`).join(', ')})`);
  if (!(w.total > 0 && w.total < 150 * 1024)) throw new Error(`the page weighs ${w.total} bytes`);
  const card = page.locator(id('lane-1'));
  await card.getByText('на связи', { exact: true }).waitFor();
  const row = card.locator(id('frames-1-0'));
  await row.getByText('Ivan Petrov').waitFor();
  const frames = (r) => r.locator('td.fr').evaluateAll((tds) => tds.slice(0, 3).map((td) => [...td.children].map((c) => c.textContent)));
  await bowl(1, 'X');
  await until('a strike on the card', async () => JSON.stringify(await frames(row)) === JSON.stringify([['X', ''], ['', ''], ['', '']]))
    .catch(async (e) => {
      const l = (await (await page.request.get(api('/api/lanes'))).json())[0];
      console.error(JSON.stringify(await frames(row)), JSON.stringify(l.state.bowlers).slice(0, 1500));
      throw e;
    });
  await bowl(1, '9/');
  await until('X 9/ on the card', async () => JSON.stringify(await frames(row)) === JSON.stringify([['X', '20'], ['9/', ''], ['', '']]));
  await bowl(2, '72');
  const row2 = page.locator(id('lane-2')).locator(id('frames-2-0'));
  await until('7 2 on lane 2\'s card', async () => JSON.stringify(await frames(row2)) === JSON.stringify([['72', '9'], ['', ''], ['', '']]));
  same('the totals (Nina Guseva not started)', await page.locator('td.tot').allTextContents(), ['20', '9', '']);
  await card.getByText('Копия журнала: ', { exact: false }).waitFor();

  step('lane 3 of the config, never connected, has its card in red');
  const card3 = page.locator(id('lane-3'));
  const never = card3.getByText('НИ РАЗУ НЕ НА СВЯЗИ', { exact: true });
  await never.waitFor();
  const red = await never.evaluate((el) => getComputedStyle(el).backgroundColor.match(/\d+/g).map(Number));
  if (!(red[0] > 150 && red[1] < 60 && red[2] < 60)) throw new Error('"never connected" is not red: rgb(' + red + ')');
  same('the cards in lane order', await page.locator('#lanes article').evaluateAll((a) => a.map((x) => x.dataset.testid)),
    ['lane-1', 'lane-2', 'lane-3']);
  same('no hold button before a login', await page.locator(id('hold-1')).count(), 0);
  await shot('director-lanes');

  step('the chief judge logs in on the lanes\' tab');
  await page.getByLabel('ПИН', { exact: true }).fill(pin);
  await page.getByRole('button', { name: 'Войти' }).click();
  await page.getByText('Судья: chief judge').waitFor();
  await card.getByRole('button', { name: 'Остановить дорожку 1' }).waitFor();

  step('a lineup held for lane 3 (offline) cancelled from its card');
  const held = await page.request.post(api('/api/push'), { data: { block: 'S1', lanes: { 3: [{ name: 'Pavel Kim', class: 'B1' }] } } });
  same('the push held for lane 3', (await held.json()).offline, [3]);
  const waiting = card3.locator(id('held-3'));
  await waiting.getByText(/^Ждёт дорожку: S1 · \d\d:\d\d:\d\d · chief judge/).waitFor();
  await card3.getByRole('button', { name: 'Отменить «S1» для дорожки 3' }).click();
  await until('nothing held for lane 3', async () => (await waiting.count()) === 0);
  const cancelled = (await (await page.request.get(api('/api/pushes'))).json())[0].lanes['3'];
  same('the push cancelled, by whom', [cancelled.status, cancelled.cancelled_by], ['cancelled', 'chief judge']);

  step('lane 1 held from its card, with a reason, and resumed');
  await card.getByRole('button', { name: 'Остановить дорожку 1' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('button', { name: 'Остановить дорожку 1' }).click();
  await dialog.getByText('Укажите причину остановки').waitFor();
  await dialog.getByLabel('Причина остановки').fill('масло на дорожке');
  await dialog.getByRole('button', { name: 'Остановить дорожку 1' }).click();
  // The lane names who held it: the centre, for the judge logged in there.
  await card.getByText('ОСТАНОВЛЕНА — centre: chief judge: масло на дорожке').waitFor();
  await shot('director-lane-held');
  await card.getByRole('button', { name: 'Возобновить дорожку 1' }).click();
  await card.getByRole('button', { name: 'Остановить дорожку 1' }).waitFor();
  same('the hold gone from the card', await card.getByText(/ОСТАНОВЛЕНА/).count(), 0);
  const holds = (await (await page.request.get(api('/api/pushes'))).json()).slice(0, 2);
  same('the hold and the resume, each by the judge', holds.map((p) => [p.kind, p.by]), [['hold', 'chief judge'], ['hold', 'chief judge']]);

  step('the standings per category and the doubles, the games in progress marked');
  await page.click('#tab-standings');
  const rows = async (section) => page.locator(id(section)).locator('tbody tr')
    .evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
  await page.locator(id('category-B1')).getByText('Женщинам +10 за игру').waitFor();
  const b1 = [
    ['1', 'Ivan Petrov', 'М', '1', 'идёт 20', '20', '0', '0', '20'],
    ['', 'Nina Guseva', 'Ж', '2', '', '0', '0', '0', '0'],
    ['', 'Olga Sidorova', 'Ж', '2', '', '0', '0', '0', '0'],
    ['', 'Pavel Kim', 'М', '', '', '0', '0', '0', '0'],
  ];
  const doubles = [
    ['1', 'Kazan', 'Olga Sidorova, Nina Guseva', '2', 'идёт 9', '9', '0', '9'],
    ['2', 'Moscow', 'Ivan Petrov, Pavel Kim', '', '', '0', '0', '0'],
  ];
  // The standings come from the journals' copies, a moment behind the
  // lanes' states.
  await until('the balls in the standings', async () => JSON.stringify(await rows('team-doubles')) === JSON.stringify(doubles)
    && JSON.stringify(await rows('category-B1')) === JSON.stringify(b1)).catch(async (e) => {
    const st = await (await page.request.get(api('/api/standings'))).json();
    const ls = await (await page.request.get(api('/api/lanes'))).json();
    console.error(JSON.stringify(st.unplaced), JSON.stringify(ls.map((l) => [l.mirror, l.state && l.state.journal])));
    same('B1', await rows('category-B1'), b1);
    same('doubles', await rows('team-doubles'), doubles);
    throw e;
  });
  await page.getByRole('button', { name: 'Командные виды' }).click();
  await until('only the team events shown', async () => (await page.locator(id('category-B1')).count()) === 0);
  await page.locator(id('team-doubles')).waitFor();
  same('the choice pressed', await page.getByRole('button', { name: 'Командные виды' }).getAttribute('aria-pressed'), 'true');
  await page.getByRole('button', { name: 'Всё' }).click();
  await page.locator(id('finals-B1')).getByText('Круговой турнир, B1 мужчины и женщины').waitFor();
  await page.locator(id('ladder-B1')).getByText('Степ-лэддер: 3-е место против 2-го').waitFor();
  await shot('director-standings');

  step('block S2 set by form and pushed');
  await page.click('#tab-block');
  await page.getByText('Судья: chief judge').waitFor();
  await page.locator('#pushes').getByText(/^Дорожка 3: отменено: chief judge · \d\d:\d\d:\d\d$/).waitFor();
  const s2 = page.locator(id('block-S2'));
  await s2.getByText('Блок S2 · singles · 2 игры · день 2').waitFor();
  await s2.getByText('Дорожки ещё не назначены.').waitFor();
  await page.locator(id('block-SL1-B1')).getByText('Блок SL1-B1 · singles · 1 игра · день 3 · финал').waitFor();
  await s2.getByRole('button', { name: 'Назначить дорожки блока S2' }).click();
  const offered = () => s2.locator(id('slot-0-0') + ' option').allTextContents();
  same('the entries offered (the withdrawn one not), each with class and region', await offered(),
    ['—', 'Ivan Petrov · B1 · Moscow', 'Olga Sidorova · B1 · Kazan', 'Nina Guseva · B1 · Kazan', 'Pavel Kim · B1 · Moscow']);
  same('visible labels', await s2.locator('label.field > span').allTextContents(),
    ['Порядок участников', 'Число жеребьёвки', 'Дорожка', 'Место 1', 'Место 2', 'Место 3', 'Место 4']);
  await s2.getByLabel('Порядок участников').selectOption('region');
  same('sorted by region, then name', await offered(),
    ['—', 'Nina Guseva · B1 · Kazan', 'Olga Sidorova · B1 · Kazan', 'Ivan Petrov · B1 · Moscow', 'Pavel Kim · B1 · Moscow']);
  await s2.getByLabel('Порядок участников').selectOption('class');
  same('sorted by class, then name', await offered(),
    ['—', 'Ivan Petrov · B1 · Moscow', 'Nina Guseva · B1 · Kazan', 'Olga Sidorova · B1 · Kazan', 'Pavel Kim · B1 · Moscow']);
  await s2.locator(id('lane-0')).selectOption('2');
  await s2.locator(id('slot-0-0')).selectOption('Pavel Kim');
  await s2.locator(id('slot-0-1')).selectOption('Pavel Kim');
  await s2.getByRole('button', { name: 'Сохранить дорожки блока S2' }).click();
  await page.locator('#push-error').getByText('Pavel Kim стоит дважды').waitFor();
  await s2.locator(id('slot-0-1')).selectOption('Nina Guseva');
  // No name cut: each place's select is as wide as its longest choice.
  const cut = await s2.locator(id('slot-0-0')).evaluate((sel) => {
    const probe = document.createElement('span');
    probe.style.font = getComputedStyle(sel).font;
    probe.style.position = 'absolute';
    probe.textContent = [...sel.options].map((o) => o.text).sort((a, b) => b.length - a.length)[0];
    document.body.append(probe);
    const need = probe.getBoundingClientRect().width;
    probe.remove();
    return sel.clientWidth < need ? `${sel.clientWidth} < ${need}` : null;
  });
  same('no name cut', cut, null);
  step('the lane draw fills the form from a seed shown, the same seed the same draw');
  const seed = s2.getByLabel('Число жеребьёвки');
  same('a seed shown before the draw', /^\d+$/.test(await seed.inputValue()), true);
  const slots = async () => [await s2.locator(id('slot-0-0')).inputValue(), await s2.locator(id('slot-0-1')).inputValue()];
  await seed.fill('42');
  await s2.getByRole('button', { name: 'Жеребьёвка дорожек' }).click();
  await s2.getByText('Дорожки по жеребьёвке с числом 42 (то же число даёт ту же жеребьёвку)').waitFor();
  same('seed 42', await slots(), ['Nina Guseva', 'Pavel Kim']);
  await s2.getByLabel('Число жеребьёвки').fill('2026');
  await s2.getByRole('button', { name: 'Жеребьёвка дорожек' }).click();
  await s2.getByText('Дорожки по жеребьёвке с числом 2026 (то же число даёт ту же жеребьёвку)').waitFor();
  same('seed 2026', await slots(), ['Pavel Kim', 'Nina Guseva']);
  await s2.getByRole('button', { name: 'Жеребьёвка дорожек' }).click();
  same('seed 2026 again: the same draw', await slots(), ['Pavel Kim', 'Nina Guseva']);
  await shot('director-block-form');
  await s2.getByRole('button', { name: 'Сохранить дорожки блока S2' }).click();
  await s2.getByText('Дорожка 2: Pavel Kim, Nina Guseva').waitFor();
  await s2.getByRole('button', { name: 'Отправить составы блока S2' }).click();
  // Lane 2 answers for itself (it may be mid-block and refuse): the page
  // says "Отправлено" only when it accepted.
  const answered = page.locator('#push-status').locator(id('pushed-2'));
  await answered.getByText(/^Дорожка 2: (принят|отказ)/).waitFor();
  const accepted = (await answered.textContent()).startsWith('Дорожка 2: принят');
  same('"Отправлено" only for an accepted push', await page.locator('#push-status .sent').count(), accepted ? 1 : 0);
  await page.locator('.push').first().getByText(/^Дорожка 2: (принят|отказ)/).waitFor();
  const pushes = await (await page.request.get(api('/api/pushes'))).json();
  same('the push of S2', [pushes[0].block, Object.keys(pushes[0].lanes)], ['S2', ['2']]);

  step('each block\'s life per lane; a begun block pushed again only with a reason');
  const s1 = page.locator(id('block-S1'));
  await s1.locator(id('life-state-1')).getByText('идёт игра 1 из 1', { exact: true }).waitFor();
  await s2.locator(id('life-state-2')).getByText('не начат', { exact: true }).waitFor();
  const pushesNow = async () => (await (await page.request.get(api('/api/pushes'))).json());
  const before = (await pushesNow()).length;
  await s1.getByRole('button', { name: 'Отправить составы блока S1' }).click();
  const ask = page.getByRole('dialog');
  await ask.getByText('Блок S1 уже начат').waitFor();
  await ask.getByText('Дорожка 1: идёт игра 1 из 1. Дорожки сыграют блок снова, и эти игры не пойдут в зачёт.').waitFor();
  await ask.getByRole('button', { name: 'Отправить блок S1 снова' }).click();
  await ask.getByText('Укажите причину').waitFor();
  await shot('director-push-again');
  await ask.getByRole('button', { name: 'Отмена' }).click();
  await page.locator('#push-error').getByText('Блок S1 не отправлен.').waitFor();
  same('nothing pushed when the judge goes back', (await pushesNow()).length, before);
  await s1.getByRole('button', { name: 'Отправить составы блока S1' }).click();
  await ask.getByLabel('Причина повторной отправки').fill('пинсеттер сбился');
  await ask.getByRole('button', { name: 'Отправить блок S1 снова' }).click();
  await until('S1 pushed again, its reason kept', async () => {
    const p = (await pushesNow())[0];
    return p.block === 'S1' && p.again === 'пинсеттер сбился' && p.by === 'chief judge';
  });
  // A game of lane 1 can be voided from the block: the dialog asks who,
  // which game and why (the API's test voids one).
  await s1.getByRole('button', { name: 'Аннулировать игру на дорожке 1' }).click();
  await ask.getByText('Аннулировать игру: блок S1, дорожка 1').waitFor();
  same('the bowlers offered', await ask.getByLabel('Участник').locator('option').allTextContents(), ['Ivan Petrov']);
  same('the games offered', await ask.getByLabel('Игра', { exact: true }).locator('option').allTextContents(), ['1']);
  await ask.getByRole('button', { name: 'Отмена' }).click();
  await until('the dialog closed', async () => (await ask.count()) === 0);

  step('the round robin proposed from the standings, confirmed early by the chief judge and pushed');
  const prop = page.locator(id('proposal-RR-B1'));
  await prop.getByText('Предложено: Дорожка 1: Ivan Petrov, Pavel Kim; Дорожка 2: Nina Guseva, Olga Sidorova').waitFor();
  await prop.getByRole('button', { name: 'Подтвердить дорожки блока RR-B1' }).click();
  // Qualifying is under way: the finals wait unless the chief judge says why.
  await ask.getByText('Подтвердить RR-B1 до конца предварительных игр?').waitFor();
  await ask.getByText(/Ivan Petrov/).waitFor();
  await ask.getByLabel('Причина (решение главного судьи)').fill('финал на другой день');
  await ask.getByRole('button', { name: 'Подтвердить RR-B1 досрочно' }).click();
  const rr = page.locator(id('block-RR-B1'));
  await rr.getByText('Дорожка 1: Ivan Petrov, Pavel Kim').waitFor();
  await rr.getByText('Дорожка 2: Nina Guseva, Olga Sidorova').waitFor();
  await rr.getByRole('button', { name: 'Отправить составы блока RR-B1' }).click();
  await until('both lanes answered the round robin\'s push', async () => {
    const p = (await (await page.request.get(api('/api/pushes'))).json())[0];
    return p.block === 'RR-B1' && ['1', '2'].every((n) => p.lanes[n] && ['accepted', 'refused'].includes(p.lanes[n].status));
  });

  step('times of day in the centre\'s zone');
  const centre = await (await page.request.get(api('/api/centre'))).json();
  const last = (await (await page.request.get(api('/api/pushes'))).json())[0];
  const hhmmss = new Date((last.at_unix + centre.zone.offset_s) * 1000).toISOString().slice(11, 19);
  await page.locator('.push h3').first().getByText('RR-B1 · ' + hhmmss + ' · chief judge').waitFor();
  same('no raw UTC on the page', (await page.locator('#pushes').innerText()).match(/\d{4}-\d\d-\d\dT/), null);
  await shot('director-finals');

  step('in English, and dark');
  await page.click('#lang');
  await s2.getByText('Block S2 · singles · 2 games · day 2').waitFor();
  await page.locator(id('block-SL1-B1')).getByText('Block SL1-B1 · singles · 1 game · day 3 · finals').waitFor();
  await page.click('#theme');
  same('the dark theme', await page.evaluate(() => document.documentElement.className), 'dark');
  await page.getByRole('button', { name: 'Light theme' }).waitFor();
  await shot('director-block-dark');

  step('no horizontal overflow');
  await noOverflow(page, shot, 'director-lanes');

  step('every text in contrast (WCAG AA) in both themes');
  for (const theme of ['dark', 'light']) {
    if ((await page.evaluate(() => document.documentElement.className)) !== theme) await page.click('#theme');
    for (const tab of TABS) {
      await page.click('#tab-' + tab);
      same(`text under AA contrast on ${tab}, ${theme}`, await page.evaluate(lowContrast), []);
    }
  }
  step('a visible focus');
  await page.click('#tab-lanes');
  await page.focus('#tab-standings');
  await page.keyboard.press('Tab');
  const focus = await page.evaluate(() => {
    const cs = getComputedStyle(document.activeElement);
    return [document.activeElement.id, cs.outlineStyle, parseFloat(cs.outlineWidth) >= 2];
  });
  same('the focus ring on the next tab', focus, ['tab-block', 'solid', true]);
  same('requests refused and console errors', refused, []);
});

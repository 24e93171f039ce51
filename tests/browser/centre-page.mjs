// The centre's director page as every test of it looks at it.
export const TABS = ['lanes', 'standings', 'block', 'entries', 'results'];

// Every tab at 1920×1080 and 1280×800 (a TV, a laptop): nothing wider than
// the window. A screenshot of the lanes' tab at each size, `name`-WIDTH.
export async function noOverflow(page, shot, name) {
  for (const [width, height] of [[1920, 1080], [1280, 800]]) {
    await page.setViewportSize({ width, height });
    for (const tab of TABS) {
      await page.click('#tab-' + tab);
      await page.locator('#view-' + tab).waitFor();
      const [sw, cw] = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
      if (sw > cw) throw new Error(`${tab} at ${width}×${height}: ${sw} px wide in ${cw}`);
    }
    await page.click('#tab-lanes');
    await shot(`${name}-${width}`);
  }
}

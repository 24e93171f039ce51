// What every browser script shares: its arguments (URL PIN SCREENSHOT_DIR),
// headless Chromium, asking the test harness for pinsetter lines, and how a
// failed step ends the script (a message and a non-zero exit).
import { chromium } from 'playwright-core';
import { createInterface } from 'node:readline';
import { join } from 'node:path';

export const [url, pin, shots] = process.argv.slice(2);

export const id = (name) => `[data-testid="${name}"]`;

// Lane time `t` as the time of day on the lane, HH:MM:SS, worked out here
// from the report's `wall_clock` and `time_zone` (the test's own
// arithmetic, not the panel's).
export function timeOfDay(lane, t) {
  return onLane(lane, t).slice(11, 19);
}

// The date on the lane at lane time `t`, DD.MM.YYYY, as `timeOfDay`.
export function dateOnLane(lane, t) {
  const [y, m, d] = onLane(lane, t).slice(0, 10).split('-');
  return `${d}.${m}.${y}`;
}

function onLane(lane, t) {
  const points = lane.wall_clock;
  const p = [...points].reverse().find((q) => q.t <= t) || points[0];
  return new Date(Date.parse(p.wall) + (t - p.t) + lane.time_zone.offset_s * 1000).toISOString();
}

export function same(what, got, want) {
  const g = JSON.stringify(got);
  const w = JSON.stringify(want);
  if (g !== w) throw new Error(`${what}:\n  shown/got ${g}\n  expected  ${w}`);
}

// From the page's next load, its event stream is a stand-in the script
// feeds: `window.laneEvents` (dispatch a `lane` MessageEvent, or call its
// `onerror`), for what the daemon does not do on demand.
export function standInEventStream(page) {
  return page.addInitScript(() => {
    window.EventSource = class extends EventTarget {
      constructor() {
        super();
        window.laneEvents = this;
        setTimeout(() => this.onopen && this.onopen(), 0);
      }
      close() {}
    };
  });
}

let lines = null;

// How long a wait of the page (a selector, a function) or an `until` may
// last before it fails the script: a deadline for what is stuck, never a
// timing the test checks. Far above what any wait takes on a loaded
// machine: beside CI's virtual machine, a block's start once took over
// 10 s to show. The same as the Rust side's (tests/support/wait.rs, PATIENCE).
export const WAIT_MS = 60_000;

// Polls `test` every 100 ms for up to `seconds` (WAIT_MS); throws naming
// `what` if it never holds. For what the server has, not what the page shows.
export async function until(what, test, seconds = WAIT_MS / 1000) {
  for (let i = 0; i < seconds * 10; i++) {
    if (await test()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`never: ${what}`);
}

// Asks the harness to send a pinsetter line: prints `KIND MASK` (`READY`,
// `PINS` or `BALL`) and waits for `sent` on stdin.
export async function pinsetter(kind, mask) {
  lines ??= createInterface({ input: process.stdin })[Symbol.asyncIterator]();
  console.log(`${kind} ${mask}`);
  const { value } = await lines.next();
  if (value !== 'sent') throw new Error(`the harness answered ${value}`);
}

// Opens a page (800×1280, waits of WAIT_MS; `contextOptions` add to the
// context's) and runs `steps` with it and the helpers every script uses;
// exits 0 when they all pass, else 1 after saying which failed (and running
// `onFail`, if given, for more to read).
export async function run(steps, { contextOptions = {}, onFail } = {}) {
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
    ],
  });
  let failed = false;
  let current = '(before the first step)';
  try {
    const context = await browser.newContext({ viewport: { width: 800, height: 1280 }, ...contextOptions });
    const page = await context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    const api = (path) => new URL(path, url).href;
    await steps({
      page,
      api,
      shot: (name) => page.screenshot({ path: join(shots, `${name}.png`), fullPage: true }),
      step: (text) => { current = text; console.error(`step: ${text}`); },
      lane: async () => (await page.request.get(api('/api/lane'))).json(),
      until,
    });
  } catch (e) {
    failed = true;
    console.error(`FAILED in step "${current}": ${e.message}`);
    if (onFail) await onFail();
  } finally {
    await browser.close();
  }
  process.exit(failed ? 1 : 0);
}

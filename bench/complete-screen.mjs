// The complete first screen (issue 24): navigation → the first frame in which
// the conversation's Markdown is rendered as HTML *and* the protocol panel's
// JSON (with its `messages`) is painted — what a person reads, not the first
// plain-text paint (each condition gives the page's clock at that frame). The
// condition is ../shared/anchors/side-by-side/complete.py's
// (ours: `[data-message-id] table` and `[data-testid=protocol-json]`; React
// stand-in: `[data-segment] table` and a `<pre>` holding `"messages"`).
//
// Two clocks, each on loads of its own (D183):
//   - `ms`, the harness's: navigation → `waitForFunction(...COND, raf)` in this
//     process sees the condition (what complete.py times). It cannot start
//     polling before `page.goto` returns (the page's load event), and needs
//     main-thread turns of its own to install: Playwright's injected script
//     is evaluated then (~10 ms of the page's main thread), just as both apps
//     start their render (ours after its load event, D184; the stand-in's
//     module script runs before DOMContentLoaded, its render task right after).
//   - `painted`, the page's own: navigation → the end of the main thread's
//     work on the first frame in which the condition's DOM is there (a
//     MutationObserver notes the DOM; that frame's animation-frame callback
//     posts a message, which runs once the frame's style, layout and paint
//     are done). Measured on separate loads that the harness neither polls
//     nor evaluates anything in: the page reports the time through a binding
//     (`exposeBinding`), so nothing of the harness's runs in the page until
//     then (session 24: with the polling in the same load, as before, the
//     injected script ran between our load event and the app's start).
//
// `completeLoad(browser, url, who)` loads `url` in a fresh context and
// returns { ms, files: [paths fetched until then] }; `completePaintLoad(browser,
// url, who)` returns the page's clock of another fresh load; `bytesOf(dist,
// files)` sums their gzip -9 sizes (what a person waits for).
import { readFileSync, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { within } from './lib.mjs';

/**
 * What each app's complete first screen holds, as complete.py asks: its
 * Markdown rendered (`md`) and a protocol panel (`panel`) whose text holds
 * `text`. Ours, demo A (`/`): its Markdown table. Another demo
 * (`/demo/f` has no table): a rendered Markdown text (not the plain
 * fallback) in the conversation (`mdDemo`). React stand-in:
 * `[data-segment] table` and a `<pre>` holding `"messages"`.
 */
export const SCREEN = {
  ours: {
    md: '[data-message-id] table',
    mdDemo: '[data-message-id] .md:not(.md-plain) p, [data-message-id] .md:not(.md-plain) li',
    panel: '[data-testid=protocol-json]',
    text: 'messages',
  },
  react: { md: '[data-segment] table', mdDemo: '[data-segment] table', panel: 'pre', text: '"messages"' },
};

/**
 * In the page: the page's clock (`performance.now()`) once it holds the
 * screen `s`, else false. `read` is how a panel's text is read: `innerText`
 * (complete.py's; it lays the page out) or `textContent` (it does not).
 */
function holds({ s, read }) {
  const md = document.querySelector(/\/demo\/[b-z]$/.test(location.pathname) ? s.mdDemo : s.md);
  return !!md && [...document.querySelectorAll(s.panel)].some((p) => p[read].includes(s.text)) && performance.now();
}

/**
 * The harness's condition, as `page.waitForFunction(...COND[who], options)`
 * takes it: a function and its argument (a function, not an expression: the
 * page's CSP forbids evaluating strings).
 */
export const COND = Object.fromEntries(Object.keys(SCREEN).map((who) => [who, [holds, { s: SCREEN[who], read: 'innerText' }]]));

/**
 * The page's own clock (an init script): `report(t)` is called with the time
 * the first frame holding the screen's DOM was done (its style, layout,
 * paint). Text is read with `textContent` (no layout forced).
 */
function paintedClock(has, report) {
  const seen = new MutationObserver(() => {
    if (!has()) return;
    seen.disconnect();
    requestAnimationFrame(() => {
      const after = new MessageChannel();
      after.port1.onmessage = () => report(performance.now());
      after.port2.postMessage(0);
    });
  });
  seen.observe(document, { childList: true, subtree: true, characterData: true });
}

/** One load in a fresh context: ms until the complete first screen (the harness's clock), and the paths fetched until then. */
export async function completeLoad(browser, url, who = 'ours', viewport = { width: 1400, height: 900 }) {
  const context = await browser.newContext({ viewport, serviceWorkers: 'block' });
  const page = await context.newPage();
  const origin = new URL(url).origin;
  const files = new Set();
  let done = false;
  page.on('request', (r) => { if (!done && r.url().startsWith(origin)) files.add(new URL(r.url()).pathname); });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const t0 = performance.now();
  await page.goto(url);
  // Polled every animation frame in the page: the frame in which both are
  // there (and the page's own clock at that frame).
  const at = await (await page.waitForFunction(...COND[who], { timeout: 60000, polling: 'raf' })).jsonValue();
  const ms = performance.now() - t0;
  done = true;
  // What the page itself started after that frame is not what the screen
  // waited for (this process hears of requests late on a busy machine).
  const entries = await page.evaluate(() => performance.getEntriesByType('resource')
    .map((e) => [new URL(e.name).pathname, e.startTime, e.initiatorType]));
  const late = new Set(entries.filter(([, start]) => start > at).map(([path]) => path));
  const how = Object.fromEntries(entries.map(([path, , initiator]) => [path, initiator]));
  await context.close();
  if (errors.length) throw new Error(`${url}: page errors: ${errors.join('; ')}`);
  return { ms, files: [...files].filter((f) => !late.has(f)).sort(), how };
}

/**
 * One load in a fresh context, nothing evaluated in it by the harness until
 * the screen is painted: the page's own clock (ms since navigation) at the end
 * of the frame that paints the complete first screen. `probe` (optional): a
 * function run in the page as an init script before the page's own scripts
 * (it must not poll the screen); `collect` (optional): a function evaluated in
 * the page once the paint is reported; `latency` (optional): milliseconds
 * added to every request (a network's round trip, not loopback's). Returns
 * `{ t, collected }`.
 */
export async function completePaintLoad(browser, url, who = 'ours', { viewport = { width: 1400, height: 900 }, probe, collect, latency = 0 } = {}) {
  const context = await browser.newContext({ viewport, serviceWorkers: 'block' });
  let reported;
  const painted = new Promise((ok) => { reported = ok; });
  await context.exposeBinding('__pepPaintedAt', (_source, t) => reported(t));
  if (probe) await context.addInitScript(probe);
  const arg = JSON.stringify({ s: SCREEN[who], read: 'textContent' });
  await context.addInitScript({ content: `(${paintedClock})(() => (${holds})(${arg}), (t) => window.__pepPaintedAt(t));` });
  const page = await context.newPage();
  if (latency > 0) {
    // Chromium's own network emulation: `latency` ms more on every request.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency, downloadThroughput: -1, uploadThroughput: -1 });
  }
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  try {
    await page.goto(url, { waitUntil: 'commit' });
    const t = await within(60000, `${url}: the complete first screen's paint`, painted);
    if (errors.length) throw new Error(`${url}: page errors: ${errors.join('; ')}`);
    return { t, collected: collect ? await page.evaluate(collect) : undefined };
  } finally {
    await context.close();
  }
}

/** gzip -9 bytes of each fetched path, as served from `dist` (`/x` → dist/x; a page path → index.html). */
export function bytesOf(dist, paths, base = '/') {
  const rows = paths.map((p) => {
    let rel = p.startsWith(base) ? p.slice(base.length) : p.replace(/^\//, '');
    let file = join(dist, rel);
    if (!rel || !existsSync(file) || !statSync(file).isFile()) file = join(dist, 'index.html');
    const body = readFileSync(file);
    return { path: p, raw: body.length, gzip: gzipSync(body, { level: 9 }).length };
  });
  return { rows, total: rows.reduce((s, r) => s + r.gzip, 0) };
}

export { median } from './lib.mjs';

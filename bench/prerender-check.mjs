// EXPERIMENT (session 6): is the pre-rendered copy's swap invisible?
// For each case, on the copy written by bench/prerender-probe.mjs:
//  - console errors (a CSP refusal of the inline script shows here);
//  - at the swap (a MutationObserver registered before the copy's own, so
//    its callback runs first in the same checkpoint, with both in the DOM):
//    the largest difference between the static copy's and the live app's
//    boxes of the header, panes, messages and segments (px);
//  - layout shifts (PerformanceObserver 'layout-shift') over the load;
//  - a screenshot with the app's WebAssembly held back (what the static copy
//    paints) against one of the live app just after the swap (its first
//    frame: the protocol panel joins later), and the share of pixels that
//    differ;
//  - whether the overlay was shown at all;
//  - 'dead-input': what a click, Tab and a text drag do before the swap.
//   node bench/prerender-check.mjs [copy]    (default target/dist-prerender)
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { BASE, freshPage, launch, root, useServer } from './lib.mjs';
import { startServer } from './serve.mjs';

const copy = resolve(process.argv[2] || join(root, 'target/dist-prerender'));
const shots = join(root, 'target/prerender-shots');
mkdirSync(shots, { recursive: true });
const server = await startServer(copy, 0, {});
useServer(server);
const browser = await launch();

const SEL = 'header.top, .panes, .pane, [data-message-id], [data-kind]';

async function run(name, path, { viewport = { width: 1280, height: 800 }, colorScheme = 'light', storage = null } = {}) {
  const { context, page } = await freshPage(browser, { viewport, colorScheme });
  if (storage) await context.addInitScript((s) => { for (const [k, v] of Object.entries(s)) localStorage.setItem(k, v); }, storage);
  await context.addInitScript((sel) => {
    const P = (window.__check = { shifts: [], shown: false });
    new PerformanceObserver((l) => { for (const e of l.getEntries()) P.shifts.push({ t: e.startTime, v: e.value }); }).observe({ type: 'layout-shift', buffered: true });
    new MutationObserver(() => {
      if (!document.body) return;
      const pre = document.getElementById('pep-prerender');
      if (pre) P.shown = true;
      const live = [...document.body.children].find((c) => c.classList.contains('app') && c !== pre && !pre?.contains(c));
      if (!pre || !live || P.swap) return;
      const boxes = (root) => [...root.querySelectorAll(sel)].map((e) => e.getBoundingClientRect());
      const a = boxes(pre), b = boxes(live);
      let max = 0;
      for (let i = 0; i < Math.min(a.length, b.length); i++) {
        max = Math.max(max, Math.abs(a[i].x - b[i].x), Math.abs(a[i].y - b[i].y), Math.abs(a[i].width - b[i].width), Math.abs(a[i].height - b[i].height));
      }
      P.swap = { t: performance.now(), staticBoxes: a.length, liveBoxes: b.length, maxDiffPx: Math.round(max * 10) / 10, liveHasSegment: !!live.querySelector('[data-kind]') };
    }).observe(document, { childList: true, subtree: true });
  }, SEL);
  // Hold the app's main module until the static copy is on screen.
  let release;
  const held = new Promise((r) => { release = r; });
  await context.route(/pep-app-[0-9a-f]+_bg\.wasm$/, async (route) => { await held; await route.continue(); });
  // Everything the app fetches after its first paint (split chunks, the
  // Markdown module) never arrives: the live screenshot is the app's first
  // frame, as the static copy is.
  await context.route((u) => /\.wasm$/.test(u.pathname) && !/pep-app-[0-9a-f]+_bg\.wasm$/.test(u.pathname), () => {});
  await page.goto(BASE + path, { waitUntil: 'domcontentloaded' });
  await page.waitForTimeout(300);
  const shown = await page.evaluate(() => !!document.getElementById('pep-prerender'));
  const a = await page.screenshot();
  writeFileSync(join(shots, `${name}-static.png`), a);
  await page.evaluate(() => {
    // The first frame after the swap.
    window.__afterSwap = new Promise((ok) => {
      const tick = () => (document.getElementById('pep-prerender') || !document.querySelector('.app [data-kind]') ? requestAnimationFrame(tick) : requestAnimationFrame(() => ok()));
      requestAnimationFrame(tick);
    });
  });
  release();
  await page.waitForFunction(() => !document.getElementById('pep-prerender') && document.querySelector('.app [data-kind]'), null, { timeout: 60000 });
  const b = await page.screenshot();
  writeFileSync(join(shots, `${name}-live.png`), b);
  await page.waitForTimeout(1500);
  const r = await page.evaluate(() => ({ ...window.__check, theme: document.documentElement.getAttribute('data-theme'), title: document.title,
    heading: document.querySelector('.demo-menu')?.textContent, nav: document.querySelector('nav.demos')?.textContent, firstMessage: document.querySelector('[data-message-id]')?.getAttribute('data-message-id') }));
  const diff = shown ? await pixelDiff(page, a, b) : null;
  console.log(JSON.stringify({ name, path, overlayShown: shown || r.shown, swap: r.swap, layoutShift: r.shifts.reduce((n, s) => n + s.v, 0).toFixed(4),
    pixelsDifferent: diff, theme: r.theme, heading: r.heading, nav: r.nav, firstMessage: r.firstMessage, errors: page.errors }));
  await context.close();
}

/** Share of pixels that differ between two PNG screenshots, and their bounding box. */
async function pixelDiff(page, a, b) {
  return page.evaluate(async ([a, b]) => {
    const load = async (s) => { const i = new Image(); i.src = 'data:image/png;base64,' + s; await i.decode(); return i; };
    const [ia, ib] = [await load(a), await load(b)];
    const c = new OffscreenCanvas(ia.width, ia.height), g = c.getContext('2d');
    g.drawImage(ia, 0, 0); const da = g.getImageData(0, 0, ia.width, ia.height).data;
    g.clearRect(0, 0, ia.width, ia.height); g.drawImage(ib, 0, 0); const db = g.getImageData(0, 0, ia.width, ia.height).data;
    let n = 0, x0 = 1e9, y0 = 1e9, x1 = -1, y1 = -1;
    for (let i = 0; i < da.length; i += 4) {
      if (da[i] !== db[i] || da[i + 1] !== db[i + 1] || da[i + 2] !== db[i + 2]) {
        n++; const p = i / 4, x = p % ia.width, y = (p / ia.width) | 0;
        x0 = Math.min(x0, x); y0 = Math.min(y0, y); x1 = Math.max(x1, x); y1 = Math.max(y1, y);
      }
    }
    return { share: +(n / (da.length / 4)).toFixed(4), box: n ? [x0, y0, x1, y1] : null };
  }, [a.toString('base64'), b.toString('base64')]);
}

/**
 * Input before the swap: a click on the copy's "B" demo link, Tab, a text
 * drag, with the main module held back; then the same click on the live app.
 */
async function deadInput() {
  const { context, page } = await freshPage(browser, { viewport: { width: 1280, height: 800 } });
  let release;
  const held = new Promise((r) => { release = r; });
  await context.route(/pep-app-[0-9a-f]+_bg\.wasm$/, async (route) => { await held; await route.continue(); });
  await page.goto(BASE + '/', { waitUntil: 'domcontentloaded' });
  await page.waitForTimeout(300);
  const box = await page.evaluate(() => {
    const a = [...document.querySelectorAll('#pep-prerender a.demo-link')][1];
    const r = a.getBoundingClientRect();
    return { x: r.x + r.width / 2, y: r.y + r.height / 2, text: a.textContent };
  });
  await page.mouse.click(box.x, box.y);
  await page.keyboard.press('Tab');
  await page.mouse.move(300, 520); await page.mouse.down(); await page.mouse.move(600, 540); await page.mouse.up();
  const before = await page.evaluate(() => ({ url: location.pathname, focus: document.activeElement?.tagName, selected: String(getSelection()).length }));
  release();
  await page.waitForFunction(() => !document.getElementById('pep-prerender') && document.querySelector('.app [data-kind]'), null, { timeout: 60000 });
  await page.mouse.click(box.x, box.y);
  await page.waitForTimeout(500);
  const after = await page.evaluate(() => ({ url: location.pathname, heading: document.querySelector('.demo-menu')?.textContent }));
  console.log(JSON.stringify({ name: 'dead-input', clicked: box.text, beforeSwap: before, afterSwapSameClick: after, errors: page.errors }));
  await context.close();
}

const SAVED = JSON.stringify({ name: 'mine.json', text: readFileSync(join(copy, 'demos/b.json'), 'utf8') });
const cases = process.env.CASES ? process.env.CASES.split(',') : null;
const all = [
  ['root', '/'],
  ['demo-f', '/demo/f'],
  ['root-dark-system', '/', { colorScheme: 'dark' }],
  ['root-dark-setting', '/', { storage: { 'pep/v1/prefs': JSON.stringify({ theme: 'dark' }) } }],
  ['root-split-40', '/', { storage: { 'pep/v1/prefs': JSON.stringify({ split: 40 }) } }],
  ['root-phone', '/', { viewport: { width: 390, height: 844 } }],
  ['demo-f-phone', '/demo/f', { viewport: { width: 390, height: 844 } }],
  ['root-tall', '/', { viewport: { width: 1920, height: 1400 } }],
  ['demo-f-tall', '/demo/f', { viewport: { width: 1920, height: 1400 } }],
  ['demo-f-remote-media', '/demo/f', { storage: { 'pep/v1/prefs': JSON.stringify({ remote_media: true }) } }],
  ['root-anchor', '/#m=d-a3'],
  ['root-saved-doc', '/', { storage: { 'pep/v1/document': SAVED } }],
  ['doc-saved-doc', '/doc', { storage: { 'pep/v1/document': SAVED } }],
];
for (const [name, path, opts] of all) if (!cases || cases.includes(name)) await run(name, path, opts);
if (!cases || cases.includes('dead-input')) await deadInput();
await browser.close();
server.close();

// The Calls view at 100,000 calls (issue 22: "100,000 calls stay smooth:
// first screen ≤ 1.5 s, no main-thread task over 200 ms, the file read off
// the main thread with progress and Cancel").
//
// A generated JSON Lines file of 100,000 request bodies (bench/calls-gen.mjs,
// ~98 MB) is set on the file input of a fresh page, RUNS times:
//   first screen   file set → the table's first rows painted (budget 1.5 s)
//   read           file set → the whole file read (the progress line gone)
//   longest task   the longest main-thread task (PerformanceObserver
//                  `longtask`) while reading, and while scrolling the table
//                  (60 scroll steps a frame apart, then a jump to the end and
//                  back), budget 200 ms each; also a sort (a header clicked)
//                  and a filter (a word typed), each timed to its rows painted.
//
// Usage: node bench/calls.mjs [DIST]      (default dist/)
//   RUNS=3 CALLS=100000
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { callsJsonl } from './calls-gen.mjs';
import { BASE, DATA, freshPage, launch, median, round, root, useServer } from './lib.mjs';
import { startServer } from './serve.mjs';

const dist = resolve(process.argv[2] || process.env.BENCH_DIST || join(root, 'dist'));
const RUNS = Number(process.env.RUNS || 3);
const CALLS = Number(process.env.CALLS || 100000);
const FIRST_SCREEN = 1500;
const LONGEST = 200;

mkdirSync(DATA, { recursive: true });
const file = join(DATA, `calls-${CALLS}.jsonl`);
if (!existsSync(file)) writeFileSync(file, callsJsonl(CALLS));
const mb = (statSync(file).size / 1e6).toFixed(1);

// Long tasks and the first rows, seen from the page.
const OBSERVE = () => {
  window.__long = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__long.push([e.startTime, e.duration]);
  }).observe({ type: 'longtask', buffered: true });
  document.addEventListener('change', (e) => {
    if (e.target && e.target.type === 'file') window.__set = performance.now();
  }, true);
  const look = () => {
    if (window.__set && !window.__first && document.querySelector('[data-testid=calls-table] tbody tr[data-index]')) {
      window.__first = performance.now();
    }
    if (!window.__first) requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
};

const longest = (page, from, to) => page.evaluate(([a, b]) => Math.max(0, ...window.__long.filter(([s]) => s >= a && s < b).map(([, d]) => d)), [from, to]);
const now = (page) => page.evaluate(() => performance.now());
const frames = (page, n = 2) => page.evaluate((n) => new Promise((r) => { let k = 0; const f = () => (++k >= n ? setTimeout(r) : requestAnimationFrame(f)); requestAnimationFrame(f); }), n);

async function run(browser) {
  const { context, page } = await freshPage(browser, { route: false });
  await page.addInitScript(OBSERVE);
  await page.goto(`${BASE}/`);
  await page.locator('[data-message-id]').first().waitFor();
  await frames(page, 3);
  await page.getByTestId('open-file').setInputFiles(file);
  await page.waitForFunction(() => window.__first, null, { timeout: 120000, polling: 50 });
  await page.locator('[data-testid=calls-progress]').waitFor({ state: 'detached', timeout: 900000 });
  const done = await now(page);
  const { set, first } = await page.evaluate(() => ({ set: window.__set, first: window.__first }));
  const rows = await page.getByTestId('calls-shown').textContent();
  await frames(page, 4);
  const readLong = await longest(page, set, await now(page));
  // Scrolling: 60 steps of a screen and a half, a frame apart; a jump to the end and back.
  const s0 = await now(page);
  await page.evaluate(async () => {
    const sc = document.querySelector('[data-testid=calls-scroll]');
    const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
    for (let i = 0; i < 60; i++) { sc.scrollTop += sc.clientHeight * 1.5; await frame(); }
    sc.scrollTop = sc.scrollHeight; await frame(); await frame();
    sc.scrollTop = 0; await frame(); await frame();
  });
  await frames(page, 3);
  const scrollLong = await longest(page, s0, await now(page));
  const rendered = await page.locator('[data-testid=calls-table] tbody tr[data-index]').count();
  // A sort: "Model", timed to the first row changing.
  const firstRow = () => page.locator('[data-testid=calls-table] tbody tr[data-index]').first().getAttribute('data-index');
  const before = await firstRow();
  const t0 = await now(page);
  await page.locator('button.sort[data-col="Model"]').click();
  await page.waitForFunction((b) => document.querySelector('[data-testid=calls-table] tbody tr[data-index]')?.dataset.index !== b, before, { polling: 'raf' });
  const sortMs = (await now(page)) - t0;
  await frames(page, 3);
  const sortLong = await longest(page, t0, await now(page));
  // A filter: a model's name typed (debounced 120 ms, counted in).
  const t1 = await now(page);
  await page.getByTestId('calls-filter').fill('claude-opus');
  await page.waitForFunction(() => /of /.test(document.querySelector('[data-testid=calls-shown]').textContent), null, { polling: 'raf' });
  const filterMs = (await now(page)) - t1;
  await frames(page, 3);
  const filterLong = await longest(page, t1, await now(page));
  const errors = page.errors.slice();
  await context.close();
  return { first: first - set, read: done - set, readLong, scrollLong, rendered, rows, sortMs, sortLong, filterMs, filterLong, errors };
}

const server = await startServer(dist, Number(process.env.BENCH_PORT || 0));
useServer(server);
const browser = await launch();
const load0 = loadavg()[0];
const results = [];
try {
  for (let i = 0; i < RUNS; i++) {
    const r = await run(browser);
    results.push(r);
    console.log(`run ${i + 1}: first screen ${round(r.first, 0)} ms, read ${round(r.read / 1000, 1)} s (${r.rows}), longest task reading ${round(r.readLong, 0)} ms, scrolling ${round(r.scrollLong, 0)} ms (${r.rendered} rows in the DOM), sort ${round(r.sortMs, 0)} ms (longest ${round(r.sortLong, 0)}), filter ${round(r.filterMs, 0)} ms (longest ${round(r.filterLong, 0)})${r.errors.length ? ` ERRORS: ${r.errors.join('; ')}` : ''}`);
  }
} finally {
  await browser.close();
  server.close();
}
const med = (k) => round(median(results.map((r) => r[k])), 0);
console.log(`\n${CALLS.toLocaleString('en')} calls, ${mb} MB, ${dist} (load average ${load0.toFixed(2)} → ${loadavg()[0].toFixed(2)}); medians of ${RUNS}:`);
const lines = [
  ['first screen of the table', med('first'), FIRST_SCREEN],
  ['longest task while reading', med('readLong'), LONGEST],
  ['longest task while scrolling', med('scrollLong'), LONGEST],
  ['read, whole file', med('read'), null],
  ['sort (click → rows painted)', med('sortMs'), null],
  ['longest task of the sort', med('sortLong'), LONGEST],
  ['filter (typed → rows painted, 120 ms debounce)', med('filterMs'), null],
  ['longest task of the filter', med('filterLong'), LONGEST],
];
let over = false;
for (const [name, v, budget] of lines) {
  const verdict = budget == null ? '' : v <= budget ? `  (budget ${budget}: ok)` : `  (budget ${budget}: OVER)`;
  if (budget != null && v > budget) over = true;
  console.log(`  ${name.padEnd(48)} ${String(v).padStart(7)} ms${verdict}`);
}
if (results.some((r) => r.errors.length)) over = true;
process.exitCode = over ? 1 : 0;

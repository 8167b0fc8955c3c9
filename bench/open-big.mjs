// Opening big documents (issue 12, "the page never freezes"): each file set
// on the file input of a fresh page, RUNS times; file set → first segment
// of the new document painted, and the longest main-thread task from the
// file set until the page is quiet again (2 s without a long task, so work
// done after the first screen — the rest of the validation — counts too).
// Optionally (BUDGET=1) the Budget tab afterwards: click → summary shown,
// longest task meanwhile.
//
// Usage: node bench/open-big.mjs [FILE…]   (default: the generated big inputs)
//   BENCH_DIST=dist-other RUNS=3 BUDGET=1
// Prints one line per file and run, then the medians; the load average
// before and after (the machine is shared: compare medians). bench/run.mjs
// runs it as the section `opening` (`openingBig`: 3 runs, Budget tab on).
import { readFileSync, statSync, existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { DATA, launch, median, round, root, useServer } from './lib.mjs';
import { openBig } from './bigdoc.mjs';
import { startServer } from './serve.mjs';

const DIST = process.env.BENCH_DIST || 'dist';
const RUNS = Number(process.env.RUNS || 3);
const defaults = [
  join(DATA, 'one-message-100k.envelope.json'),
  join(DATA, 'big.envelope.json'),
  join(DATA, 'big100k.envelope.json'),
].filter(existsSync);

/** The first message's id (the first `"id":"…"` of the text). */
function firstId(file) {
  const head = readFileSync(file, { encoding: 'utf8', flag: 'r' }).slice(0, 4096);
  return /"id"\s*:\s*"([^"]*)"/.exec(head)?.[1];
}

/** In the page: waits until no long task started in the last `quiet` ms; the long tasks since `t0`. */
function settle(page, quiet = 2000, max = 120000) {
  return page.evaluate(async ({ quiet, max }) => {
    const t0 = window.__big.t0;
    const start = performance.now();
    for (;;) {
      await new Promise((r) => setTimeout(r, 100));
      const last = window.__long.reduce((m, e) => Math.max(m, e.start + e.dur), t0);
      if (performance.now() - last > quiet || performance.now() - start > max) break;
    }
    return window.__long.filter((e) => e.start + e.dur >= t0).map((e) => Math.round(e.dur));
  }, { quiet, max });
}

async function budgetTab(page) {
  return page.evaluate(async () => {
    const { t, shown } = await window.__openBudget();
    await new Promise((ok) => setTimeout(ok, 1500));
    const long = window.__longIn(t, performance.now()).map((e) => Math.round(e.dur));
    return { shown: Math.round(shown), long };
  });
}

/** Opens `file` `runs` times in fresh pages; each run's figures, printed as they come. */
export async function measureOpen(browser, file, runs, withBudget) {
  const mb = (statSync(file).size / 1e6).toFixed(1);
  const first = firstId(file);
  const rows = [];
  for (let i = 0; i < runs; i++) {
    const { context, page, open } = await openBig(browser, file, first);
    const long = await settle(page);
    const row = { paint: Math.round(open.frame), longest: Math.max(0, ...long), long, segs: open.segs };
    if (withBudget) row.budget = await budgetTab(page);
    if (page.errors.length) row.errors = [...new Set(page.errors)].slice(0, 3);
    console.log(`  ${file.split('/').pop()} (${mb} MB) run ${i + 1}: first segment painted ${row.paint} ms; longest task ${row.longest} ms (all: ${long.join('+') || '-'}); ${row.segs} segments rendered${row.budget ? `; Budget tab shown ${row.budget.shown} ms, longest task ${Math.max(0, ...row.budget.long)} ms` : ''}${row.errors ? `; errors: ${row.errors.join(' | ')}` : ''}`);
    rows.push(row);
    await context.close();
  }
  return {
    file: file.split('/').pop(), mb: Number(mb), rows, paint: median(rows.map((r) => r.paint)), longest: median(rows.map((r) => r.longest)),
    ...(withBudget ? { budgetShown: median(rows.map((r) => r.budget.shown)), budgetLongest: median(rows.map((r) => Math.max(0, ...r.budget.long))) } : {}),
  };
}

/**
 * The section `opening` of bench/run.mjs (issue 12): for the one-message
 * 100,000-segment envelope (≤ 5 MB) and the 10,000-message one (> 5 MB),
 * medians of 3: first screen, the longest main-thread task while opening
 * (≤ 200 ms up to 5 MB, ≤ 1 s beyond), and the Budget tab's (≤ 1 s).
 */
export async function openingBig(results, browser) {
  for (const file of defaults) {
    const s = await measureOpen(browser, file, 3, true);
    const small = s.mb <= 5;
    const what = `${s.file} (${s.mb} MB)`;
    results.add({ id: `open-${s.file}-first-screen`, budget: 3, name: `${what}: file set → first segment painted, median of 3`, value: round(s.paint), unit: 'ms', limit: 1500, cmp: '<', samples: s.rows.map((r) => r.paint) });
    results.add({ id: `open-${s.file}-longest-task`, budget: 3, name: `${what}: longest main-thread task from the file set until quiet, median of 3`, value: s.longest, unit: 'ms', limit: small ? 200 : 1000, cmp: '<=', note: `all tasks: ${s.rows.map((r) => r.long.join('+')).join(' / ')}` });
    results.add({ id: `open-${s.file}-budget-longest`, budget: 6, name: `${what}: Budget tab, longest main-thread task, median of 3`, value: s.budgetLongest, unit: 'ms', limit: small ? 200 : 1000, cmp: '<=', note: `summary shown after ${s.rows.map((r) => r.budget.shown).join('/')} ms` });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const server = await startServer(resolve(root, DIST), 0, { '/__bench/data/': DATA });
  useServer(server);
  const browser = await launch();
  console.log(`${DIST}; load average before: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  const files = process.argv.slice(2).length ? process.argv.slice(2) : defaults;
  const summary = [];
  for (const file of files) summary.push(await measureOpen(browser, file, RUNS, !!process.env.BUDGET));
  console.log(`load average after: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  for (const s of summary) console.log(`MEDIAN ${s.file} (${s.mb} MB): first screen ${s.paint} ms, longest task ${s.longest} ms${s.budgetShown !== undefined ? `, Budget tab ${s.budgetShown} ms (longest task ${s.budgetLongest} ms)` : ''}`);
  await browser.close();
  server.close();
}

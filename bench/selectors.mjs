// Ad hoc (not run by bench.sh): which CSS rules the style passes before the
// complete first screen spend their time on, from Chromium's selector
// statistics (the trace category `disabled-by-default-blink.debug`, the
// `SelectorStats` events DevTools shows as "selector stats"). A rule whose
// rightmost part names no class, id or tag (`::highlight(…)`, `:first-child`,
// `*`) is tried on every element; a `:has()` runs its inner selector each
// time (D197). The first rule matched in a page also pays one-time costs, so a
// single large row can be noise: compare runs.
//
//   node bench/selectors.mjs [--runs 3] [--path /demo/f] [--top 25] DIST
//
// Sums over the loads (after a warm-up load): time (µs), attempts, matches and
// fast rejects (the ancestor filter) per selector, until the first `Paint`
// after the load's longest script task (lib.mjs's `firstScreen`, as cpu.mjs).
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { firstScreen, freshPage, launch, takeOption } from './lib.mjs';
import { startServer } from './serve.mjs';

const args = process.argv.slice(2);
const runs = Number(takeOption(args, '--runs', 3));
const path = takeOption(args, '--path', '/');
const top = Number(takeOption(args, '--top', 25));
const dist = resolve(args[0] ?? '');
if (!args[0] || !existsSync(join(dist, 'index.html'))) {
  console.error('usage: node bench/selectors.mjs [--runs N] [--path P] [--top N] DIST');
  process.exit(2);
}
const server = await startServer(dist, 0, {});
const browser = await launch();
const sum = new Map();
try {
  for (let i = 0; i <= runs; i++) {
    const { context, page } = await freshPage(browser, { route: false });
    await page.setViewportSize({ width: 1400, height: 900 });
    await browser.startTracing(page, { categories: ['devtools.timeline', 'blink.user_timing', 'disabled-by-default-blink.debug'] });
    await page.goto(`http://127.0.0.1:${server.address().port}${path}`);
    await page.waitForTimeout(1500);
    const events = JSON.parse((await browser.stopTracing()).toString()).traceEvents;
    await context.close();
    if (i === 0) continue; // warms the machine and the server's cache
    const { end } = firstScreen(events);
    for (const e of events) {
      if (e.name !== 'SelectorStats' || e.ts >= end) continue;
      for (const s of e.args?.selector_stats?.selector_timings ?? []) {
        const row = sum.get(s.selector) ?? { us: 0, attempts: 0, matches: 0, rejects: 0 };
        row.us += s['elapsed (us)'];
        row.attempts += s.match_attempts;
        row.matches += s.match_count;
        row.rejects += s.fast_reject_count;
        sum.set(s.selector, row);
      }
    }
  }
} finally {
  await browser.close();
  server.close();
}
const rows = [...sum].sort((a, b) => b[1].us - a[1].us);
const total = rows.reduce((n, [, r]) => n + r.us, 0);
console.log(`selector matching until the complete first screen (${path}), ${runs} loads: ${total.toFixed(0)} µs over ${rows.length} selectors`);
console.log(`${'µs'.padStart(8)}${'tried'.padStart(8)}${'matched'.padStart(9)}${'rejected'.padStart(10)}  selector`);
for (const [selector, r] of rows.slice(0, top)) {
  console.log(`${r.us.toFixed(0).padStart(8)}${String(r.attempts).padStart(8)}${String(r.matches).padStart(9)}${String(r.rejects).padStart(10)}  ${selector.slice(0, 120)}`);
}

// Ad-hoc: where the main thread's time goes between navigation and the first
// [data-kind], by top-level trace event (script, lazy wasm compile, layout…),
// median of N cold loads, interleaved across builds so that they share the
// machine's load. Usage: N=7 P=/ node bench/load-timeline.mjs dist /tmp/other-dist
import { freshPage, launch, median } from './lib.mjs';
import { startServer } from './serve.mjs';
const dists = process.argv.slice(2);
const runs = Number(process.env.N || 7);
const servers = [];
for (const d of dists) servers.push(await startServer(d, 0, {}));
const browser = await launch();
const res = dists.map(() => []);
for (let i = 0; i <= runs; i++) for (let k = 0; k < dists.length; k++) {
  const base = `http://127.0.0.1:${servers[k].address().port}`;
  const { context, page } = await freshPage(browser, { route: false });
  await context.addInitScript(() => {
    const obs = new MutationObserver(() => {
      if (window.__fk === undefined && document.querySelector('[data-kind]')) { window.__fk = performance.now(); performance.mark('fk'); obs.disconnect(); }
    });
    obs.observe(document, { childList: true, subtree: true });
  });
  await browser.startTracing(page, { categories: ['devtools.timeline', 'blink.user_timing', 'v8.wasm'] });
  await page.goto(`${base}${process.env.P || '/'}`);
  await page.waitForFunction(() => window.__fk !== undefined);
  const buf = await browser.stopTracing();
  const fk = await page.evaluate(() => window.__fk);
  await context.close();
  if (i === 0) continue;
  const ev = JSON.parse(buf.toString()).traceEvents;
  const main = ev.find((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  const mark = ev.find((e) => e.name === 'fk');
  const nav = ev.find((e) => e.name === 'navigationStart') || ev.find((e) => e.name === 'TracingStartedInBrowser');
  const tEnd = mark ? mark.ts : Infinity;
  const on = ev.filter((e) => e.ph === 'X' && e.pid === main.pid && e.tid === main.tid && e.ts < tEnd);
  // top-level only: events not contained in a previous one
  on.sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const top = []; let until = 0;
  for (const e of on) { if (e.ts >= until) { top.push(e); until = e.ts + e.dur; } }
  const by = {};
  for (const e of top) { const n = e.name === 'FunctionCall' || e.name === 'v8.callFunction' ? 'script' : e.name; by[n] = (by[n] || 0) + Math.min(e.dur, tEnd - e.ts) / 1000; }
  const busy = Object.values(by).reduce((a, b) => a + b, 0);
  res[k].push({ fk, busy, by });
}
for (let k = 0; k < dists.length; k++) {
  const keys = new Set(res[k].flatMap((r) => Object.keys(r.by)));
  const parts = [...keys].map((n) => [n, median(res[k].map((r) => r.by[n] || 0))]).filter(([, v]) => v >= 2).sort((a, b) => b[1] - a[1]);
  console.log(`${dists[k]}: first kind ${median(res[k].map((r) => r.fk)).toFixed(0)}, main busy ${median(res[k].map((r) => r.busy)).toFixed(0)} ms: ${parts.map(([n, v]) => `${n} ${v.toFixed(1)}`).join(', ')}`);
}
await browser.close(); for (const s of servers) s.close();

// Ad-hoc: a Chrome trace of cold loads of `/`, summarised as a main-thread timeline.
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { BASE, PORT, freshPage, launch, useServer } from './lib.mjs';
import { startServer } from './serve.mjs';
const dist = resolve(process.argv[2] || 'dist');
const path = process.argv[3] || '/';
const server = await startServer(dist, PORT, {});
useServer(server);
const browser = await launch();
for (let run = 0; run < 4; run++) {
  const { context, page } = await freshPage(browser);
  await context.addInitScript(() => {
    const obs = new MutationObserver(() => {
      if (window.__firstKind === undefined && document.querySelector('[data-kind]')) {
        window.__firstKind = performance.now(); obs.disconnect();
        performance.mark('first-kind');
      }
    });
    obs.observe(document, { childList: true, subtree: true });
  });
  await browser.startTracing(page, { categories: ['devtools.timeline', 'v8', 'v8.wasm', 'disabled-by-default-v8.compile', 'blink.user_timing', 'loading', 'netlog'] });
  await page.goto(`${BASE}${path}`);
  await page.waitForFunction(() => window.__firstKind !== undefined);
  await page.waitForTimeout(100);
  const buf = await browser.stopTracing();
  const fk = await page.evaluate(() => window.__firstKind);
  const tr = JSON.parse(buf.toString());
  const ev = tr.traceEvents || tr;
  const nav = ev.find((e) => e.name === 'navigationStart' || e.name === 'NavigationStart' );
  const t0 = nav ? nav.ts : Math.min(...ev.filter((e) => e.ts).map((e) => e.ts));
  const main = ev.find((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  const rows = ev.filter((e) => e.ph === 'X' && e.dur > 3000 && (!main || (e.pid === main.pid && e.tid === main.tid)))
    .map((e) => [Math.round((e.ts - t0) / 1000), Math.round(e.dur / 1000), e.name, JSON.stringify(e.args?.data?.url || e.args?.data?.functionName || e.args?.data?.type || '').slice(0, 60)]);
  console.log(`\n--- run ${run}: first kind ${Math.round(fk)} ms`);
  if (run === 3) for (const r of rows.sort((a, b) => a[0] - b[0])) console.log(r.join('\t'));
  const other = ev.filter((e) => e.ph === 'X' && /wasm|Wasm|Compile/i.test(e.name) && e.dur > 2000);
  if (run === 3) for (const e of other) console.log('W', Math.round((e.ts - t0) / 1000), Math.round(e.dur / 1000), e.name, e.tid === main?.tid ? 'main' : 'bg');
  if (run === 3) writeFileSync('/tmp/tr/trace.json', buf);
  await context.close();
}
await browser.close();
server.close();

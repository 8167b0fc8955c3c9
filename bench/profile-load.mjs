// Ad-hoc: CPU profile by function of cold loads of a path (P, default /),
// navigation to the first [data-kind], mean of 5 (after one warm-up).
// Wants a dist whose app WASM keeps names (wasm-opt -g; scripts/bench.sh
// --profile makes target/bench/prof-dist). GREP=pep_app filters the inclusive
// list; TREE=<name> prints the call tree under it (MIN µs, default 1000).
// Usage: node bench/profile-load.mjs target/bench/prof-dist
import { join, resolve } from 'node:path';
import { BASE, PORT, addProfile, freshPage, launch, useServer } from './lib.mjs';
import { startServer } from './serve.mjs';
const dist = resolve(process.argv[2] || 'target/bench/prof-dist');
const path = process.env.P || process.argv[3] || '/';
const server = await startServer(dist, PORT, {});
useServer(server);
const browser = await launch();
const self = new Map(), total = new Map();
let n = 0;
for (let run = 0; run < 6; run++) {
  const { context, page } = await freshPage(browser);
  await context.addInitScript(() => {
    const obs = new MutationObserver(() => {
      if (window.__firstKind === undefined && document.querySelector('[data-kind]')) { window.__firstKind = performance.now(); obs.disconnect(); }
    });
    obs.observe(document, { childList: true, subtree: true });
  });
  const cdp = await context.newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
  await cdp.send('Profiler.start');
  await page.goto(`${BASE}${path}`);
  await page.waitForFunction(() => window.__firstKind !== undefined);
  const { profile } = await cdp.send('Profiler.stop');
  const fk = await page.evaluate(() => window.__firstKind);
  console.log(`run ${run}: first kind ${Math.round(fk)}`);
  await context.close();
  if (run === 0) continue;
  n++;
  if (process.env.TREE && run === 5) tree(profile, process.env.TREE);
  addProfile(profile, self, total, 130);
}
function tree(profile, root) {
  const byId = new Map(profile.nodes.map((x) => [x.id, x]));
  const selfT = new Map();
  profile.samples.forEach((id, i) => selfT.set(id, (selfT.get(id) || 0) + (profile.timeDeltas[i] || 0)));
  const tot = new Map();
  const calc = (x) => { let t = selfT.get(x.id) || 0; for (const c of x.children || []) t += calc(byId.get(c)); tot.set(x.id, t); return t; };
  calc(profile.nodes[0]);
  const label = (x) => (x.callFrame.functionName || '(anon)').replace(/::h[0-9a-f]{16}$/, '').replace(/\[[0-9a-f]{16}\]/g, '').slice(0, 150);
  const walk = (x, d, on) => {
    const hit = on || label(x).includes(root);
    if (hit && tot.get(x.id) >= Number(process.env.MIN || 1000)) console.log(`${' '.repeat(d)}${(tot.get(x.id) / 1000).toFixed(1)} ${label(x)}`);
    for (const c of x.children || []) walk(byId.get(c), hit ? d + 1 : d, hit);
  };
  walk(profile.nodes[0], 0, false);
}
const ms = (us) => (us / 1000 / n).toFixed(1).padStart(7);
console.log('self (ms, mean per load):');
for (const [k, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`${ms(us)}  ${k}`);
console.log('inclusive:');
for (const [k, us] of [...total].filter(([k]) => !process.env.GREP || k.includes(process.env.GREP)).sort((a, b) => b[1] - a[1]).slice(0, 70)) console.log(`${ms(us)}  ${k}`);
await browser.close();
server.close();

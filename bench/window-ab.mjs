// Ad hoc, not run by bench.sh: an interleaved A/B of two builds on the big
// inputs (same machine, same minutes): file set → first segment painted,
// longest task while opening, WebAssembly memory and JS heap, and (on the
// 20,000-segment envelope) a panel toggle → next frame.
//
// Usage: node bench/window-ab.mjs DIST_A DIST_B [ROUNDS]   (e.g. dist-base dist 3)
// Inputs from bench/gen.mjs in target/bench/.
import { join } from 'node:path';
import { memory, openBig, toggles } from './bigdoc.mjs';
import { DATA, launch, median, round, root, useServer } from './lib.mjs';
import { startServer } from './serve.mjs';

const [a, b, n = '3'] = process.argv.slice(2);
const dists = [a, b];
const servers = await Promise.all(dists.map((d) => startServer(join(root, d), 0, {})));
const browser = await launch();
const inputs = [['big.envelope.json', 'big-0000'], ['big100k.envelope.json', 'big-0000'], ['one-message-100k.envelope.json', 'one']];
const rows = {};
for (let r = 0; r < Number(n); r++) {
  for (const [file, first] of inputs) {
    for (const i of r % 2 ? [1, 0] : [0, 1]) {
      useServer(servers[i]);
      const { context, page, open } = await openBig(browser, join(DATA, file), first);
      await page.waitForTimeout(1000);
      const mem = await memory(context, page);
      let toggle = null;
      if (file === 'big.envelope.json') {
        const t = await toggles(page, page.locator('.conversation .panel-head').first(), 10);
        toggle = median(t.map((x) => x.frame));
      }
      const key = `${file} ${dists[i]}`;
      (rows[key] ??= []).push({ paint: open.frame, long: Math.max(0, ...open.long), ...mem, toggle });
      console.log(key, Math.round(open.frame), 'ms painted; longest task', Math.max(0, ...open.long), 'ms;', mem, toggle === null ? '' : `toggle ${round(toggle, 1)} ms`);
      await context.close();
    }
  }
}
console.log('\nmedians:');
for (const [k, xs] of Object.entries(rows)) {
  const m = (f) => round(median(xs.map(f).filter((v) => v !== null)), 1);
  console.log(`${k.padEnd(42)} painted ${m((x) => x.paint)} ms, longest task ${m((x) => x.long)} ms, wasm ${m((x) => x.wasm)} MB, heap ${m((x) => x.heap)} MB${xs[0].toggle === null ? '' : `, toggle ${m((x) => x.toggle)} ms`}`);
}
await browser.close();
servers.forEach((s) => s.close());

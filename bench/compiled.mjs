// Ad hoc (not run by bench.sh): which of the main module's WebAssembly
// functions the complete first screen compiles, and how much code that is.
// V8 compiles a function (Liftoff, on the main thread) at its first call, and
// on `/` that is most of the app's first task (bench/LOG.md, session 27): the
// count and the bytes here are what a smaller first screen has to bring down,
// and unlike a timing they are the same on every run. One traced load per run
// (`wasm.CompileLazy` events), fresh context each; the set of the first run is
// reported, with the counts of the others (a function called only in some
// loads, e.g. after a timer, shows there). With a module that keeps its names
// (`wasm-opt -g`), the bytes by crate as well.
//
//   node bench/compiled.mjs [--runs 2] [--path /] [--top 0] [DIST]
//
// `--top N`: the N largest compiled functions (with their names, if any).
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { launch, freshPage, root, takeOption } from './lib.mjs';
import { startServer } from './serve.mjs';
import { COND } from './complete-screen.mjs';
import { functionBodies } from '../scripts/cold-split.mjs';

const args = process.argv.slice(2);
const runs = Number(takeOption(args, '--runs', 2));
const path = takeOption(args, '--path', '/');
const top = Number(takeOption(args, '--top', 0));
const dist = resolve(args[0] || join(root, 'dist'));
const main = readdirSync(dist).find((n) => /^pep-app-[0-9a-f]+_bg\.wasm$/.test(n));
if (!main) {
  console.error(`usage: node bench/compiled.mjs [--runs N] [--path P] [DIST] (${dist} has no pep-app-…_bg.wasm)`);
  process.exit(2);
}
const { imported, sizes, names } = functionBodies(readFileSync(join(dist, main)));

const server = await startServer(dist, 0, {});
const browser = await launch();
const sets = [];
try {
  for (let i = 0; i < runs; i++) {
    const { context, page } = await freshPage(browser, { route: false });
    await browser.startTracing(page, { categories: ['v8.wasm'] });
    await page.goto(`http://127.0.0.1:${server.address().port}${path}`);
    await page.waitForFunction(...COND.ours, { timeout: 60000, polling: 'raf' });
    const trace = JSON.parse((await browser.stopTracing()).toString());
    await context.close();
    // Only the main module's functions: its indices, compiled in the page's renderer.
    const pid = trace.traceEvents.find((e) => e.name === 'wasm.CompileLazy')?.pid;
    sets.push(new Set(trace.traceEvents.filter((e) => e.name === 'wasm.CompileLazy' && e.pid === pid).map((e) => e.args.func_index)));
  }
} finally {
  await browser.close();
  server.close();
}
const compiled = [...sets[0]].filter((f) => f >= imported && f < imported + sizes.length);
const bytes = compiled.reduce((a, f) => a + sizes[f - imported], 0);
const all = sizes.reduce((a, s) => a + s, 0);
const tiny = compiled.filter((f) => sizes[f - imported] < 100).length;
console.log(`${path}: ${compiled.length} of ${sizes.length} functions compiled lazily until the complete first screen, ${bytes} of ${all} bytes of code; ${tiny} of them under 100 bytes`);
if (sets.length > 1) console.log(`  functions compiled in each run: ${sets.map((s) => s.size).join(', ')}`);
if (names.size) {
  // The function's own crate: the first crate its (v0-mangled) name names.
  const crateOf = (n) => {
    const m = /C(?:s[0-9a-zA-Z]*_)?(\d+)([a-z_][a-z0-9_]*)/.exec(n ?? '');
    return m ? m[2].slice(0, Number(m[1])) : '(unnamed)';
  };
  const by = new Map();
  for (const f of compiled) {
    const c = crateOf(names.get(f));
    const [n, b] = by.get(c) ?? [0, 0];
    by.set(c, [n + 1, b + sizes[f - imported]]);
  }
  console.log('  by crate (functions, bytes):');
  for (const [c, [n, b]] of [...by].sort((x, y) => y[1][1] - x[1][1]).slice(0, 15)) console.log(`    ${c.padEnd(20)} ${String(n).padStart(5)} ${String(b).padStart(8)}`);
}
if (top > 0) {
  console.log(`  the ${top} largest (bytes, index, name):`);
  for (const f of [...compiled].sort((a, b) => sizes[b - imported] - sizes[a - imported]).slice(0, top)) {
    console.log(`    ${String(sizes[f - imported]).padStart(6)} ${String(f).padStart(5)} ${(names.get(f) ?? '').slice(0, 160)}`);
  }
}

// The complete first screen side by side with the React stand-in (issue 24),
// in ONE run with the loads interleaved (ours, React, React, ours, …) so both
// share the machine's load: navigation → Markdown rendered as HTML and the
// protocol panel's JSON painted (bench/complete-screen.mjs; the condition of
// ../shared/anchors/side-by-side/complete.py), medians of N loads each, on
// `/` and `/demo/f` for ours (the stand-in has one first screen, its `/`),
// on two clocks (the harness's, as complete.py times it, and the page's own
// end of the frame that paints it: complete-screen.mjs says how they differ),
// and the gzip -9 bytes our page fetched until then. Quote the ratio, not the
// absolute times.
//
// Usage: node bench/complete.mjs [--runs N] [--dist DIR] [--react DIR] [--before DIR]
//   (--before: another build of ours, e.g. the previous commit's, in the same
//   interleaved run, for a before/after ratio)
//   (the stand-in built into target/react-standin/dist: see
//   ../shared/anchors/react-standin/README.md, or scripts/bench.sh)
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { bytesOf, completeLoad, completePaintLoad, median } from './complete-screen.mjs';
import { startServer } from './serve.mjs';
import { interleaved, ratioInterval } from './lib.mjs';

const root = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const opt = (name, def) => (args.includes(name) ? args[args.indexOf(name) + 1] : def);
const runs = Number(opt('--runs', 9));
const dist = resolve(opt('--dist', join(root, 'dist')));
const react = resolve(opt('--react', join(root, 'target/react-standin/dist')));
const beforeDir = opt('--before', null);
if (!existsSync(join(react, 'index.html'))) {
  console.error(`no React stand-in build at ${react} (see ../shared/anchors/react-standin/README.md)`);
  process.exit(2);
}
const { chromium } = await import(join(root, '.tools/node_modules/playwright-core/index.mjs'));
const ours = await startServer(dist, 8798);
const theirs = await startServer(react, 8799);
const before = beforeDir ? await startServer(resolve(beforeDir), 8796) : null;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync', '--disable-dev-shm-usage'],
});
const keys = ['/', '/demo/f', 'react', ...(before ? ['before /', 'before /demo/f'] : [])];
const times = Object.fromEntries(keys.map((k) => [k, []]));
const painted = Object.fromEntries(keys.map((k) => [k, []]));
const files = {};
try {
  for (const order of interleaved(keys, runs)) {
    for (const k of order) {
      const [url, who] = k === 'react'
        ? ['http://127.0.0.1:8799/', 'react']
        : k.startsWith('before ')
          ? [`http://127.0.0.1:8796${k.slice(7)}`, 'ours']
          : [`http://127.0.0.1:8798${k}`, 'ours'];
      // The two clocks on loads of their own (complete-screen.mjs).
      const r = await completeLoad(browser, url, who);
      times[k].push(r.ms);
      files[k] ??= r.files;
      painted[k].push((await completePaintLoad(browser, url, who)).t);
    }
  }
} finally {
  await browser.close();
  ours.close();
  theirs.close();
  before?.close();
}
const mr = median(times.react);
const pr = median(painted.react);
console.log(`complete first screen, median of ${runs} interleaved loads each (ratio = React / ours: above 1, ours is sooner)`);
console.log('  harness: navigation -> waitForFunction sees it (complete.py); painted: the page\'s clock, the end of the frame that paints it, on loads the harness does not poll');
console.log(`  React stand-in /: harness ${mr.toFixed(0)} ms, painted ${pr.toFixed(0)} ms`);
// Each ratio's 95 % bootstrap interval: how far this one run can be trusted.
const ci = (a, b) => ratioInterval(a, b).map((x) => x.toFixed(2)).join('–');
for (const k of keys.filter((k) => k !== 'react')) {
  const mo = median(times[k]);
  const po = median(painted[k]);
  const { total } = bytesOf(k.startsWith('before ') ? resolve(beforeDir) : dist, files[k]);
  console.log(`  ours ${k.padEnd(8)}: harness ${mo.toFixed(0)} ms, ratio ${(mr / mo).toFixed(2)} (${ci(times.react, times[k])}); painted ${po.toFixed(0)} ms, ratio ${(pr / po).toFixed(2)} (${ci(painted.react, painted[k])}); ${total} bytes gzip -9 in ${files[k].length} files`);
}

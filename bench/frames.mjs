// Ad hoc (not run by bench.sh): where the complete first screen's time goes,
// untraced, from the Long Animation Frames API. For several builds of ours and
// the React stand-in, loads interleaved (the order reversed every other
// round), medians of: the load event; the app's frame (the long animation
// frame whose scripts run longest: our app's first task, the stand-in's
// render) — its start, its scripts' time, the start of its rendering update,
// the start of its style and layout, its end; and the complete first screen
// on the page's clock (complete-screen.mjs). A trace slows the page; this
// does not.
//
//   node bench/frames.mjs [--runs 15] [--path /] [--flag F]... [--react DIR] DIST...
//
// `--flag` passes a flag to Chromium (repeatable), e.g.
// `--flag --js-flags=--no-wasm-lazy-compilation` to see what the app's task
// costs with its WebAssembly compiled before it starts (bench/LOG.md,
// session 27).
import { join, resolve } from 'node:path';
import { existsSync } from 'node:fs';
import { interleaved, launch, median, root, takeOption } from './lib.mjs';
import { startServer } from './serve.mjs';
import { completePaintLoad } from './complete-screen.mjs';

const args = process.argv.slice(2);
const runs = Number(takeOption(args, '--runs', 15));
const path = takeOption(args, '--path', '/');
const react = resolve(takeOption(args, '--react', join(root, 'target/react-standin/dist')));
const flags = [];
for (let f; (f = takeOption(args, '--flag', null)) !== null;) flags.push(f);
const dists = args.map((d) => resolve(d));
if (!dists.length || ![react, ...dists].every((d) => existsSync(join(d, 'index.html')))) {
  console.error('usage: node bench/frames.mjs [--runs N] [--path P] [--flag F]... [--react DIR] DIST... (each with an index.html; the React stand-in built)');
  process.exit(2);
}

/** In the page, before its scripts: every long animation frame and the load event. */
function probe() {
  window.__pepFrames = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      window.__pepFrames.push({ start: e.startTime, render: e.renderStart, style: e.styleAndLayoutStart, end: e.startTime + e.duration,
        script: e.scripts.reduce((a, s) => a + s.duration, 0) });
    }
  }).observe({ type: 'long-animation-frame', buffered: true });
  addEventListener('load', () => { window.__pepLoad = performance.now(); });
}
/** After the paint: the frames so far (a frame's entry comes a little after it). */
const collect = () => new Promise((ok) => setTimeout(() => ok({ frames: window.__pepFrames, load: window.__pepLoad }), 300));

const targets = [...dists.map((d) => ['ours', d]), ['react', react]];
const servers = await Promise.all(targets.map(([, d]) => startServer(d, 0, {})));
const browser = await launch(flags);
const rows = targets.map(() => []);
try {
  for (const order of interleaved([...targets.keys()], runs)) {
    for (const k of order) {
      const url = `http://127.0.0.1:${servers[k].address().port}${path}`;
      const { t, collected } = await completePaintLoad(browser, url, targets[k][0], { probe, collect });
      const app = collected.frames.filter((f) => f.start <= t).sort((a, b) => b.script - a.script)[0];
      rows[k].push({ complete: t, load: collected.load, ...(app && { start: app.start, script: app.script, render: app.render, style: app.style, end: app.end }) });
    }
  }
} finally {
  await browser.close();
  for (const s of servers) s.close();
}
const keys = ['load', 'start', 'script', 'render', 'style', 'end', 'complete'];
console.log(`page clock (ms since navigation), medians of ${runs} interleaved loads (${path})${flags.length ? `, Chromium ${flags.join(' ')}` : ''}`);
console.log(`  ${'build'.padEnd(40)} ${keys.map((k) => k.padStart(9)).join('')}`);
for (const [k, [, d]] of targets.entries()) {
  const m = (key) => { const v = rows[k].map((r) => r[key]).filter((x) => typeof x === 'number'); return v.length ? median(v).toFixed(1) : '-'; };
  console.log(`  ${(k === targets.length - 1 ? 'React stand-in' : d).padEnd(40)} ${keys.map((key) => m(key).padStart(9)).join('')}`);
}
console.log('  (load: the load event; start / script / render / style / end: the app\'s frame — its start, its scripts\' time, its rendering update, its style and layout, its end; complete: complete-screen.mjs\'s page clock)');

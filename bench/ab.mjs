// Ad hoc (not run by bench.sh): the complete first screen on the page's own
// clock (complete-screen.mjs's completePaintLoad) for several builds of ours
// and the React stand-in, loads interleaved (the order reversed every other
// round), medians and React / build ratios with their 95 % bootstrap interval,
// and the median of the ratios within each round (paired) with its interval.
// For A/B trials of copies of dist/ (a changed index.html, stylesheet or
// module: rewrite its SRI digest, and the CSP hashes with postbuild.mjs's
// inlineScriptHashes when a script changes).
//
//   node bench/ab.mjs [--runs 21] [--path /] [--latency 0] [--react DIR] DIST...
//
// `--latency` adds that many ms to every request (Chromium's network
// emulation), for what a real network's round trips do to the order of the
// page's fetches; loopback has none.
import { join, resolve } from 'node:path';
import { existsSync } from 'node:fs';
import { interleaved, launch, median, medianInterval, ratioInterval, root, takeOption } from './lib.mjs';
import { startServer } from './serve.mjs';
import { completePaintLoad } from './complete-screen.mjs';

const args = process.argv.slice(2);
const runs = Number(takeOption(args, '--runs', 21));
const path = takeOption(args, '--path', '/');
const latency = Number(takeOption(args, '--latency', 0));
const react = resolve(takeOption(args, '--react', join(root, 'target/react-standin/dist')));
const dists = args.map((d) => resolve(d));
if (!dists.length || !existsSync(join(react, 'index.html')) || dists.some((d) => !existsSync(join(d, 'index.html')))) {
  console.error('usage: node bench/ab.mjs [--runs N] [--path P] [--latency MS] [--react DIR] DIST... (each with an index.html; the React stand-in built)');
  process.exit(2);
}
const builds = [...dists.map((dir) => ({ dir, who: 'ours', path })), { dir: react, who: 'react', path: '/' }];
for (const b of builds) b.server = await startServer(b.dir, 0, {});
const browser = await launch();
const times = builds.map(() => []);
try {
  for (const order of interleaved([...builds.keys()], runs)) {
    for (const k of order) {
      const b = builds[k];
      times[k].push((await completePaintLoad(browser, `http://127.0.0.1:${b.server.address().port}${b.path}`, b.who, { latency })).t);
    }
  }
} finally {
  await browser.close();
  for (const b of builds) b.server.close();
}
const r = median(times.at(-1));
console.log(`complete first screen, page clock, median of ${runs} interleaved loads (${path}${latency ? `, +${latency} ms a request` : ''}); ratio = React / build, above 1 sooner`);
for (const [k, b] of builds.entries()) {
  let ci = '';
  if (b.who !== 'react') {
    const [lo, hi] = ratioInterval(times.at(-1), times[k]);
    // Paired: the ratio within each round (the two loads ran side by side),
    // which the machine's drift between rounds does not widen.
    const rounds = times[k].map((t, i) => times.at(-1)[i] / t);
    const [plo, phi] = medianInterval(rounds);
    ci = ` (95 % interval ${lo.toFixed(2)}–${hi.toFixed(2)}); paired ${median(rounds).toFixed(3)} (${plo.toFixed(2)}–${phi.toFixed(2)})`;
  }
  console.log(`  ${(b.who === 'react' ? 'React stand-in' : b.dir).padEnd(40)} ${median(times[k]).toFixed(1)} ms  ${(r / median(times[k])).toFixed(3)}${ci}`);
}

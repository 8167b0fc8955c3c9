// Ad hoc (not run by bench.sh): when the protocol panel's JSON is painted
// after a cold load, next to the first painted segment, for several builds
// interleaved (so that they share the machine's load). Issue 11 moved the
// panel into a split module fetched after the first paint; this measures
// what that costs the panel and whether the first paint moved.
//
//   node bench/panel-paint.mjs [--runs 9] [--paths /,/demo/f] DIST...
//
// seg / painted: as bench/first-paint.mjs (first `[data-kind]` segment in the
// DOM; the frame that shows it, plus its paint). json / jsonPainted: the same
// for the panel's `[data-testid=protocol-json]`. `asked` / `split`: the panel
// module's (split_protocol) request start and responseEnd, when the build has one. Median ms after
// navigation start.
import { freshPage, launch, median, takeOption } from './lib.mjs';
import { startServer } from './serve.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => takeOption(args, name, dflt);
const runs = Number(opt('--runs', 9));
const paths = opt('--paths', '/,/demo/f').split(',');
const dists = args;
if (!dists.length) {
  console.error('usage: node bench/panel-paint.mjs [--runs N] [--paths /,/demo/f] DIST...');
  process.exit(2);
}

/** Marks `window['__' + key]` when `sel` is first in the DOM, and `…Painted` after its frame. */
function watch({ marks }) {
  for (const [key, sel] of marks) {
    const obs = new MutationObserver(() => {
      if (window[`__${key}`] !== undefined || !document.querySelector(sel)) return;
      window[`__${key}`] = performance.now();
      obs.disconnect();
      requestAnimationFrame(() => setTimeout(() => { window[`__${key}Painted`] = performance.now(); }, 0));
    });
    obs.observe(document, { childList: true, subtree: true });
  }
}

async function once(browser, base, path) {
  const { context, page } = await freshPage(browser, { route: false });
  await context.addInitScript(watch, { marks: [['seg', '[data-kind]'], ['json', '[data-testid=protocol-json]']] });
  await page.goto(base + path);
  await page.waitForFunction(() => window.__jsonPainted !== undefined && window.__segPainted !== undefined, null, { timeout: 60000 });
  const t = await page.evaluate(() => {
    const mod = performance.getEntriesByType('resource').find((r) => /split_protocol/.test(r.name));
    return { seg: window.__seg, painted: window.__segPainted, asked: mod?.startTime, split: mod?.responseEnd, json: window.__json, jsonPainted: window.__jsonPainted };
  });
  if (page.errors.length) throw new Error(`${base}${path}: ${page.errors.join('; ')}`);
  await context.close();
  return t;
}

const servers = await Promise.all(dists.map((d) => startServer(d, 0)));
const bases = servers.map((s) => `http://127.0.0.1:${s.address().port}`);
const browser = await launch();
const samples = dists.map(() => Object.fromEntries(paths.map((p) => [p, []])));
// One warm-up load each (disk cache of the server, the browser's first process).
for (const b of bases) await once(browser, b, paths[0]);
for (let r = 0; r < runs; r++) {
  for (const p of paths) {
    for (let i = 0; i < dists.length; i++) samples[i][p].push(await once(browser, bases[i], p));
  }
}
await browser.close();
for (const s of servers) s.close();
const keys = ['seg', 'painted', 'asked', 'split', 'json', 'jsonPainted'];
console.log(`median ms after navigation start, ${runs} cold loads each`);
console.log(`${'build'.padEnd(28)} ${'path'.padEnd(8)} ${keys.map((k) => k.padStart(11)).join(' ')}`);
for (const p of paths) {
  dists.forEach((d, i) => {
    const m = keys.map((k) => {
      const xs = samples[i][p].map((t) => t[k]).filter((x) => x !== undefined);
      return (xs.length ? median(xs).toFixed(1) : '-').padStart(11);
    });
    console.log(`${d.slice(-28).padEnd(28)} ${p.padEnd(8)} ${m.join(' ')}`);
  });
}

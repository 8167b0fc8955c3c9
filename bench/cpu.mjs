// Ad hoc (not run by bench.sh): the main thread's CPU time until the complete
// first screen, by kind of work, for several builds and the React stand-in,
// loads interleaved. On two shared cores the main thread's own work is the
// first screen's critical path, and its CPU time (a trace's `tdur`, the
// thread's time, not the wall clock's) moves far less with the machine's load
// than any timing: it can judge a change of a few milliseconds that a timed
// run cannot (bench/LOG.md, session 28).
//
//   node bench/cpu.mjs [--runs 7] [--path /] [--react DIR] DIST...
//
// One traced load per build per round, fresh context, nothing polled in the
// page. The end is the end of the first `Paint` after the load's longest
// script task (our app's first task, the stand-in's render): both paint their
// complete first screen there (no second render; LOG, session 27). Each
// event's own time goes to the kind of its nearest classified ancestor or
// itself: script (JavaScript and WebAssembly: compiling, instantiating and
// running), parse (HTML and stylesheets), style, layout, paint (pre-paint,
// paint, layerize, commit), gc, other (WebAssembly streaming among it). No
// V8 category is traced: one event per lazily compiled function (~2,700 on
// `/`) would slow our side more than the stand-in's. `fonts` counts the font lookups (`FontCache::GetFontPlatformData`,
// one per family, size and style the layout asks for; a family the machine
// lacks costs one too), `font ipc` the ones that went to the browser process
// and `fallback` the characters none of a stack's fonts has, for which the
// browser process was asked for a font. Medians; `end` is the wall clock's, for reference.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { firstScreen, freshPage, interleaved, launch, median, root, SCRIPT_EVENT, takeOption } from './lib.mjs';
import { startServer } from './serve.mjs';

const args = process.argv.slice(2);
const runs = Number(takeOption(args, '--runs', 7));
const path = takeOption(args, '--path', '/');
const react = resolve(takeOption(args, '--react', join(root, 'target/react-standin/dist')));
const dists = args.map((d) => resolve(d));
if (!dists.length || ![react, ...dists].every((d) => existsSync(join(d, 'index.html')))) {
  console.error('usage: node bench/cpu.mjs [--runs N] [--path P] [--react DIR] DIST... (each with an index.html; the React stand-in built)');
  process.exit(2);
}

const KINDS = ['script', 'parse', 'style', 'layout', 'paint', 'gc', 'other'];
/** The kind of a trace event by its name, or null (its time goes to its parent's kind). */
function kindOf(name) {
  if (SCRIPT_EVENT.test(name)) return 'script';
  if (name === 'ParseHTML' || name === 'ParseAuthorStyleSheet') return 'parse';
  if (name === 'UpdateLayoutTree') return 'style';
  if (name === 'Layout') return 'layout';
  if (/^(PrePaint|Paint|Layerize|Commit|UpdateLayer|PaintImage|Decode Image)$/.test(name)) return 'paint';
  if (/GC|Scavenge|MarkCompact/.test(name)) return 'gc';
  return null;
}

/** One load's figures from its trace. */
function measure(events) {
  const { on, start, end } = firstScreen(events);
  const row = Object.fromEntries(KINDS.map((k) => [k, 0]));
  row.fonts = 0;
  row.fontIpc = 0;
  row.fallback = 0;
  // Own time: an event's thread time less its children's, to the nearest classified kind.
  const stack = []; // { end, kind, child }
  const own = new Map();
  for (const e of on) {
    if (e.ts >= end) break;
    while (stack.length && stack[stack.length - 1].end <= e.ts) stack.pop();
    const t = (e.tdur ?? e.dur) / 1000;
    const parent = stack[stack.length - 1];
    if (parent) parent.child.t += t;
    const kind = kindOf(e.name) ?? parent?.kind ?? 'other';
    const entry = { end: e.ts + e.dur, kind, child: { t: 0 } };
    own.set(entry, t);
    stack.push(entry);
    if (e.name === 'FontCache::GetFontPlatformData') row.fonts++;
    if (e.name === 'FontDataManager::onMatchFamilyStyle') row.fontIpc++;
    if (e.name === 'FontCache::FallbackFontForCharacter') row.fallback++;
  }
  for (const [entry, t] of own) row[entry.kind] += Math.max(0, t - entry.child.t);
  row.total = KINDS.reduce((a, k) => a + row[k], 0);
  row.end = (end - start) / 1000;
  return row;
}

const targets = [...dists.map((d) => ['ours', d]), ['react', react]];
const servers = await Promise.all(targets.map(([, d]) => startServer(d, 0, {})));
const browser = await launch();
const rows = targets.map(() => []);
try {
  for (const order of interleaved([...targets.keys()], runs + 1)) {
    for (const k of order) {
      const { context, page } = await freshPage(browser, { route: false });
      await browser.startTracing(page, { categories: ['devtools.timeline', 'loading', 'blink.user_timing', 'fonts'] });
      await page.goto(`http://127.0.0.1:${servers[k].address().port}${path}`);
      await page.waitForTimeout(1200);
      const trace = JSON.parse((await browser.stopTracing()).toString());
      await context.close();
      rows[k].push(measure(trace.traceEvents));
    }
  }
} finally {
  await browser.close();
  for (const s of servers) s.close();
}
// The first round warms the machine and the server's gzip cache: left out.
const keys = ['end', 'total', ...KINDS, 'fonts', 'fontIpc', 'fallback'];
console.log(`main thread's CPU until the complete first screen (ms; thread time), medians of ${runs} interleaved traced loads (${path})`);
console.log(`  ${'build'.padEnd(34)}${keys.map((k) => (k === 'fontIpc' ? 'font ipc' : k).padStart(9)).join('')}`);
for (const [k, [, d]] of targets.entries()) {
  const m = (key) => median(rows[k].slice(1).map((r) => r[key]));
  const cell = (key) => (key.startsWith('font') ? String(m(key)) : m(key).toFixed(1)).padStart(9);
  console.log(`  ${(k === targets.length - 1 ? 'React stand-in' : d).slice(-34).padEnd(34)}${keys.map(cell).join('')}`);
}

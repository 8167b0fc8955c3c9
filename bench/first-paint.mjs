// Ad hoc (not run by bench.sh): where the time to the first painted segment
// goes, by phase, from a Chromium trace of each cold load, interleaved across
// several builds (and the React stand-in) so that they share the machine's load.
//
//   node bench/first-paint.mjs [--runs 9] [--paths /,/demo/f] DIST... [react=DIR]
//
// A DIST is a Trunk dist/ folder (first segment: `[data-kind]`); `react=DIR`
// adds the React stand-in's built dist/ (first segment: `[data-segment]`, on
// `/` only, whatever --paths says). "Painted" is measure.py's definition (the
// side-by-side anchor): the first animation frame in which a segment exists,
// plus that frame's paint (a `setTimeout(0)` queued from the frame).
//
// Milestones (ms after navigation start, median): html/js/wasm/demo = the
// resource's responseEnd; compile = V8's streaming compile of the app module
// (start → end); inst = instantiation done; started = Trunk's
// TrunkApplicationStarted (main() has returned: the first render is in the
// DOM); seg = first segment in the DOM; painted = as above. Main-thread busy
// time from navigation to `painted`, by top-level trace event: script (JS and
// WebAssembly), wasm.CompileLazy (V8 compiles each function on its first
// call), style/layout, paint, HTML parse; `cpu` is the main thread's CPU time
// over the same span (thread time of top-level events).
import { pathToFileURL } from 'node:url';
import { freshPage, launch, median, takeOption } from './lib.mjs';
import { startServer } from './serve.mjs';

const MAIN_KEYS = { FunctionCall: 'script', 'v8.callFunction': 'script', EvaluateScript: 'script', 'v8.compileModule': 'script', 'wasm.CompileLazy': 'compileLazy', UpdateLayoutTree: 'style', Layout: 'layout', Paint: 'paint', PrePaint: 'paint', Commit: 'paint', Layerize: 'paint', ParseHTML: 'parseHTML', ParseAuthorStyleSheet: 'style' };

/**
 * One cold load of `base + path` in a fresh context: the milestones `t`
 * (ms after navigation start: resources' responseEnd, started, seg, raf,
 * painted) and, with `trace` (the default), `busy`: the main thread's time by
 * category before `painted`. The side-by-side bench (bench/sidebyside.mjs)
 * uses it without the trace.
 */
export function firstPaintLoad(browser, { base, path, sel, trace = true }) {
  return once({ t: { sel, base }, path }, browser, trace);
}

async function once(c, browser, trace = true) {
  const base = c.t.base || `http://127.0.0.1:${c.t.server.address().port}`;
  const { context, page } = await freshPage(browser, { route: false });
  await context.addInitScript((sel) => {
    const obs = new MutationObserver(() => {
      if (window.__seg === undefined && document.querySelector(sel)) {
        window.__seg = performance.now();
        obs.disconnect();
        const tick = () => {
          if (!document.querySelector(sel)) return requestAnimationFrame(tick);
          window.__raf = performance.now();
          setTimeout(() => { window.__painted = performance.now(); performance.mark('painted'); }, 0);
        };
        requestAnimationFrame(tick);
      }
    });
    obs.observe(document, { childList: true, subtree: true });
    addEventListener('TrunkApplicationStarted', () => { window.__started = performance.now(); });
  }, c.t.sel);
  if (trace) await browser.startTracing(page, { categories: ['devtools.timeline', 'blink.user_timing', 'v8.wasm', 'v8'] });
  await page.goto(base + c.path);
  await page.waitForFunction(() => window.__painted !== undefined, null, { timeout: 60000 });
  const buf = trace ? await browser.stopTracing() : null;
  const js = await page.evaluate(() => {
    const res = {};
    for (const r of performance.getEntriesByType('resource')) {
      const u = new URL(r.name).pathname;
      const k = u.endsWith('.wasm') ? 'wasm' : u.endsWith('.js') ? 'js' : u.endsWith('.css') ? 'css' : u.includes('/demos/') ? 'demo' : null;
      if (k && res[k] === undefined) res[k] = r.responseEnd;
    }
    res.html = performance.getEntriesByType('navigation')[0].responseEnd;
    return { ...res, started: window.__started, seg: window.__seg, raf: window.__raf, painted: window.__painted };
  });
  await context.close();
  if (!trace) return { t: js, busy: {} };
  const ev = JSON.parse(buf.toString()).traceEvents;
  const nav = ev.find((e) => e.name === 'navigationStart' && (e.args?.data?.documentLoaderURL || '').startsWith(base));
  const pid = nav.pid;
  const mainThread = ev.find((e) => e.name === 'thread_name' && e.pid === pid && e.args?.name === 'CrRendererMain');
  const rel = (ts) => (ts - nav.ts) / 1000;
  const find = (name) => ev.find((e) => e.pid === pid && e.name === name);
  const t = { ...js };
  const cs = find('wasm.StartStreamingCompilation');
  const fs = find('wasm.FinishStreaming');
  const ai = find('wasm.AsyncInstantiate') || find('wasm.SyncInstantiate');
  if (cs) t.compileStart = rel(cs.ts);
  if (fs) t.compileEnd = rel(fs.ts + (fs.dur || 0));
  if (ai) t.inst = rel(ai.ts + (ai.dur || 0));
  // Main-thread busy time, top-level events only, up to `painted`.
  const end = nav.ts + js.painted * 1000;
  const on = ev.filter((e) => e.ph === 'X' && e.pid === pid && mainThread && e.tid === mainThread.tid && e.ts >= nav.ts && e.ts < end && e.dur);
  // Per category, the union of its events' intervals (nested events of one
  // category count once); lazy compiles happen inside script, so script is
  // reported without them.
  const spans = {};
  for (const e of on) {
    const k = MAIN_KEYS[e.name];
    if (!k) continue;
    (spans[k] ||= []).push([e.ts, Math.min(e.ts + e.dur, end)]);
  }
  const busy = {};
  for (const [k, list] of Object.entries(spans)) {
    list.sort((a, b) => a[0] - b[0]);
    let sum = 0, s0 = -1, s1 = -1;
    for (const [a, b] of list) {
      if (a > s1) { if (s1 > s0) sum += s1 - s0; s0 = a; s1 = b; } else s1 = Math.max(s1, b);
    }
    if (s1 > s0) sum += s1 - s0;
    busy[k] = sum / 1000;
  }
  busy.script = (busy.script || 0) - (busy.compileLazy || 0);
  busy.total = Object.values(busy).reduce((a, b) => a + b, 0);
  // CPU time of the main thread (trace thread-time, top-level events): what
  // the page itself costs, less sensitive to other processes than wall time.
  let cpu = 0, until = 0;
  on.sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  for (const e of on) {
    if (e.ts < until) continue;
    until = e.ts + e.dur;
    if (e.tdur) cpu += e.tdur / 1000;
  }
  busy.cpu = cpu;
  // DUMP=1: the main thread's top-level events from 20 ms before the first
  // segment to `painted` (name, start, duration in ms after navigation).
  if (process.env.DUMP) {
    const from = nav.ts + (process.env.DUMP === "all" ? 0 : js.seg - 20) * 1000;
    const rows = on.filter((e) => e.ts >= from && e.dur >= 300).map((e) => `${e.name} ${rel(e.ts).toFixed(1)}+${(e.dur / 1000).toFixed(1)}`);
    console.log(`\n${c.t.name} ${c.path}: seg ${js.seg.toFixed(1)} raf ${js.raf.toFixed(1)} painted ${js.painted.toFixed(1)}\n  ${rows.join('\n  ')}`);
  }
  return { t, busy };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const opt = (name, dflt) => takeOption(args, name, dflt);
  const runs = Number(opt('--runs', 9));
  const paths = opt('--paths', '/,/demo/f').split(',');
  const targets = args.map((a) => (a.startsWith('react=') ? { name: 'react', dir: a.slice(6), sel: '[data-segment]', react: true } : { name: a, dir: a, sel: '[data-kind]' }));
  for (const t of targets) t.server = await startServer(t.dir, 0, {});

  const browser = await launch();
  const cases = [];
  for (const p of paths) for (const t of targets) if (!t.react || p === paths[0]) cases.push({ t, path: t.react ? '/' : p, rows: [] });

  for (let i = 0; i <= runs; i++) {
    for (const c of cases) {
      const r = await once(c, browser);
      if (i > 0) c.rows.push(r); // the first round warms the browser up
    }
    process.stderr.write(`round ${i}/${runs}\r`);
  }
  await browser.close();
  for (const t of targets) t.server.close();

  const M = (rows, f) => { const v = median(rows.map(f).filter((x) => Number.isFinite(x))); return Number.isFinite(v) ? Math.round(v) : '-'; };
  const out = [];
  for (const c of cases) {
    const keys = ['html', 'css', 'js', 'wasm', 'demo', 'compileStart', 'compileEnd', 'inst', 'started', 'seg', 'raf', 'painted'];
    const bkeys = ['total', 'cpu', 'script', 'compileLazy', 'style', 'layout', 'paint', 'parseHTML'];
    const row = { target: c.t.name, path: c.path, painted: M(c.rows, (r) => r.t.painted), samples: c.rows.map((r) => Math.round(r.t.painted)) };
    row.milestones = Object.fromEntries(keys.map((k) => [k, M(c.rows, (r) => r.t[k])]));
    row.busy = Object.fromEntries(bkeys.map((k) => [k, M(c.rows, (r) => r.busy[k] || 0)]));
    out.push(row);
    console.log(`${c.t.name} ${c.path}: painted ${row.painted} ms (runs ${row.samples.join('/')})`);
    console.log(`  milestones: ${keys.map((k) => `${k} ${row.milestones[k]}`).join(', ')}`);
    console.log(`  main thread busy before painted: ${bkeys.map((k) => `${k} ${row.busy[k]}`).join(', ')}`);
  }
  const react = out.find((r) => r.target === 'react');
  if (react) for (const r of out) if (r !== react) console.log(`ratio ${r.target} ${r.path} / react /: ${(r.painted / react.painted).toFixed(2)}`);
  if (process.env.JSON) (await import('node:fs')).writeFileSync(process.env.JSON, JSON.stringify(out, null, 1));
}

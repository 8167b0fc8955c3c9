// Issue 11's goals, side by side with the React stand-in (the seed's stack,
// ../shared/anchors/react-standin, built by scripts/bench.sh into
// target/react-standin), in ONE run with the two apps' loads interleaved, so
// that both share the machine's load. What each figure means follows
// ../shared/anchors/side-by-side/measure.py (the yardstick):
//  - first segment painted: the first animation frame in which a segment
//    exists, plus that frame's paint (`setTimeout(0)` queued from the frame);
//    fresh context per load (bench/first-paint.mjs's `firstPaintLoad`);
//  - scale: the stand-in's own 20,000-segment file (React: injected before
//    load, timed from the moment the object exists; ours: the same content
//    converted by to_pep.py, through the file input, timed from `change`), and
//    the same generator at 100,000 segments (~37 MB);
//  - toggle: a real click on the first collapsible toggle → next frame painted.
// Ours with every segment rendered: after "Expand all" (the window renders
// what is near the viewport; every toggle is open). The stand-in renders every
// segment always, so its ordinary toggle is its "everything rendered" one.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { install, memory, openBig, reveal, scrollRun, toggles } from './bigdoc.mjs';
import { firstPaintLoad } from './first-paint.mjs';
import { firstLoad } from './first-load.mjs';
import { BASE, freshPage, median, round, within } from './lib.mjs';
import { startServer } from './serve.mjs';

const SCALE = [
  ['scale-light', '20,000 segments (2,000 messages)'],
  ['scale-100k', '100,000 segments (10,000 messages)'],
];

/** Lines of the side-by-side table: { figure, react, ours, unit, goal, better } (`better`: 'lower' | 'higher'). */
export class Table {
  constructor() { this.rows = []; }
  add(row) { this.rows.push(row); }
  print() {
    const f = (v, u) => (v === null || v === undefined ? 'n/a' : typeof v === 'string' ? v : `${v.toLocaleString('en-US', { maximumFractionDigits: v >= 100 ? 0 : 1 })} ${u}`.trim());
    const lines = this.rows.map((r) => {
      const ratio = typeof r.react === 'number' && typeof r.ours === 'number' && r.ours > 0 ? `${(r.react / r.ours).toFixed(2)}×` : '';
      return [r.figure, f(r.react, r.unit), f(r.ours, r.unit), ratio, r.goal || '', r.status || ''];
    });
    const head = ['figure', 'React stand-in', 'ours', 'stand-in/ours', 'goal', ''];
    const w = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
    const row = (l) => l.map((c, i) => (i >= 1 && i <= 3 ? c.padStart(w[i]) : c.padEnd(w[i]))).join('  ').trimEnd();
    return [row(head), w.map((n) => '-'.repeat(n)).join('  '), ...lines.map(row)].join('\n');
  }
}

/** The stand-in's page with `window.__ENVELOPE__` set before load (a synchronous fetch in an init script). */
async function openReact(browser, base, name) {
  const { context, page } = await freshPage(browser, { route: false });
  await context.addInitScript((url) => {
    window.__rs = {};
    if (!url) return;
    const x = new XMLHttpRequest();
    x.open('GET', url, false);
    x.send();
    window.__ENVELOPE__ = JSON.parse(x.responseText);
    window.__rs.envReady = performance.now();
    const tick = () => {
      if (document.querySelector('[data-segment]')) {
        window.__rs.raf = performance.now();
        setTimeout(() => { window.__rs.painted = performance.now(); }, 0);
        return;
      }
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  }, name ? `/__sbs/${name}.json` : null);
  // `commit`: the page's own work (parse, render) is timed by the caller, under its cap.
  await page.goto(`${base}/`, { waitUntil: name ? 'commit' : 'load', timeout: 120000 });
  return { context, page };
}

/** In the page: scrolls `sel` one screen per frame for `frames` frames; the longest task and the frame intervals. */
async function scrollFling(page, sel, frames) {
  const r = await scrollRun(page, { sel, frames });
  const times = [...r.times].sort((a, b) => a - b);
  const long = r.long.length ? Math.max(...r.long) : 0;
  return { frames: r.frames, total: r.total, longest: long, p50: times[times.length >> 1] || 0 };
}

const OUR_TOGGLE = '.conversation [data-message-id] button[aria-expanded]';

/** Clicks `locator` (a real click), waits for the next painted frame and `ready` (in-page predicate source); the longest task meanwhile. */
async function clickUntil(page, locator, ready, timeout = 120000) {
  await page.evaluate(() => window.__arm());
  await locator.click({ timeout });
  const r = await page.evaluate(() => window.__resP);
  await page.waitForFunction(ready, null, { timeout });
  const t = await page.evaluate(({ t0 }) => new Promise((ok) => requestAnimationFrame(() => setTimeout(() => ok(performance.now() - t0)))), { t0: r.t });
  await page.waitForTimeout(300);
  const long = await page.evaluate(({ a, b }) => window.__longIn(a, b).map((e) => e.dur), { a: r.t, b: r.t + t });
  return { frame: r.frame, shown: t, longest: long.length ? Math.max(...long) : 0 };
}

/** What Copy put on the clipboard and what Download saved, in bytes (UTF-8). */
async function copyAndDownload(page, copySel, downloadSel) {
  let copied = null;
  try {
    await page.locator(copySel).first().click();
    await page.waitForTimeout(500);
    copied = await page.evaluate(async () => new TextEncoder().encode(await navigator.clipboard.readText()).length);
  } catch (e) { copied = `failed: ${String(e.message || e).split('\n')[0].slice(0, 60)}`; }
  let saved = null;
  try {
    const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 60000 }), page.locator(downloadSel).first().click()]);
    const p = await dl.path();
    saved = statSync(p).size;
  } catch (e) { saved = `failed: ${String(e.message || e).split('\n')[0].slice(0, 60)}`; }
  return { copied, saved };
}

/**
 * The section: `standin` is the built stand-in folder (dist/ and scale/);
 * `ours` is our dist folder (served by run.mjs at BASE).
 */
export async function sideBySide(results, browser, { standin, ours, runs = 9, scaleRuns = 3, reactHugeCapMs = Number(process.env.SBS_REACT_CAP_MS || 45000) }) {
  // SBS=paint,20k,100k (the default: all three) picks parts (for a quick look at one).
  const parts = (process.env.SBS || 'paint,20k,100k').split(',');
  const t = new Table();
  results.sideBySide = t;
  const scaleDir = join(standin, 'scale');
  const server = await startServer(join(standin, 'dist'), 0, { '/__sbs/': scaleDir });
  const rbase = `http://127.0.0.1:${server.address().port}`;
  try {
    // ---- 1. first segment painted, `/` and `/demo/f`, interleaved ----
    if (parts.includes('paint')) {
    const cases = [
      { who: 'react', base: rbase, path: '/', sel: '[data-segment]', v: [] },
      { who: 'ours', base: BASE, path: '/', sel: '[data-kind]', v: [] },
      { who: 'ours', base: BASE, path: '/demo/f', sel: '[data-kind]', v: [] },
    ];
    for (let i = 0; i <= runs; i++) {
      for (const c of cases) {
        const r = await firstPaintLoad(browser, { base: c.base, path: c.path, sel: c.sel, trace: false });
        if (i > 0) c.v.push(r.t.painted); // round 0 warms the browser up
      }
    }
    const [rp, op, of] = cases.map((c) => round(median(c.v)));
    const note = (c) => c.v.map(Math.round).join('/');
    results.add({ id: 'sbs-paint-react', budget: 2, name: `Stand-in /: navigation → first segment painted, median of ${runs}`, value: rp, unit: 'ms', note: note(cases[0]) });
    results.add({ id: 'sbs-paint-a', budget: 2, name: `Ours /: navigation → first segment painted, median of ${runs} (goal ≤ the stand-in's ${rp} ms)`, value: op, unit: 'ms', limit: rp, note: note(cases[1]) });
    results.add({ id: 'sbs-paint-f', budget: 2, name: `Ours /demo/f: navigation → first segment painted, median of ${runs} (goal ≤ the stand-in's / ${rp} ms)`, value: of, unit: 'ms', limit: rp, note: note(cases[2]) });
    t.add({ figure: `1. / → first segment painted (median of ${runs})`, react: rp, ours: op, unit: 'ms', goal: '≤ stand-in', status: op <= rp ? 'met' : 'MISSED' });
    t.add({ figure: `1. /demo/f → first segment painted (stand-in: its /)`, react: rp, ours: of, unit: 'ms', goal: '≤ stand-in', status: of <= rp ? 'met' : 'MISSED' });
    }

    // ---- 2. first-load transfer ----
    const rg = firstLoad(join(standin, 'dist')).total;
    const og = firstLoad(ours).total;
    t.add({ figure: '2. first-load transfer, gzip -9 (KB = 1,000 B)', react: round(rg / 1000, 1), ours: round(og / 1000, 1), unit: 'KB', goal: '≤ 300 KB', status: og <= 300000 ? 'met' : 'MISSED' });

    // ---- 3. the 20,000-segment envelope, interleaved ----
    for (const [name, label] of SCALE) {
      if (!parts.includes(name === 'scale-100k' ? '100k' : '20k')) continue;
      const huge = name === 'scale-100k';
      const pep = join(scaleDir, `${name}.pep.json`);
      const mb = (statSync(pep).size / 1e6).toFixed(1);
      const R = { first: [], clicks: [], heap: [], long: [] };
      const O = { first: [], clicks: [], all: [], mem: [], long: [] };
      let rEnd = null, oEnd = null;
      for (let i = 0; i < (huge ? 1 : scaleRuns); i++) {
        // React
        let { context, page } = await openReact(browser, rbase, name);
        try {
          await within(huge ? reactHugeCapMs : 300000, 'not painted', page.waitForFunction(() => window.__rs?.painted !== undefined, null, { timeout: 0, polling: 500 }));
          await page.evaluate(install);
          R.first.push(await page.evaluate(() => window.__rs.painted - window.__rs.envReady));
          await page.waitForTimeout(1000);
          R.clicks.push(...(await toggles(page, page.locator('[data-collapsible-toggle]').first(), 6)).map((x) => x.frame));
          R.heap.push((await memory(context, page)).heap);
          if (huge || i === scaleRuns - 1) rEnd = { context, page };
        } catch (e) {
          R.error = String(e.message || e).split('\n')[0];
        }
        if (rEnd?.page !== page) await context.close().catch(() => {});
        // ours
        const o = await openBig(browser, pep, 'scale-m0');
        O.first.push(o.open.frame);
        O.long.push(o.open.long.length ? Math.max(...o.open.long) : 0);
        await o.page.waitForTimeout(1000);
        O.clicks.push(...(await toggles(o.page, await reveal(o.page, OUR_TOGGLE), 6)).map((x) => x.frame));
        O.mem.push(await memory(o.context, o.page));
        if (huge || i === scaleRuns - 1) oEnd = o;
        else await o.context.close();
      }
      const tag = huge ? '4. 100k' : '3. 20k';
      const rf = R.first.length ? round(median(R.first)) : (R.error ? `${R.error.replace(/^not painted: over/, 'not painted in')}` : null);
      t.add({ figure: `${tag}: envelope available → first segment painted`, react: rf, ours: round(median(O.first)), unit: 'ms', goal: huge ? '< 1,500 ms' : '', status: huge ? (median(O.first) < 1500 ? 'met' : 'MISSED') : '' });
      if (huge) t.add({ figure: `${tag}: longest task while opening (ours; the stand-in's open is one task)`, react: R.first.length ? round(median(R.first)) : null, ours: round(median(O.long)), unit: 'ms' });
      t.add({ figure: `${tag}: toggle → next frame painted (median of ${O.clicks.length})`, react: R.clicks.length ? round(median(R.clicks), 1) : null, ours: round(median(O.clicks), 1), unit: 'ms' });
      results.add({ id: `sbs-${name}-first`, budget: 3, name: `${label}, ${mb} MB: ours, file set → first segment painted`, value: round(median(O.first)), unit: 'ms', ...(huge ? { limit: 1500, cmp: '<' } : {}), note: `runs ${O.first.map(Math.round).join('/')}; stand-in ${R.first.map(Math.round).join('/') || R.error}; longest task opening ${O.long.map(Math.round).join('/')} ms` });
      results.add({ id: `sbs-${name}-toggle`, budget: 3, name: `${label}: ours, toggle → next frame, median of ${O.clicks.length}`, value: round(median(O.clicks), 1), unit: 'ms', note: `stand-in median ${round(median(R.clicks), 1)} ms of ${R.clicks.length}: ${R.clicks.map(Math.round).join('/')}` });

      // Everything rendered: ours after "Expand all"; the stand-in as it is.
      const exp = await clickUntil(oEnd.page, oEnd.page.locator('.conv-tools button', { hasText: 'Expand all' }), () => true, 240000);
      await oEnd.page.waitForTimeout(500);
      const openToggles = await oEnd.page.locator('.conversation [aria-expanded=false]').count();
      const allClicks = (await toggles(oEnd.page, await reveal(oEnd.page, OUR_TOGGLE), 18)).map((x) => x.frame);
      const ra = R.clicks.length ? round(median(R.clicks), 1) : null;
      t.add({ figure: `${tag}: every segment expanded ("Expand all"), toggle → next frame (median of 18; stand-in: all rendered always)`, react: ra, ours: round(median(allClicks), 1), unit: 'ms', goal: huge ? '' : '< 16 ms', status: huge ? '' : (median(allClicks) < 16 ? 'met' : 'MISSED') });
      results.add({ id: `sbs-${name}-toggle-all`, budget: 3, name: `${label}: ours, after "Expand all", toggle → next frame, median of 18`, value: round(median(allClicks), 1), unit: 'ms', ...(huge ? {} : { limit: 16, cmp: '<' }), note: `"Expand all" → next frame ${Math.round(exp.frame)} ms (longest task ${Math.round(exp.longest)} ms); toggles still closed after it: ${openToggles}; all ${allClicks.map(Math.round).join('/')}` });

      // Responsiveness: a fling through the conversation, from the top.
      await oEnd.page.evaluate(() => { document.querySelector('.pane.left').scrollTop = 0; });
      await oEnd.page.waitForTimeout(300);
      const frames = huge ? 300 : 100;
      const of2 = await scrollFling(oEnd.page, '.pane.left', frames);
      const rf2 = rEnd ? await scrollFling(rEnd.page, 'main', frames).catch(() => null) : null;
      t.add({ figure: `${tag}: scroll ${frames} screens, one per frame — longest task`, react: rf2 ? round(rf2.longest) : null, ours: round(of2.longest), unit: 'ms', goal: huge ? '< 50 ms' : '', status: huge ? (of2.longest < 50 ? 'met' : 'MISSED') : '' });
      results.add({ id: `sbs-${name}-scroll`, budget: 3, name: `${label}: ours, scroll ${frames} screens one per frame — longest task`, value: round(of2.longest), unit: 'ms', note: `${of2.frames} frames in ${Math.round(of2.total)} ms (median interval ${round(of2.p50, 1)} ms); stand-in ${rf2 ? `${Math.round(rf2.longest)} ms longest, ${rf2.frames} frames in ${Math.round(rf2.total)} ms (median interval ${round(rf2.p50, 1)} ms)` : 'n/a'}` });

      // Memory: WebAssembly + JS heap after GC (the stand-in has only the JS heap).
      const m = O.mem[O.mem.length - 1];
      t.add({ figure: `${tag}: WebAssembly memory (after opening)`, react: 'none', ours: m.wasm, unit: 'MB' });
      t.add({ figure: `${tag}: JS heap after GC (after opening)`, react: R.heap.length ? median(R.heap) : null, ours: m.heap, unit: 'MB' });

      // The JSON view of the whole document (Raw tab) and Copy/Download.
      if (huge) {
        const expectBytes = statSync(pep).size;
        await oEnd.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: BASE }).catch(() => {});
        const oj = await clickUntil(oEnd.page, oEnd.page.getByTestId('tab-raw'), () => !!document.querySelector('[data-testid=protocol-json] .jrow'), 240000);
        const ojScroll = await scrollFling(oEnd.page, '[data-testid=protocol-json]', 100);
        const ocd = await copyAndDownload(oEnd.page, '[data-testid=copy-json]', '[data-testid=download-json]');
        let rj = null, rjScroll = null, rcd = null;
        if (rEnd) {
          await rEnd.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: rbase }).catch(() => {});
          rj = await clickUntil(rEnd.page, rEnd.page.locator('aside button', { hasText: 'Raw' }), () => true, 240000).catch(() => null);
          rjScroll = await scrollFling(rEnd.page, 'aside pre', 100).catch(() => null);
          rcd = await copyAndDownload(rEnd.page, 'aside button:has-text("Copy")', 'aside button:has-text("Download")');
        }
        t.add({ figure: `${tag}: JSON view of the raw document (${mb} MB): tab click → shown, longest task`, react: rj ? round(rj.longest) : null, ours: round(oj.longest), unit: 'ms', goal: 'no freeze (< 200 ms)', status: oj.longest < 200 ? 'met' : 'MISSED' });
        t.add({ figure: `${tag}: JSON view: tab click → shown`, react: rj ? round(rj.shown) : null, ours: round(oj.shown), unit: 'ms' });
        t.add({ figure: `${tag}: JSON view: scroll 100 screens — longest task`, react: rjScroll ? round(rjScroll.longest) : null, ours: round(ojScroll.longest), unit: 'ms' });
        const cd = (x) => (x ? `${typeof x.copied === 'number' ? (x.copied / 1e6).toFixed(2) + ' MB' : x.copied} / ${typeof x.saved === 'number' ? (x.saved / 1e6).toFixed(2) + ' MB' : x.saved}` : 'n/a');
        t.add({ figure: `${tag}: JSON view: Copy / Download give (the file: ${(expectBytes / 1e6).toFixed(2)} MB)`, react: cd(rcd), ours: cd(ocd), unit: '' });
        results.add({ id: 'sbs-json-40mb', budget: 3, name: `${label}: ours, Raw tab (JSON view of ${mb} MB) → shown: longest task`, value: round(oj.longest), unit: 'ms', limit: 200, cmp: '<', note: `shown after ${Math.round(oj.shown)} ms; scrolling it: longest task ${Math.round(ojScroll.longest)} ms; Copy/Download ${cd(ocd)}; stand-in: ${rj ? `longest ${Math.round(rj.longest)} ms, shown after ${Math.round(rj.shown)} ms; Copy/Download ${cd(rcd)}` : 'n/a'}` });
      }
      if (oEnd.page.errors.length) results.note(`page errors (ours, ${name}): ${[...new Set(oEnd.page.errors)].slice(0, 3).join(' | ')}`);
      await oEnd.context.close();
      if (rEnd) await rEnd.context.close().catch(() => {});
    }
  } finally {
    server.close();
  }
  console.log(`\n  side by side, one run (load average now ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}):\n${t.print().replace(/^/gm, '  ')}`);
}

/** The stand-in folder when it is built, else null. */
export function standinDir(root) {
  const d = process.env.REACT_STANDIN || join(root, 'target/react-standin');
  return existsSync(join(d, 'dist/index.html')) && existsSync(join(d, 'scale/scale-light.pep.json')) && existsSync(join(d, 'scale/scale-100k.pep.json')) ? d : null;
}

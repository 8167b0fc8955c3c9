// Budget 3: the 2,000-message / 20,000-segment envelope, opened through the
// file input: first screen (in the DOM and painted), memory, toggles,
// "Expand all", scrolling through all of it, jumps. Then the window at
// 100,000 segments (`hugeDocuments`). Budget 6 (optional, in the browser):
// the Budget tab on the big envelope and a limit change (re-plan over
// ~2,000 parts + re-render).
import { join } from 'node:path';
import { statSync } from 'node:fs';
import { BASE, DATA, freshPage, median, percentile, round, traceTop, within } from './lib.mjs';

const FIRST = 'big-0000';

/** Page helpers: long-task log, next frame, timed actions. */
export function install() {
  window.__long = [];
  try {
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push({ start: e.startTime, dur: e.duration }); }).observe({ type: 'longtask' });
  } catch { /* no long task API */ }
  // Long animation frames: what a frame spent in script, style and layout.
  window.__loaf = [];
  try {
    new PerformanceObserver((l) => {
      for (const e of l.getEntries()) window.__loaf.push({ start: e.startTime, dur: e.duration, blocking: e.blockingDuration, render: e.renderStart, style: e.styleAndLayoutStart });
    }).observe({ type: 'long-animation-frame' });
  } catch { /* no LoAF API */ }
  /** Style + layout time of the long animation frames that overlap [a, b]. */
  window.__layoutIn = (a, b) => window.__loaf.filter((e) => e.start + e.dur >= a && e.start <= b && e.style > 0).map((e) => e.start + e.dur - e.style);
  window.__nextFrame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r)));
  window.__longIn = (a, b) => window.__long.filter((e) => e.start + e.dur >= a && e.start <= b); // overlapping [a, b]
  window.__heap = () => (performance.memory ? Math.round(performance.memory.usedJSHeapSize / 1e6) : null);
  /**
   * Clicks the Budget tab and waits (≤ 230 s) for its summary or its error, then a frame: when it was clicked, how long it took.
   * The protocol panel is a split module fetched after the first paint: its tab is waited for first (not timed).
   */
  window.__openBudget = async () => {
    const since = performance.now();
    while (!document.querySelector('[data-testid=tab-budget]') && performance.now() - since < 60000) await new Promise((ok) => setTimeout(ok, 20));
    const t = performance.now();
    document.querySelector('[data-testid=tab-budget]').click();
    while (!document.querySelector('[data-testid=budget-summary]') && !document.querySelector('[data-testid=budget-error]')) {
      await new Promise((ok) => setTimeout(ok, 20));
      if (performance.now() - t > 230000) break;
    }
    await window.__nextFrame();
    return { t, shown: performance.now() - t };
  };
  /**
   * Arms a one-shot timer for the next click: starts in a capture listener
   * (before the app's handler), records the first DOM mutation and the end
   * of the next frame; `window.__resP` resolves with `{t, dom, frame}`.
   */
  window.__arm = () => {
    window.__resP = new Promise((resolve) => {
      const h = () => {
        document.removeEventListener('click', h, true);
        const t = performance.now();
        let dom = null;
        const mo = new MutationObserver(() => { if (dom === null) dom = performance.now() - t; });
        mo.observe(document.body, { childList: true, subtree: true, attributes: true, characterData: true });
        requestAnimationFrame(() => setTimeout(() => { mo.disconnect(); resolve({ t, dom, frame: performance.now() - t }); }));
      };
      document.addEventListener('click', h, true);
    });
  };
}

/**
 * A real click (Playwright's mouse, through the browser's input pipeline, so
 * the app's work runs in an input task that the Long Tasks API sees), timed
 * in the page from the click event to the next frame.
 */
async function realClick(page, locator, settle = 60) {
  await page.evaluate(() => window.__arm());
  await locator.click();
  const r = await page.evaluate(() => window.__resP);
  await page.waitForTimeout(settle); // long-task entries arrive late
  return page.evaluate((r) => {
    const lay = window.__layoutIn(r.t, r.t + r.frame);
    return { ...r, long: window.__longIn(r.t, r.t + r.frame).map((e) => e.dur), layout: lay.length ? Math.max(...lay) : 0 };
  }, r);
}

/**
 * Scrolls the left pane down until a segment of `kind` is rendered, then
 * brings it to the middle of the pane (works through the window and through
 * the older batches alike); returns a locator for its first toggle.
 */
async function findKind(page, kind) {
  return reveal(page, `.conversation [data-kind=${kind}] [aria-expanded]`);
}

/**
 * Scrolls the left pane a screen at a time until an element matching `sel`
 * is rendered (the window renders only what is near the viewport), brings it
 * to the middle and returns a locator for it.
 */
export async function reveal(page, sel) {
  const found = await page.evaluate(async (sel) => {
    const sc = document.querySelector('.pane.left');
    for (let i = 0; i < 400; i++) {
      const el = document.querySelector(sel);
      if (el) { el.scrollIntoView({ block: 'center' }); return true; }
      if (sc.scrollTop + sc.clientHeight >= sc.scrollHeight - 1) return false;
      sc.scrollTop += sc.clientHeight * 0.8;
      await window.__nextFrame();
      await window.__nextFrame();
    }
    return false;
  }, sel);
  if (!found) throw new Error(`nothing matches ${sel} in the conversation`);
  await page.waitForTimeout(300);
  return page.locator(sel).first();
}

/** `n` real clicks on `locator`, each timed to the next frame. */
export async function toggles(page, locator, n) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const before = await locator.getAttribute('aria-expanded');
    const r = await realClick(page, locator);
    const after = await locator.getAttribute('aria-expanded');
    out.push({ ...r, changed: before !== after });
  }
  return out;
}

function toggleRow(results, id, name, rs, { note = '', limit = 16 } = {}) {
  const frames = rs.map((r) => r.frame);
  const doms = rs.map((r) => r.dom).filter((x) => x !== null);
  const longs = rs.flatMap((r) => r.long);
  const layout = median(rs.map((r) => r.layout ?? 0));
  const unchanged = rs.filter((r) => !r.changed).length;
  results.add({
    id, budget: 3, name, value: round(median(frames), 1), unit: 'ms', limit: limit ?? undefined, cmp: '<',
    samples: frames.map((x) => round(x, 1)),
    note: `click→DOM change median ${round(median(doms), 1)} ms; style+layout in long frames median ${round(layout, 1)} ms; max ${round(Math.max(...frames), 1)} ms; long tasks ${longs.length}${longs.length ? ` (max ${Math.round(Math.max(...longs))} ms)` : ''}${unchanged ? `; ${unchanged} clicks did NOT flip aria-expanded` : ''}${note ? `; ${note}` : ''}`,
  });
}

/** WebAssembly memory (the app module's linear memory) and JS heap (after a GC), in MB. */
export async function memory(context, page) {
  const cdp = await context.newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage').catch(() => {});
  const heap = await cdp.send('Runtime.getHeapUsage').catch(() => null);
  await cdp.detach();
  const wasm = await page.evaluate(() => (window.__wasm?.memory ? window.__wasm.memory.buffer.byteLength : null));
  return { wasm: wasm === null ? null : round(wasm / 1e6, 1), heap: heap ? round(heap.usedSize / 1e6, 1) : null };
}

/** Opens an envelope through the file input of a fresh page; times the first screen. */
export async function openBig(browser, file, first = FIRST) {
  const { context, page } = await freshPage(browser);
  // The app module's exports (its memory), as Trunk's loader announces them.
  await context.addInitScript(() => addEventListener('TrunkApplicationStarted', (e) => { window.__wasm = e.detail?.wasm; }));
  await page.goto(`${BASE}/`);
  await page.locator('[data-kind]').first().waitFor();
  await page.waitForLoadState('networkidle');
  await page.evaluate(install);
  await page.evaluate((first) => {
    window.__big = {};
    document.addEventListener('change', (e) => {
      if (window.__big.t0 === undefined && e.target.matches?.('[data-testid=open-file]')) window.__big.t0 = performance.now();
    }, true);
    const mo = new MutationObserver(() => {
      if (window.__big.t1 === undefined && document.querySelector(`.conversation [data-message-id="${first}"] [data-kind]`)) {
        window.__big.t1 = performance.now();
        mo.disconnect();
        requestAnimationFrame(() => setTimeout(() => { window.__big.frame = performance.now(); }));
      }
    });
    mo.observe(document.body, { childList: true, subtree: true });
  }, first);
  const wall0 = Date.now();
  await page.getByTestId('open-file').setInputFiles(file);
  await page.waitForFunction(() => window.__big.frame !== undefined, null, { timeout: 240000 });
  const wall = Date.now() - wall0;
  await page.waitForTimeout(100);
  const open = await page.evaluate(() => {
    const b = window.__big;
    const long = window.__longIn(b.t0, b.frame);
    return {
      first: b.t1 - b.t0, frame: b.frame - b.t0, long: long.map((e) => Math.round(e.dur)),
      rendered: document.querySelectorAll('.conversation [data-message-id]').length,
      segs: document.querySelectorAll('.conversation [data-kind]').length,
      heap: window.__heap(),
      notices: [...document.querySelectorAll('[data-testid=notice]')].map((n) => n.textContent.trim().slice(0, 120)),
    };
  });
  return { context, page, open: { ...open, wall } };
}

/**
 * In the page: scrolls the left pane by `step` screens per frame (a fast
 * fling), starting at `from` (0–1 of the scroll range), for at most `frames`
 * frames or to the end. Frame intervals (rAF to rAF: each includes the
 * window's work for that scroll) and the long tasks meanwhile.
 */
export function scrollRun(page, { step = 1, frames = 100000, from = 0, sel = '.pane.left' } = {}) {
  return page.evaluate(async ({ step, frames, from, sel }) => {
    const sc = document.querySelector(sel);
    sc.scrollTop = from * (sc.scrollHeight - sc.clientHeight);
    for (let i = 0; i < 4; i++) await window.__nextFrame();
    const t0 = performance.now();
    const times = [];
    let last = t0;
    for (let i = 0; i < frames; i++) {
      if (sc.scrollTop + sc.clientHeight >= sc.scrollHeight - 1) break;
      sc.scrollTop += sc.clientHeight * step;
      await new Promise((r) => requestAnimationFrame(r));
      const now = performance.now();
      times.push(now - last);
      last = now;
    }
    const total = performance.now() - t0;
    await new Promise((r) => setTimeout(r, 150));
    const long = window.__longIn(t0, t0 + total).map((e) => e.dur);
    return {
      frames: times.length, total, times, long, height: sc.scrollHeight,
      nodes: document.getElementsByTagName('*').length, segs: document.querySelectorAll('.conversation .seg-slot').length,
    };
  }, { step, frames, from, sel });
}

/** In the page: jumps of the scroll position (a scrollbar drag), each timed to the frame after the window settled. */
function jumps(page, at = [0.5, 0.25, 0.75, 1, 0]) {
  return page.evaluate(async (at) => {
    const sc = document.querySelector('.pane.left');
    const out = [];
    for (const f of at) {
      const t = performance.now();
      sc.scrollTop = f * (sc.scrollHeight - sc.clientHeight);
      // The window renders the viewport first, the overscan after the next paint.
      await window.__nextFrame();
      const first = performance.now() - t;
      await window.__nextFrame();
      await window.__nextFrame();
      const settled = performance.now() - t;
      await new Promise((r) => setTimeout(r, 100));
      const long = window.__longIn(t, t + settled).map((e) => e.dur);
      const band = sc.getBoundingClientRect();
      const visible = [...document.querySelectorAll('.conversation .seg-slot')].filter((e) => { const r = e.getBoundingClientRect(); return r.bottom > band.top && r.top < band.bottom; }).length;
      out.push({ at: f, first, settled, long: long.length ? Math.max(...long) : 0, visible });
    }
    return out;
  }, at);
}

function scrollRow(results, id, name, r, mem, { limit } = {}) {
  const sorted = [...r.times].sort((a, b) => a - b);
  const longest = r.long.length ? Math.max(...r.long) : 0;
  results.add({
    id, budget: 3, name, value: round(longest), unit: 'ms', ...(limit ? { limit, cmp: '<' } : {}),
    note: `${r.frames} frames over ${Math.round(r.total)} ms (${(r.height / 1e6).toFixed(2)} M px tall): frame interval median ${round(median(sorted), 1)} ms, p95 ${round(percentile(sorted, 95), 1)} ms, max ${round(sorted[sorted.length - 1] ?? 0, 1)} ms; long tasks ${r.long.length}${r.long.length ? ` (max ${Math.round(longest)} ms)` : ''}; at the end ${r.segs} segments / ${r.nodes} elements in the DOM${mem ? `; WebAssembly memory ${mem.wasm} MB, JS heap ${mem.heap} MB` : ''}`,
    detail: { ...r, times: undefined },
  });
}

function jumpRow(results, id, name, js) {
  results.add({
    id, budget: 3, name, value: round(Math.max(...js.map((j) => j.settled))), unit: 'ms',
    note: js.map((j) => `${Math.round(j.at * 100)}%: first frame ${Math.round(j.first)} ms, settled ${Math.round(j.settled)} ms, longest task ${Math.round(j.long)} ms, ${j.visible} segments visible`).join('; '),
  });
}

function openRow(results, idp, name, firsts, mem, { limit = null, longLimit = null } = {}) {
  const paint = firsts.map((o) => o.frame);
  const f = firsts.map((o) => o.first);
  const o = firsts[firsts.length - 1];
  results.add({
    id: `${idp}-first-paint`, budget: 3, name: `${name}: file set → first segment painted${firsts.length > 1 ? `, median of ${firsts.length}` : ''}`,
    value: round(median(paint)), unit: 'ms', ...(limit ? { limit, cmp: '<' } : {}), samples: paint.map((x) => round(x)),
    note: `first [data-kind] in the DOM ${f.map(Math.round).join('/')} ms; node-side wall ${firsts.map((x) => x.wall).join('/')} ms; long tasks ${firsts.map((x) => x.long.join('+') || '-').join(' / ')} ms; first screen ${o.rendered} messages / ${o.segs} segments${mem ? `; WebAssembly memory ${mem.wasm} MB, JS heap ${mem.heap} MB` : ''}${o.notices.length ? `; notices: ${o.notices.join(' | ')}` : ''}`,
    detail: firsts,
  });
  const longest = firsts.map((x) => (x.long.length ? Math.max(...x.long) : 0));
  results.add({
    id: `${idp}-longest-task`, budget: 3, name: `${name}: longest main-thread task while opening${firsts.length > 1 ? ', median' : ''}`,
    value: median(longest), unit: 'ms', ...(longLimit ? { limit: longLimit, cmp: '<' } : {}), note: `runs ${longest.join('/')}`,
  });
}

export async function bigDocument(results, browser, { replanInBrowser = true, opens = 3 } = {}) {
  const file = join(DATA, 'big.envelope.json');
  const mb = statSync(file).size / 1e6;
  const name = `Big envelope (${mb.toFixed(1)} MB, 2,000 msgs / 20,000 segs)`;

  // ---- first screen: median of `opens` fresh pages; the first one then
  // tries the Budget tab, the last one goes on with toggles ----
  const firsts = [];
  let kept = null;
  for (let i = 0; i < opens; i++) {
    const o = await openBig(browser, file);
    firsts.push(o.open);
    if (i === 0 && replanInBrowser) await budgetInBrowser(results, o.page);
    if (o.page.errors.length) results.note(`page errors with the big envelope: ${[...new Set(o.page.errors)].slice(0, 5).join(' | ')}`);
    if (i === opens - 1) kept = o;
    else await o.context.close();
  }
  const { context, page } = kept;
  const f = firsts.map((o) => o.first);
  results.add({
    id: 'big-first-screen', budget: 3, name: `${name}: file set → first [data-kind] in the DOM, median of ${opens}`,
    value: round(median(f)), unit: 'ms', limit: 1000, cmp: '<', samples: f.map((x) => round(x)),
  });
  await page.waitForTimeout(500); // the window's overscan after the first paint
  const mem0 = await memory(context, page);
  openRow(results, 'big', name, firsts, mem0);

  // ---- what "next frame" costs with nothing to do (a click on plain text) ----
  const idle = await toggles(page, page.locator('.conv-tools > span.muted').first(), 20);
  toggleRow(results, 'big-toggle-baseline', 'Baseline: click on plain text → next frame (the wait for a frame itself), median of 20', idle, { limit: null });

  // ---- one panel toggle ----
  const panel = await toggles(page, page.locator('.conversation .panel-head').first(), 20);
  toggleRow(results, 'big-toggle-panel', 'Big envelope: toggle first .panel-head → next frame, median of 20', panel);
  const result = await toggles(page, await findKind(page, 'tool_call_result'), 20);
  toggleRow(results, 'big-toggle-result', 'Big envelope: toggle the first tool_call_result (scrolled to) → next frame, median of 20', result);

  // ---- Expand all / Collapse all (the window re-estimates what it does not show) ----
  const expandBtn = page.locator('.conv-tools button', { hasText: 'Expand all' });
  const collapseBtn = page.locator('.conv-tools button', { hasText: 'Collapse all' });
  const expandAllRow = async (id, label) => {
    const e = await within(240000, label, realClick(page, expandBtn, 300));
    const open = await page.locator('.conversation [aria-expanded=true]').count();
    const rendered = await page.locator('.conversation .seg-slot').count();
    const c = await within(240000, `${label} (collapse)`, realClick(page, collapseBtn, 300));
    results.add({
      id, budget: 3, name: label, value: round(e.frame), unit: 'ms',
      note: `${rendered} segments rendered, ${open} toggles open after; click→DOM change ${round(e.dom)} ms; long tasks ${e.long.map(Math.round).join('+') || 'none'} ms; style+layout of the frame ${Math.round(e.layout)} ms; "Collapse all" ${Math.round(c.frame)} ms (long tasks ${c.long.map(Math.round).join('+') || 'none'})`,
    });
  };
  await expandAllRow('big-expand-all', 'Big envelope: "Expand all" → next frame');

  // ---- scrolling through the whole document, one screen per frame ----
  const run = await within(600000, 'scrolling through', scrollRun(page, { step: 1 }));
  const mem1 = await memory(context, page);
  scrollRow(results, 'big-scroll-all', 'Big envelope: scroll through all of it, one screen per frame — longest task', run, mem1, { limit: 50 });

  // ---- toggles at the end, jumps (scrollbar drags) ----
  const lastResult = await toggles(page, page.locator('.conversation .seg-slot [aria-expanded]').last(), 10);
  toggleRow(results, 'big-toggle-last-scrolled', 'Big envelope, scrolled to the end: toggle the last rendered toggle, median of 10', lastResult);
  jumpRow(results, 'big-jumps', 'Big envelope: scroll position jumps (scrollbar drag) → window settled, worst', await jumps(page));
  await expandAllRow('big-expand-all-scrolled', 'Big envelope, after the jumps: "Expand all" → next frame');

  // ---- where a toggle's frame goes (Chromium trace) ----
  const fmtTop = (t) => `${t.wall} ms wall: ${t.top.map(([k, v]) => `${k} ${v}`).join(', ')}`;
  const traceToggle = await traceTop(context, page, () => realClick(page, page.locator('.conversation .panel-head, .conversation [data-kind=tool_call_result] button').first(), 0), 10);
  const rendering = ['Commit', 'HitTest', 'Paint', 'Layout', 'PrePaint', 'UpdateLayoutTree', 'Layerize'];
  const busy = traceToggle.top.filter(([k]) => rendering.includes(k)).reduce((n, [, v]) => n + v, 0);
  results.add({ id: 'big-trace-toggle', budget: 3, name: 'Big envelope: browser rendering work for one toggle (traced: commit, hit test, paint, layout)', value: round(busy), unit: 'ms', note: `toggle ${fmtTop(traceToggle)}`, detail: { toggle: traceToggle } });

  if (page.errors.length) results.note(`page errors with the big envelope: ${[...new Set(page.errors)].slice(0, 5).join(' | ')}`);
  await context.close();
}

/**
 * The window at 100,000 segments: 10,000 messages (~37 MB or more), and one
 * message of 100,000 segments. First screen, memory, a scroll of 300 screens,
 * jumps, toggles at the end.
 */
export async function hugeDocuments(results, browser) {
  const cases = [
    ['big100k.envelope.json', 'big-0000', 'huge', '10,000 msgs / 100,000 segs', { limit: 1500 }],
    ['one-message-100k.envelope.json', 'one', 'one', 'one message of 100,000 segs', { longLimit: 1000 }],
  ];
  for (const [name, first, idp, what, limits] of cases) {
    const file = join(DATA, name);
    const label = `${what} (${(statSync(file).size / 1e6).toFixed(1)} MB)`;
    const { context, page, open } = await openBig(browser, file, first);
    await page.waitForTimeout(500);
    const mem = await memory(context, page);
    openRow(results, idp, label, [open], mem, limits);
    const run = await within(600000, `${label}: scrolling`, scrollRun(page, { step: 1, frames: 300 }));
    scrollRow(results, `${idp}-scroll`, `${label}: scroll 300 screens, one per frame — longest task`, run, await memory(context, page));
    jumpRow(results, `${idp}-jumps`, `${label}: scroll position jumps → window settled, worst`, await jumps(page));
    await page.evaluate(() => { const p = document.querySelector('.pane.left'); p.scrollTop = p.scrollHeight; });
    await page.waitForTimeout(300);
    const t = await toggles(page, page.locator('.conversation .seg-slot [aria-expanded]').last(), 10);
    toggleRow(results, `${idp}-toggle-end`, `${label}, at the end: toggle the last rendered toggle, median of 10`, t);
    if (page.errors.length) results.note(`page errors with ${name}: ${[...new Set(page.errors)].slice(0, 5).join(' | ')}`);
    await context.close();
  }
}

/** Budget 6 in the browser (optional): the Budget tab on the freshly opened big envelope, then limit changes. */
async function budgetInBrowser(results, page) {
  try {
    const budget = await within(240000, 'Budget tab on the big envelope', page.evaluate(async () => {
      const { t, shown: counts } = await window.__openBudget();
      await new Promise((ok) => setTimeout(ok, 100));
      const long = window.__longIn(t, t + counts).map((e) => e.dur);
      const says = document.querySelector('.budget-body p.muted')?.textContent?.trim();
      const error = document.querySelector('[data-testid=budget-error]')?.textContent?.trim();
      const total = Number(((says || '').match(/^([\d,]+) tokens/) || [0, '0'])[1].replace(/,/g, ''));
      return { counts, says, error, long, total, nodes: document.getElementsByTagName('*').length };
    }));
    results.add({ id: 'big-budget-tab', budget: 6, name: 'Big envelope: Budget tab click → counts shown (first use of the worker)', value: round(budget.counts), unit: 'ms', note: `app says: "${budget.says}"${budget.error ? `; shows the error "${budget.error.slice(0, 120)}"` : ''}; long tasks ${budget.long.length} (longest ${Math.round(Math.max(0, ...budget.long))} ms, total ${Math.round(budget.long.reduce((a, b) => a + b, 0))} ms); ${budget.nodes} elements after` });

    /** `n` limit changes (typed value + change event), each timed to the next frame. */
    const changes = (n) => within(120000, 'limit changes', page.evaluate(async ([n, total]) => {
      const input = document.querySelector('[data-testid=limit-input]');
      const kept = () => document.querySelector('.budget-summary [data-testid=kept-tokens]')?.textContent || document.querySelector('[data-testid=budget-error]')?.textContent?.slice(0, 60);
      const before = kept();
      const times = [], layouts = [], settles = [];
      for (let i = 0; i < n; i++) {
        const limit = Math.max(1, Math.round(total * (0.5 + 0.45 * ((i * 7) % 20) / 20)));
        const s = performance.now();
        input.value = String(limit);
        input.dispatchEvent(new Event('change', { bubbles: true }));
        await window.__nextFrame();
        const dt = performance.now() - s;
        times.push(dt);
        await new Promise((ok) => setTimeout(ok, 400)); // let the debounced views (150 ms) settle
        const lay = window.__layoutIn(s, s + dt);
        layouts.push(lay.length ? Math.max(...lay) : 0);
        const settle = window.__longIn(s + dt, s + dt + 400).map((e) => e.dur);
        settles.push(settle.length ? Math.max(...settle) : 0);
      }
      return { times, layouts, settles, before, after: kept() };
    }, [n, budget.total]));
    const row = (id, name, r) => results.add({
      id, budget: 6, name, value: round(median(r.times), 1), unit: 'ms',
      note: `p90 ${round(percentile(r.times, 90), 1)} ms, max ${round(Math.max(...r.times), 1)} ms; limits 50–95% of ${budget.total} tokens; kept: ${r.before} → ${r.after}; all ${r.times.map((x) => Math.round(x)).join('/')}; style+layout per change median ${Math.round(median(r.layouts))} ms; then the debounced views: longest task median ${Math.round(median(r.settles))} ms`,
    });
    row('big-replan-browser', 'Big envelope, in the browser: limit change → next frame (re-plan ~2,000 parts + re-render), median of 10', await changes(10));
    // The same with the "Kept prompt" view on Parts instead of Request: how
    // much of the above is the truncated request re-exported and re-shown.
    await page.locator('.inspect-bar [role=tab]', { hasText: 'Parts' }).click();
    await page.waitForTimeout(500);
    row('big-replan-browser-parts-view', 'Same, with the "Kept prompt" view switched from Request to Parts, median of 10', await changes(10));
  } catch (e) {
    results.error(6, 'Big envelope: Budget tab / re-plan in the browser', e);
  }
}

// Budget 2: navigation start to the first `[data-kind]` element, for `/`
// (demo A) and `/demo/f`, median of 9 loads each in a fresh context (no HTTP
// cache, no storage; the browser process itself stays up).
// Budget 7b: opening the Budget tab on `/demo/f` to the first counts.
import { BASE, freshPage, median, round, state } from './lib.mjs';

/** Records (in performance.now() time) when the first `[data-kind]` appears, and the frame after. */
function watchFirstKind() {
  window.__long = [];
  try {
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push([Math.round(e.startTime), Math.round(e.duration)]); }).observe({ type: 'longtask', buffered: true });
  } catch { /* no long task API */ }
  addEventListener('TrunkApplicationStarted', () => { window.__started = performance.now(); });
  const obs = new MutationObserver(() => {
    if (window.__firstKind === undefined && document.querySelector('[data-kind]')) {
      window.__firstKind = performance.now();
      obs.disconnect();
      requestAnimationFrame(() => { window.__firstKindFrame = performance.now(); });
    }
  });
  obs.observe(document, { childList: true, subtree: true });
}

async function oneLoad(browser, path) {
  const { context, page } = await freshPage(browser, { route: false });
  await context.addInitScript(watchFirstKind);
  await page.goto(`${BASE}${path}`);
  await page.waitForFunction(() => window.__firstKindFrame !== undefined, null, { timeout: 30000 });
  const t = await page.evaluate(() => {
    const res = performance.getEntriesByType('resource');
    const end = (re) => res.filter((r) => re.test(r.name)).map((r) => r.responseEnd)[0];
    const start = (re) => res.filter((r) => re.test(r.name)).map((r) => r.startTime)[0];
    const nav = performance.getEntriesByType('navigation')[0];
    return {
      firstKind: window.__firstKind,
      frame: window.__firstKindFrame,
      html: nav?.responseEnd,
      dcl: nav?.domContentLoadedEventEnd,
      js: end(/pep-app-[0-9a-f]+\.js$/),
      wasm: end(/_bg\.wasm$/),
      started: window.__started,
      demoStart: start(/\/demos\/[a-f]\.json$/),
      demo: end(/\/demos\/[a-f]\.json$/),
      long: window.__long.filter(([s]) => s <= window.__firstKind),
      fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime,
    };
  });
  const errors = page.errors;
  await context.close();
  return { ...t, errors };
}

export async function firstRender(results, browser, runs = 9) {
  // One load not counted: the browser's own first-use costs.
  await oneLoad(browser, '/');
  for (const [path, label] of [['/', 'demo A'], ['/demo/f', 'demo F']]) {
    const loads = [];
    for (let i = 0; i < runs; i++) loads.push(await oneLoad(browser, path));
    const v = loads.map((l) => l.firstKind);
    const m = (k) => round(median(loads.map((l) => l[k]).filter((x) => x !== undefined)), 0);
    results.add({
      id: `first-render-${label.replace(' ', '-').toLowerCase()}`, budget: 2,
      name: `Navigation → first [data-kind], ${path} (${label}), median of ${runs}`, value: round(median(v)), unit: 'ms', limit: 300,
      samples: v.map((x) => round(x)),
      note: `runs ${v.map((x) => Math.round(x)).join('/')}; medians (ms after navigation start): html ${m('html')}, js ${m('js')}, wasm ${m('wasm')} (responseEnd), app started ${m('started')}, demo json fetch ${m('demoStart')}–${m('demo')}, first [data-kind] ${m('firstKind')}, next frame ${m('frame')}, FCP ${m('fcp')}; long tasks before first [data-kind] (start+duration): ${loads.map((l) => l.long.map(([s, d]) => `${s}+${d}`).join(',') || '-').join(' / ')}`,
      detail: loads,
    });
    const errs = loads.flatMap((l) => l.errors);
    if (errs.length) results.note(`page errors while loading ${path}: ${[...new Set(errs)].join(' | ')}`);
  }
}

/** Budget 7b: click the Budget tab on /demo/f, cold cache, until `[data-testid=budget-summary]` is visible. */
export async function budgetTab(results, browser, runs = 3) {
  const samples = [];
  const details = [];
  for (let i = 0; i < runs; i++) {
    const { context, page } = await freshPage(browser);
    const workerRequests = [];
    page.on('request', (r) => { if (/token-worker/.test(r.url())) workerRequests.push(r.url().replace(BASE, '')); });
    await page.goto(`${BASE}/demo/f`);
    await page.locator('[data-kind]').first().waitFor();
    await page.waitForLoadState('networkidle');
    const before = workerRequests.length;
    const logAt = state.server ? state.server.log.length : 0;
    const handle = await page.evaluateHandle(() => new Promise((resolve) => {
      const visible = () => {
        const el = document.querySelector('[data-testid=budget-summary]');
        if (!el) return false;
        const r = el.getBoundingClientRect();
        return r.width > 0 && r.height > 0;
      };
      const t0 = performance.now();
      const obs = new MutationObserver(() => {
        if (visible()) {
          obs.disconnect();
          const t1 = performance.now();
          const res = performance.getEntriesByType('resource').filter((r) => /token-worker/.test(r.name) && r.startTime >= t0);
          requestAnimationFrame(() => resolve({ t: t1 - t0, frame: performance.now() - t0, fetched: res.map((r) => ({ name: r.name.replace(location.origin, ''), start: Math.round(r.startTime - t0), end: Math.round(r.responseEnd - t0), size: r.encodedBodySize })) }));
        }
      });
      obs.observe(document.body, { childList: true, subtree: true, attributes: true });
      document.querySelector('[data-testid=tab-budget]').click();
    }));
    const r = await handle.jsonValue();
    const stats = await page.locator('.budget-body p.muted').first().textContent().catch(() => '');
    r.requestsBefore = before;
    r.served = state.server ? state.server.log.slice(logAt) : [];
    r.appSays = stats.trim();
    details.push(r);
    samples.push(r.t);
    if (page.errors.length) results.note(`page errors on the Budget tab: ${page.errors.join(' | ')}`);
    await context.close();
  }
  const last = details[details.length - 1];
  results.add({
    id: 'budget-tab-first-counts', budget: 7, name: `Budget tab click → first counts visible, /demo/f, cold, median of ${runs}`, value: round(median(samples)), unit: 'ms', limit: 1500,
    samples: samples.map((x) => round(x)),
    note: `runs ${samples.map((x) => Math.round(x)).join('/')}; fetched after the click: ${last.served.join(' ')}; app says: "${last.appSays}"; worker files before the click: ${details.map((d) => d.requestsBefore).join('/')}`,
    detail: details,
  });
}

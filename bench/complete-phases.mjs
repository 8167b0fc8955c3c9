// Where the complete first screen's time goes (bench/SIZE.md, session 18):
// medians over N fresh loads of one address, on the page's own clock — the CSS,
// the glue and the main module received (resource timing), the first segment
// in the DOM, the next animation frame, the protocol panel's JSON in the DOM,
// TrunkApplicationStarted, and the complete first screen (complete-screen.mjs's
// page clock: the end of the frame that paints it).
// No tracing (a trace slows the page). Usage:
//   node bench/complete-phases.mjs [dist] [/ | /demo/f] [N]
import { launch, median } from './lib.mjs';
import { startServer } from './serve.mjs';
import { completePaintLoad } from './complete-screen.mjs';
const srv = await startServer(process.argv[2] || 'dist', 0, {});
const base = `http://127.0.0.1:${srv.address().port}`;
const browser = await launch();
// In the page, before its own scripts: the marks. Nothing polls the screen
// (completePaintLoad's clock reports the complete one), so no script of the
// harness's runs in the page before it is painted.
function probe() {
  window.__t = {};
  addEventListener('TrunkApplicationStarted', () => { window.__t.started = performance.now(); });
  document.addEventListener('DOMContentLoaded', () => { window.__t.dcl = performance.now(); });
  const obs = new MutationObserver(() => {
    if (!window.__t.kind && document.querySelector('[data-kind]')) { window.__t.kind = performance.now(); }
    if (!window.__t.panel && document.querySelector('[data-testid=protocol-json]')) { window.__t.panel = performance.now(); obs.disconnect(); }
  });
  obs.observe(document, { childList: true, subtree: true });
  requestAnimationFrame(function f() { if (!window.__t.fp && window.__t.kind) { window.__t.fp = performance.now(); } else requestAnimationFrame(f); });
}
function collect() {
  const r = Object.fromEntries(performance.getEntriesByType('resource').map((e) => [e.name.split('/').pop().replace(/-[0-9a-f]{16}/, ''), Math.round(e.responseEnd)]));
  return { ...window.__t, wasmEnd: r['pep-app_bg.wasm'], jsEnd: r['pep-app.js'], cssEnd: r[Object.keys(r).find((k) => k.endsWith('.css'))] };
}
const rows = [];
for (let i = 0; i < Number(process.argv[4] || 9); i++) {
  const { t, collected } = await completePaintLoad(browser, base + (process.argv[3] || '/'), 'ours', { probe, collect });
  rows.push({ ...collected, complete: t });
}
const keys = ['cssEnd', 'jsEnd', 'wasmEnd', 'dcl', 'kind', 'fp', 'panel', 'complete', 'started'];
console.log(keys.map((k) => `${k} ${median(rows.map((r) => r[k] ?? NaN)).toFixed(0)}`).join(' | '));
await browser.close(); srv.close();

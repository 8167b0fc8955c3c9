// EXPERIMENT (session 6, not part of the product): a pre-rendered first
// screen. Opens `/` (demo A) and `/demo/f` of a release dist at 1280×800,
// snapshots what the app painted in its first frame with a segment (the
// moment bench/first-paint.mjs and the side-by-side anchor call "painted"),
// and writes a COPY of the dist whose index.html (and 404.html) carries both
// snapshots in <template>s plus a small inline script that, while the HTML is
// parsed, shows the one for the address (only `/` and `/demo/a`–`/demo/f`
// with a snapshot, and only without a fragment) as an inert overlay. When the
// app has mounted with a segment of its own, the overlay is removed in the
// same task (a MutationObserver callback: the microtask checkpoint after the
// mount, before any rendering). The CSP meta is recomputed for the new inline
// script (scripts/postbuild.mjs's inlineScriptHashes).
//
// One index.html serves every address on the hosts this app targets (the SPA
// fallback of tests/e2e/serve.mjs, bench/serve.mjs, the anchor's Python
// server, GitHub Pages' 404.html), so both snapshots travel in it.
//
//   node bench/prerender-probe.mjs [--early-compile] [--no-snapshot] [dist] [out]
//        (defaults: dist, target/dist-prerender)
// --early-compile: also start the app module's streaming compilation from a
// classic script at the end of <head> (matching the preload, so one
// download), and hand the compiled module to Trunk's loader: the compile then
// runs while the static copy is painted, not after it. --no-snapshot: only
// that (a control).
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { cspDirectives, inlineScriptHashes } from '../scripts/postbuild.mjs';
import { BASE, freshPage, launch, root, useServer } from './lib.mjs';
import { startServer } from './serve.mjs';

const args = process.argv.slice(2);
const flag = (f) => (args.includes(f) ? (args.splice(args.indexOf(f), 1), true) : false);
const EARLY = flag('--early-compile');
const SNAP = !flag('--no-snapshot');
const dist = resolve(args[0] || join(root, 'dist'));
const out = resolve(args[1] || join(root, 'target/dist-prerender'));
const ROUTES = [['a', '/'], ['f', '/demo/f']];

/** The app's markup at its first painted frame with a segment, on `path`. */
async function snapshot(browser, base, path) {
  const { context, page } = await freshPage(browser, { viewport: { width: 1280, height: 800 } });
  await context.addInitScript(() => {
    const tick = () => {
      if (!document.querySelector('[data-kind]')) return requestAnimationFrame(tick);
      // The frame's paint, then the snapshot: before the work the app defers
      // with after_next_paint (it resolves one task after this timer).
      setTimeout(() => {
        window.__snap = [...document.body.children].filter((el) => el.matches('.skip-link, .app')).map((el) => el.outerHTML).join('');
      }, 0);
    };
    requestAnimationFrame(tick);
  });
  await page.goto(base + path);
  await page.waitForFunction(() => window.__snap !== undefined, null, { timeout: 60000 });
  const html = await page.evaluate(() => window.__snap);
  if (page.errors.length) throw new Error(`${path}: ${page.errors.join('; ')}`);
  await context.close();
  return clean(html);
}

/**
 * No ids (the live app's elements must be the only ones `getElementById`
 * finds while both exist), no autofocus, no `data-testid` (tests must find
 * the live app, not the copy), no Leptos's empty `<!---->` markers; the
 * texts stay as serialized (escaped) by the browser.
 */
function clean(html) {
  return html
    .replace(/\s(?:id|data-testid)="[^"]*"/g, '')
    .replace(/\sautofocus(="[^"]*")?/g, '')
    .replaceAll('<!---->', '');
}

// Chooses the snapshot for the address and removes it once the live app shows
// a segment (or 3 s after the app mounted without one: a load error).
const SWAP = `(function () {
  var d = document, base = d.querySelector('base[href]') ? new URL(d.baseURI).pathname : '/';
  var path = location.pathname;
  if (path.indexOf(base) !== 0 || location.hash) return;
  var m = path.slice(base.length - 1).match(/^\\/(?:demo\\/([a-f])\\/?)?$/);
  var t = m && d.getElementById('pep-pre-' + (m[1] || 'a'));
  if (!t) return;
  var prefs = {};
  try { prefs = JSON.parse(localStorage.getItem('pep/v1/prefs')) || {}; } catch (e) {}
  // "Always load remote media": the live app shows no consent notice and
  // loads the media; the copy (taken without the preference) would jump.
  if (prefs.remote_media && t.content.querySelector('.remote-media')) return;
  if (prefs.theme === 'light' || prefs.theme === 'dark') d.documentElement.setAttribute('data-theme', prefs.theme);
  var w = d.createElement('div');
  w.id = 'pep-prerender';
  w.inert = true;
  w.style.cssText = 'position:fixed;inset:0;z-index:2147483647;overflow:hidden;background:var(--bg)';
  w.appendChild(t.content.cloneNode(true));
  var split = +prefs.split, s = w.querySelector('[style*="--split"]');
  if (s && split >= 20 && split <= 80) s.style.setProperty('--split', split + '%');
  d.body.appendChild(w);
  var hold = 0;
  var gone = function () {
    obs.disconnect();
    clearTimeout(hold);
    if (w.parentNode) { w.remove(); performance.mark('pep-prerender-gone'); }
  };
  var obs = new MutationObserver(function () {
    for (var c = d.body.lastElementChild; c; c = c.previousElementSibling) {
      if (c === w || !c.classList.contains('app')) continue;
      if (c.querySelector('[data-kind]')) return gone();
      if (!hold) { hold = setTimeout(gone, 3000); obs.observe(c, { childList: true, subtree: true }); }
      return;
    }
  });
  obs.observe(d.body, { childList: true });
})();`;

// The same request as Trunk's loader makes (a plain fetch: Chromium ignores
// the preload's integrity, and a fetch with one does not match the preload),
// so the preloaded response is used; on any failure the loader gets a plain
// fetch (a Response), as without this script.
const EARLY_COMPILE = `(function () {
  var l = document.querySelector('link[rel=preload][href$="_bg.wasm"]');
  if (!l || !WebAssembly.compileStreaming) return;
  window.__pepWasm = WebAssembly.compileStreaming(fetch(l.href)).catch(function () { return fetch(l.href); });
})();`;

const server = await startServer(dist, 0, {});
useServer(server);
const base = BASE;
const browser = await launch();
const snaps = {};
if (SNAP) for (const [letter, path] of ROUTES) snaps[letter] = await snapshot(browser, base, path);
await browser.close();
server.close();

rmSync(out, { recursive: true, force: true });
cpSync(dist, out, { recursive: true });
let html = readFileSync(join(dist, 'index.html'), 'utf8').replace(/\s*<meta http-equiv="Content-Security-Policy"[^>]*>/, '');
const templates = ROUTES.map(([l]) => `<template id="pep-pre-${l}">${snaps[l]}</template>`).join('\n  ');
const marker = '<body>';
if (!html.includes(marker)) throw new Error('index.html: no <body>');
if (SNAP) html = html.replace(marker, `${marker}\n  ${templates}\n  <script>${SWAP}</script>`);
if (EARLY) {
  const loader = /module_or_path: ('\/[^']+_bg\.wasm')/;
  if (!loader.test(html)) throw new Error("index.html: Trunk's loader call is not as expected");
  html = html.replace(loader, 'module_or_path: window.__pepWasm || $1');
  html = html.replace('</head>', `<script>${EARLY_COMPILE}</script>\n</head>`);
}
const csp = cspDirectives(inlineScriptHashes(html)).join('; ');
html = html.replace(/(<meta charset="utf-8" \/>)/i, `$1\n  <meta http-equiv="Content-Security-Policy" content="${csp}" />`);
for (const name of ['index.html', '404.html']) {
  writeFileSync(join(out, name), html);
  writeFileSync(join(out, `${name}.gz`), gzipSync(html, { level: 9 }));
  writeFileSync(join(out, `${name}.br`), brotliCompressSync(html));
}
const before = readFileSync(join(dist, 'index.html'));
console.log(`${out}: index.html ${before.length} → ${Buffer.byteLength(html)} bytes, gzip -9 ${gzipSync(before, { level: 9 }).length} → ${gzipSync(html, { level: 9 }).length}`);
if (SNAP) for (const [l, p] of ROUTES) console.log(`  ${p}: snapshot ${snaps[l].length} bytes, ${(snaps[l].match(/data-kind=/g) || []).length} segments`);

// Trunk's post_build hook (Trunk.toml): finishes the static site in Trunk's
// staging directory, after every asset is written and before it becomes dist/.
// Issue 13; decisions in docs/DECISIONS.md ("Shipping").
//
//  1. Content-Security-Policy: a <meta http-equiv> with the SHA-256 of every
//     inline script that is left (ours and Trunk's loader), so no other inline
//     script can run. The same policy, minus what only a header can say, is in
//     the README's server recipes (`node scripts/postbuild.mjs --print-csp`).
//  2. Release builds: the service worker (public/sw.js with this build's file
//     list and digests in front), and a <meta name="pep-sw"> telling the app to
//     register it. Debug builds (trunk serve) get neither: no stale caches while
//     developing.
//  3. 404.html: a copy of index.html, for hosts without rewrites (GitHub Pages).
//  0. Release builds: the app's module split at its split points
//     (scripts/split.mjs: crates/split-step, wasm-bindgen, wasm-opt, SRI), and
//     the stylesheet minified (scripts/minify.mjs; its SRI digest rewritten);
//     beside the split, the tokenizer worker's module through wasm-opt -O1
//     (optimizeWorker, D188). Both are taken from target/ when an earlier
//     build made them of the same inputs (D190).
//  4. Every text and wasm file also as .gz (gzip -9) and .br (brotli, quality
//     11), written with Node's zlib (its brotli and gzip are the reference
//     implementations), for servers that send precompressed files; not when
//     PEP_NO_PRECOMPRESS=1 (scripts/serve.sh: Trunk's server never sends them);
//     a file with the same bytes as in the last build takes that build's (D190).
//
// Usage (Trunk runs it): node scripts/postbuild.mjs
//        node scripts/postbuild.mjs --print-csp   (the header form, for docs and tests)
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { availableParallelism } from 'node:os';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { minifyCss } from './minify.mjs';
import { eachAtMost, runAsync, splitApp, sri, targetDirOf, tool } from './split.mjs';

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The policy's directives; `hashes` are the inline scripts' 'sha256-…' sources. */
export function cspDirectives(hashes, { header = false } = {}) {
  const d = [
    "default-src 'self'",
    `script-src 'self' 'wasm-unsafe-eval'${hashes.map((h) => ` '${h}'`).join('')}`,
    // Stylesheets and <style> elements: ours only. Style attributes are allowed:
    // the app sets a few (the window's spacers, bar widths, the split).
    "style-src 'self'",
    "style-src-attr 'unsafe-inline'",
    // Remote media loads only after the user's consent (the app never sets a
    // remote src before it); data: images are documents' inline figures.
    "img-src 'self' data: blob: https: http:",
    "media-src 'self' data: blob: https: http:",
    "connect-src 'self'",
    "worker-src 'self'",
    "manifest-src 'self'",
    "object-src 'none'",
    // 'self', not 'none': the app's one <base href> (its public URL) must apply.
    "base-uri 'self'",
    "form-action 'none'",
  ];
  if (header) d.push("frame-ancestors 'none'");
  return d;
}

/** The inline scripts of an HTML text (no src attribute), as CSP hash sources. */
export function inlineScriptHashes(html) {
  const out = [];
  for (const m of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)) {
    if (/\bsrc\s*=/.test(m[1])) continue;
    out.push(`sha256-${createHash('sha256').update(m[2], 'utf8').digest('base64')}`);
  }
  return out;
}

const TEXT = /\.(?:html|js|mjs|css|wasm|json|svg|webmanifest|md|txt|j2|yaml)$/;

function walk(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
}

const sha256 = (buf) => createHash('sha256').update(buf).digest('hex');

/** Files cached on first use, not on install: the tokenizer worker. */
const isLazy = (rel) => /^token-worker/.test(rel);

// The app module's compilation, started from the end of <head> (after the
// preload links Trunk writes there), by a classic script that runs as soon as
// the parser reaches it: the module then compiles while the page's other
// scripts load, not after Trunk's module script has run. Trunk's loader gets
// the compiled module (wasm-bindgen's `init` accepts a promise of one); on any
// failure, a plain fetch of the same file, as without this script. The fetch
// is the request Trunk's loader made (same URL, mode and credentials), so the
// preloaded response serves it: one download. Issue 11, DECISIONS ("The app
// module compiled from <head>").
const EARLY_COMPILE = `<script>
    (function () {
      var l = document.querySelector('link[rel=preload][href$="_bg.wasm"]');
      if (!l || !WebAssembly.compileStreaming) return;
      window.__pepWasm = WebAssembly.compileStreaming(fetch(l.href)).catch(function () { return fetch(l.href); });
    })();
  </script>`;

/** `html` with the early compile in <head> and Trunk's loader taking its module. */
export function compileEarly(html) {
  const loader = /module_or_path: ('[^']+_bg\.wasm')/;
  if (!loader.test(html) || !/<link rel="preload" href="[^"]+_bg\.wasm"/.test(html)) {
    throw new Error("postbuild: Trunk's loader or the wasm preload is not as expected (early compile)");
  }
  return html.replace(loader, 'module_or_path: window.__pepWasm || $1').replace('</head>', `  ${EARLY_COMPILE}\n</head>`);
}

/**
 * `html` with Trunk's loader starting the app in a task after the load event
 * instead of awaiting it at the module's top level (D184). Awaited there, the
 * start-up (main(), the first screen's views) held DOMContentLoaded and the
 * load event until it was done; after load it starts as soon as what it needs
 * is there (the load event waits for the same stylesheet, glue and preloaded
 * module), and the page's load event no longer waits for the app.
 */
export function startAfterLoad(html) {
  const loader = /const wasm = await init\((\{[^;]*\})\);([\s\S]*?)(<\/script>)/;
  const m = html.match(loader);
  if (!m || !/dispatchEvent\(new CustomEvent\("TrunkApplicationStarted"/.test(m[2])) {
    throw new Error("postbuild: Trunk's loader is not as expected (start after load)");
  }
  const start = `const start = () => init(${m[1]}).then((wasm) => {${m[2]}});\n`
    + "if (document.readyState === 'complete') setTimeout(start); else addEventListener('load', () => setTimeout(start), { once: true });\n";
  return html.replace(loader, `${start}${m[3]}`);
}

/** Minifies each stylesheet index.html links (Trunk's hashed `main-….css`) and rewrites its SRI digest. */
export function minifyStylesheets(dir, html) {
  let seen = 0;
  const out = html.replace(/<link rel="stylesheet" href="([^"]*?)([^"/]+\.css)" integrity="[^"]*"\s*\/?>/g, (tag, prefix, file) => {
    const p = join(dir, file);
    const css = minifyCss(root, readFileSync(p, 'utf8'), file);
    writeFileSync(p, css);
    seen += 1;
    return tag.replace(/integrity="[^"]*"/, `integrity="${sri(Buffer.from(css, 'utf8'))}"`);
  });
  if (seen === 0) throw new Error('postbuild: index.html links no stylesheet with an integrity digest (minify)');
  return out;
}

/** The worker's `wasm-opt` passes (D188). */
const WORKER_OPT = ['-O1'];

/**
 * The tokenizer worker's module through `wasm-opt -O1`, in place in the
 * staging directory. Its Rust is throughput-tuned (the `release-worker`
 * profile); -O3 here took 2.5× as long for the same tokenizer throughput and a
 * larger gzip (D188). Trunk would run wasm-opt before this hook, on one
 * core while the other waits; here it runs beside the app's split
 * (index.html: the worker's `data-wasm-opt="0"`; D178). The worker's files
 * have no digest in their names: nothing else changes.
 */
export async function optimizeWorker(dir) {
  const wasm = join(dir, 'token-worker_bg.wasm');
  if (!existsSync(wasm)) throw new Error(`postbuild: no tokenizer worker module in ${dir}`);
  // The output of an earlier build of the same module with the same wasm-opt
  // is taken as it is (D190): target/worker-opt/<digest of both>.wasm.
  const wasmOpt = tool(root, 'wasm-opt');
  const key = createHash('sha256').update(await runAsync(wasmOpt, ['--version'])).update(`\0${WORKER_OPT.join(' ')}\0`).update(readFileSync(wasm)).digest('hex').slice(0, 32);
  const cacheDir = join(targetDirOf(root), 'worker-opt');
  const cached = join(cacheDir, `${key}.wasm`);
  if (existsSync(cached)) {
    copyFileSync(cached, wasm);
    console.log(`postbuild: the worker's module as an earlier build optimized it (${cached})`);
    return;
  }
  await runAsync(wasmOpt, [...WORKER_OPT, wasm, '-o', wasm]);
  mkdirSync(cacheDir, { recursive: true });
  for (const old of readdirSync(cacheDir)) rmSync(join(cacheDir, old), { force: true });
  putFile(cached, readFileSync(wasm));
}

/** Writes a cache entry under a temporary name and renames it into place: an interrupted build leaves no half entry. */
function putFile(path, body) {
  writeFileSync(`${path}.tmp`, body);
  renameSync(`${path}.tmp`, path);
}

async function finish(dir, release) {
  const indexPath = join(dir, 'index.html');
  let html = readFileSync(indexPath, 'utf8');
  if (release) {
    html = minifyStylesheets(dir, html);
    html = html.replace('</head>', '  <meta name="pep-sw" content="sw.js" />\n</head>');
    html = startAfterLoad(compileEarly(html));
  }
  const csp = cspDirectives(inlineScriptHashes(html)).join('; ');
  if (!/http-equiv="Content-Security-Policy"/.test(html)) {
    html = html.replace(/(<meta charset="utf-8" \/>)/i, `$1\n  <meta http-equiv="Content-Security-Policy" content="${csp}" />`);
  }
  writeFileSync(indexPath, html);
  writeFileSync(join(dir, '404.html'), html);

  if (release) {
    const files = walk(dir).map((p) => relative(dir, p).split('\\').join('/')).filter((r) => !/\.(?:gz|br)$/.test(r) && r !== 'sw.js' && r !== '404.html').sort();
    const version = createHash('sha256');
    for (const r of files) version.update(r).update(readFileSync(join(dir, r)));
    const shell = files.filter((r) => !isLazy(r) && !/^demos\/(?:README\.md|skills\/|templates\/)/.test(r));
    const lazy = Object.fromEntries(files.filter(isLazy).map((r) => [r, sha256(readFileSync(join(dir, r)))]));
    const head = [
      `const VERSION = ${JSON.stringify(version.digest('hex').slice(0, 16))};`,
      `const SHELL = ${JSON.stringify(shell)};`,
      `const LAZY = ${JSON.stringify(lazy)};`,
      '',
    ].join('\n');
    writeFileSync(join(dir, 'sw.js'), head + readFileSync(join(root, 'public/sw.js'), 'utf8'));
  }

  // `scripts/serve.sh` (PEP_NO_PRECOMPRESS=1): Trunk's server sends files as
  // they are and never reads a .gz or .br, so they are not made (~23 s of two
  // cores on every build it serves, D185).
  if (process.env.PEP_NO_PRECOMPRESS === '1') return;
  // Compressed side by side: zlib's async calls run on libuv's threads, one
  // file per core at a time (brotli at quality 11 is ~30 s of one core for
  // every file of a release build). A file this build has the same bytes as
  // the last build's takes that build's .gz and .br (D190):
  // target/precompress/<sha256>.gz|.br holds the last build's, no more.
  const cacheDir = join(targetDirOf(root), 'precompress');
  mkdirSync(cacheDir, { recursive: true });
  const used = new Set();
  const todo = walk(dir).filter((p) => TEXT.test(p) || p.endsWith('sw.js'));
  await eachAtMost(availableParallelism(), todo, async (p) => {
    const body = readFileSync(p);
    const key = sha256(body);
    const [gzC, brC] = [join(cacheDir, `${key}.gz`), join(cacheDir, `${key}.br`)];
    used.add(`${key}.gz`).add(`${key}.br`);
    if (existsSync(gzC) && existsSync(brC)) {
      copyFileSync(gzC, `${p}.gz`);
      copyFileSync(brC, `${p}.br`);
      return;
    }
    const [gz, br] = await Promise.all([
      gzipAsync(body, { level: 9 }),
      brotliAsync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } }),
    ]);
    writeFileSync(`${p}.gz`, gz);
    writeFileSync(`${p}.br`, br);
    putFile(gzC, gz);
    putFile(brC, br);
  });
  for (const f of readdirSync(cacheDir)) if (!used.has(f)) rmSync(join(cacheDir, f), { force: true });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv.includes('--print-csp')) {
    const dist = process.argv[process.argv.indexOf('--print-csp') + 1] || join(root, 'dist');
    const html = readFileSync(join(dist, 'index.html'), 'utf8');
    const withoutMeta = html.replace(/\s*<meta http-equiv="Content-Security-Policy"[^>]*>/, '');
    console.log(cspDirectives(inlineScriptHashes(withoutMeta), { header: true }).join('; '));
  } else {
    const dir = process.env.TRUNK_STAGING_DIR;
    if (!dir) {
      console.error('postbuild: TRUNK_STAGING_DIR is not set (Trunk runs this as its post_build hook)');
      process.exit(2);
    }
    const release = process.env.TRUNK_PROFILE === 'release';
    if (release) {
      const worker = optimizeWorker(dir);
      // Its rejection is seen at the await below, not as unhandled meanwhile.
      worker.catch(() => {});
      await splitApp(root, dir);
      await worker;
    }
    await finish(dir, release);
  }
}

// The split step of a release build (issue 11), run by scripts/postbuild.mjs
// before it writes the CSP, the service worker and the compressed files.
//
// Trunk 0.21 builds one module (cargo → wasm-bindgen → wasm-opt); it cannot
// split one (trunk-rs/trunk#1022). A release build of the app has split
// points (src/split.rs; build.rs sets `cfg(pep_split)` and links with
// `--emit-relocs`), whose imports from `__wasm_split_placeholder__` no browser
// can resolve, so Trunk's module is replaced here by the split one, the way
// cargo-leptos `--split` builds it:
//
//   1. crates/split-step (wasm_split_cli_support) splits cargo's linked module
//      into the main module, one module per split point and chunks they share,
//      and writes the loader (`<glue>_split.js`) the main module imports from;
//   2. wasm-bindgen (the same version Trunk runs, --keep-lld-exports: the split
//      modules import the main module's functions, memory and table) makes the
//      glue and the main module, under Trunk's file names; then the stream
//      adapters the app never uses are dropped and the names the module and
//      the glue call each other by are shortened (scripts/short-names.mjs);
//   3. wasm-opt -Oz (Trunk's level for the app) optimizes each module (the
//      main module with MAIN_OPT, which also rebuilds its control flow; the
//      split modules in this process, optimizeModules); a split
//      module's file name gets its content's digest, and the manifest the
//      loader fetches it through (MANIFEST_FETCH) its name and SRI digest; the
//      glue and the loader are minified (scripts/minify.mjs);
//   4. index.html: the new SRI digests of the glue and the main module, and a
//      modulepreload (with its own digest) for the loader, which the glue
//      imports statically.
//
// Steps 1–3 are a function of their inputs (cargo's module, Trunk's file
// names, the first-screen profile, these scripts, the tools): their output is
// kept in target/split/cache/<digest of the inputs>/ and a build with the same
// inputs takes it from there (splitKey, D190): a rebuild for a stylesheet or
// index.html change, and the sub-path build of scripts/test.sh, do not split
// the same module again (~60 s of two cores).
//
// Nothing happens when cargo's module has no split point (debug builds, or
// `PEP_NO_SPLIT=1`). Any failure stops the build: a half-split site would not
// start.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bodySizes, coldSplit, leb, readProfile } from './cold-split.mjs';
import { withColdRuntime } from './cold-runtime.mjs';
import { mergeChunks } from './merge-chunks.mjs';
import { minifyJs } from './minify.mjs';
import { shortenNames } from './short-names.mjs';

const PLACEHOLDER = '__wasm_split_placeholder__';

// wasm-opt's passes for the main module (the first load; step 3): its control
// flow rebuilt by the relooper, then -Oz twice. −2.3 KB gzip against one -Oz,
// ~20 s more (bench/SIZE.md, session 8). A function with one caller is inlined
// only when small (`-ocimfs 40`; wasm-opt's default inlines it whatever its
// size): the browser compiles a function whole at its first call, and the cold
// split can move out only what stays a function of its own (D193). The split
// modules keep one -Oz.
export const MAIN_OPT = ['--flatten', '--rereloop', '-ocimfs', '40', '-Oz', '-Oz'];

// Subresource integrity digests (this step's and the minified stylesheet's,
// scripts/postbuild.mjs): SHA-256, which SRI accepts as it does SHA-384
// (Trunk's choice). The manifest carries one per split module and chunk (90
// in session 9), and a digest does not compress: the shorter one is ~1.4 KB
// gzip less to fetch.
export const sri = (buf) => `sha256-${createHash('sha256').update(buf).digest('base64')}`;
const hex16 = (buf) => createHash('sha256').update(buf).digest('hex').slice(0, 16);

// How the loader fetches a split module: its file name and digest are in a
// manifest (`<stem>_split-<digest>.json`, checked by its own digest), fetched
// with the first split module a page loads, not with the loader: 68 names and
// digests (session 9) were ~3.4 KB gzip that do not compress and that the
// first screen does not need (issue 11). A failed manifest fetch is not memoized, so
// the views' Retry fetches it again.
const MANIFEST_FETCH = (file, integrity) => `let __pepManifest;
function __pepFetch(name) {
    const manifest = __pepManifest ??= fetch(new URL(${JSON.stringify(`./${file}`)}, import.meta.url), { integrity: ${JSON.stringify(integrity)} })
        .then((r) => r.ok ? r.json() : Promise.reject(new Error(\`split manifest: HTTP \${r.status}\`)));
    manifest.catch(() => { if (__pepManifest === manifest) __pepManifest = undefined; });
    return manifest.then((t) => fetch(new URL(\`./\${t[name][0]}\`, import.meta.url), { integrity: t[name][1] }));
}
`;

function run(cmd, args, opts = {}) {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 << 20, ...opts });
  } catch (e) {
    throw new Error(`split: ${cmd} ${args.join(' ')} failed (${e.status ?? e.message})`);
  }
}

/** `run` as a child process the build does not wait on: resolves with its output. */
export function runAsync(cmd, args) {
  return new Promise((resolve, reject) => {
    const failed = (why) => reject(new Error(`split: ${cmd} ${args.join(' ')} failed (${why})`));
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d) => { out += d; });
    child.on('error', (e) => failed(e.message));
    child.on('close', (code, signal) => (code === 0 ? resolve(out) : failed(code ?? signal)));
  });
}

/**
 * `task` over `items`, at most `limit` at a time; resolves with the results
 * in the items' order (scripts/postbuild.mjs's compression, a file per core).
 */
export async function eachAtMost(limit, items, task) {
  const results = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await task(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}

/** A tool on PATH, else the project's pinned copy (scripts/setup.sh). */
export function tool(root, name) {
  for (const dir of (process.env.PATH || '').split(':')) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  const pinned = join(root, '.tools/node_modules/.bin', name);
  if (existsSync(pinned)) return pinned;
  throw new Error(`split: ${name} is not on PATH (scripts/setup.sh installs it)`);
}

/**
 * Leptos's server-function crate brings `wasm-streams`, whose three adapters
 * (`IntoUnderlyingSource`, `…Sink`, `…ByteSource`: Rust streams offered to JS
 * as stream sources) are `#[wasm_bindgen]` exports, so their code stays in
 * the module and their classes in the glue although the app never makes one
 * (the glue has no `__wrap` for them: nothing in Rust hands one to JS). Both
 * go here, before wasm-opt, which then drops the code only they reached.
 * The shapes matched are wasm-bindgen 0.2.130's; anything unexpected stops
 * the build (issue 11: ~2 KB gzip of the first load). Works on the texts of
 * the glue (`js`) and the module (`wat`).
 */
function dropStreamAdapters({ js, wat }) {
  if (/IntoUnderlying\w*\.__wrap/.test(js)) throw new Error('split: the app now hands a stream adapter to JS; keep them');
  const names = new Set([...js.matchAll(/wasm\.((?:__wbg_)?intounderlying\w+)/g)].map((m) => m[1]));
  if (names.size === 0) return { js, wat };
  js = js
    .replace(/export class (IntoUnderlying\w+) \{[\s\S]*?\n\}\nif \(Symbol\.dispose\) \1\.prototype\[Symbol\.dispose\] = \1\.prototype\.free;\n/g, '')
    .replace(/const IntoUnderlying\w+Finalization = \(typeof FinalizationRegistry === 'undefined'\)\n[^\n]*\n[^\n]*;\n/g, '');
  if (/intounderlying/i.test(js)) throw new Error('split: the glue\'s stream adapters are not as expected');
  let removed = 0;
  wat = wat.replace(/^ *\(export "((?:__wbg_)?intounderlying\w+)" \(func [^()]*\)\)\n/gm, (line, name) => {
    if (!names.has(name)) throw new Error(`split: the module exports ${name}, which the glue does not call`);
    removed += 1;
    return '';
  });
  if (removed !== names.size) throw new Error(`split: ${names.size} stream adapter exports in the glue, ${removed} in the module`);
  return { js, wat };
}

/**
 * The main module and its glue after wasm-bindgen, before wasm-opt: the
 * stream adapters dropped, the names they call each other by shortened
 * (scripts/short-names.mjs). Through the text format, since binaryen's tools
 * can neither drop nor rename an export; the text has no `target_features`
 * section, so the module's own is passed on, and `-g` keeps the names of the
 * functions for the profiling tools (bench/coverage; the shipped module is
 * written without them by step 3).
 */
function rewriteMain(root, dir, stem, log) {
  const jsPath = join(dir, `${stem}.js`);
  const wasmPath = join(dir, `${stem}_bg.wasm`);
  const wasmOpt = tool(root, 'wasm-opt');
  const features = run(wasmOpt, [wasmPath, '--print-features'], { stdio: ['ignore', 'pipe', 'ignore'] }).split(/\s+/).filter((f) => f.startsWith('--enable-'));
  if (!features.includes('--enable-bulk-memory')) throw new Error(`split: the module's features were not read (${features.join(' ')})`);
  const watPath = join(dir, 'main.wat');
  run(tool(root, 'wasm-dis'), [wasmPath, '-o', watPath]);
  const texts = dropStreamAdapters({ js: readFileSync(jsPath, 'utf8'), wat: readFileSync(watPath, 'utf8') });
  const short = shortenNames({ ...texts, module: `./${stem}_bg.js` });
  log(`split: short names for ${short.imports} imports and ${short.exports} exports of the main module`);
  writeFileSync(watPath, short.wat);
  run(wasmOpt, [...features, '--emit-target-features', '-g', watPath, '-o', wasmPath]);
  rmSync(watPath);
  writeFileSync(jsPath, short.js);
}

/**
 * The cold split of the named main module `named` by `profile`: the primary
 * module (names stripped) to `primaryOut`; returns the cold module's bytes
 * and what moved.
 */
async function splitCold(root, { named, profile, work, primaryOut }) {
  const wasmOpt = tool(root, 'wasm-opt');
  const features = run(wasmOpt, [named, '--print-features'], { stdio: ['ignore', 'pipe', 'ignore'] }).split(/\s+/).filter((f) => f.startsWith('--enable-'));
  if (!features.includes('--enable-bulk-memory')) throw new Error(`cold split: the module's features were not read (${features.join(' ')})`);
  const wat = join(work, 'main-named.wat');
  await runAsync(tool(root, 'wasm-dis'), [named, '-o', wat]);
  const split = coldSplit(readFileSync(wat, 'utf8'), { hot: readProfile(profile), sizes: bodySizes(readFileSync(named)) });
  rmSync(wat);
  const pWat = join(work, 'primary.wat');
  const cWat = join(work, 'cold.wat');
  writeFileSync(pWat, split.primary);
  writeFileSync(cWat, split.cold);
  const pRaw = join(work, 'primary.wasm');
  const cRaw = join(work, 'cold-named.wasm');
  const cOut = join(work, 'cold.wasm');
  // The two modules are assembled and optimized side by side (the cold one's
  // -Oz is the longer: ~15 s against ~5 s on two cores).
  await Promise.all([
    (async () => {
      await runAsync(tool(root, 'wasm-as'), [...features, pWat, '-o', pRaw]);
      // The stubs of cold functions only cold ones called are dropped.
      await runAsync(wasmOpt, [...features, '--remove-unused-module-elements', '--strip-debug', '--strip-producers', pRaw, '-o', primaryOut]);
    })(),
    (async () => {
      await runAsync(tool(root, 'wasm-as'), [...features, cWat, '-o', cRaw]);
      // -Oz drops what no cold function reaches (the element segment is the root).
      await runAsync(wasmOpt, [...features, '-Oz', '--strip-debug', '--strip-producers', cRaw, '-o', cOut]);
    })(),
  ]);
  rmSync(pWat);
  rmSync(cWat);
  return { body: readFileSync(cOut), slots: split.slots, coldBytes: split.coldBytes };
}

/**
 * `wasm-opt -Oz` on each of the split step's modules `names` in `work`, in
 * this process, through binaryen's own library (loadBinaryen): a wasm-opt
 * process spends ~0.4 s starting, which was most of the time of the ~85
 * chunks of a few KB (97 s of one core for the 101 modules, 12 s here). The
 * output is byte for byte wasm-opt's (the module's names are read, as
 * wasm-opt reads them, and not written). Returns the optimized files' paths,
 * in the order of `names`.
 */
export function optimizeModules(binaryen, work, names) {
  return names.map((name) => {
    const module = binaryen.readBinary(withoutLabelNames(readFileSync(join(work, name))));
    try {
      if (!module.validate()) throw new Error(`split: ${name} is not a valid module`);
      module.optimize();
      const opt = join(work, `opt-${name}`);
      writeFileSync(opt, module.emitBinary());
      return opt;
    } finally {
      module.dispose();
    }
  });
}

/**
 * `buf` (a module) without its name section's label names (subsection 3).
 * The split step writes that subsection, empty, in every module; binaryen
 * does not read it and said so once per module ("warning: unknown name
 * subsection with id 3": 101 lines in each release build's log). Its
 * binaries carry no names, so the optimized output is the same.
 */
export function withoutLabelNames(buf) {
  const uleb = (i) => leb(buf, i);
  const encode = (n) => {
    const out = [];
    do {
      let x = n % 128;
      n = Math.floor(n / 128);
      if (n) x |= 0x80;
      out.push(x);
    } while (n);
    return Buffer.from(out);
  };
  for (let i = 8; i < buf.length;) {
    const start = i;
    const id = buf[i];
    const [size, body] = uleb(i + 1);
    const end = body + size;
    if (id === 0) {
      const [len, at] = uleb(body);
      if (buf.subarray(at, at + len).toString('utf8') === 'name') {
        const kept = [buf.subarray(body, at + len)];
        for (let k = at + len; k < end;) {
          const [subSize, subBody] = uleb(k + 1);
          if (buf[k] !== 3) kept.push(buf.subarray(k, subBody + subSize));
          k = subBody + subSize;
        }
        const content = Buffer.concat(kept);
        return Buffer.concat([buf.subarray(0, start), Buffer.from([0]), encode(content.length), content, buf.subarray(end)]);
      }
    }
    i = end;
  }
  return buf;
}

/**
 * binaryen's library from the project's pinned npm packages (scripts/setup.sh,
 * the package whose `wasm-opt` the build runs), set as `wasm-opt -Oz` sets it:
 * its `optimize()` then runs the same passes, Stack IR optimized, and its
 * binaries carry no names (optimizeModules, scripts/merge-chunks.mjs).
 */
export async function loadBinaryen(root) {
  let path;
  try {
    path = createRequire(join(root, '.tools', 'package.json')).resolve('binaryen');
  } catch {
    throw new Error('split: binaryen is not in .tools/node_modules (scripts/setup.sh installs it)');
  }
  const binaryen = (await import(pathToFileURL(path).href)).default;
  binaryen.setOptimizeLevel(2);
  binaryen.setShrinkLevel(2);
  binaryen.setDebugInfo(false);
  binaryen.setGenerateStackIR(true);
  binaryen.setOptimizeStackIR(true);
  return binaryen;
}

/**
 * Steps 1–3 of the split: writes the split modules, the glue, the loader and
 * the manifest into `staging`. Returns { modules: [the files fetched on
 * demand], written: [every file it wrote into staging] }.
 */
async function splitModules(root, staging, { targetDir, input, glue, stem, loader, splitter, profile, withCold, log }) {
  const work = join(targetDir, 'split', 'release');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(join(work, 'bindgen'), { recursive: true });

  // 1. Split.
  const main = join(work, 'main.wasm');
  const out = JSON.parse(run(splitter, [input, work, main, `./${loader}`, `./${glue}`]));

  // 2. wasm-bindgen on the main module, as Trunk runs it for a release, plus
  //    --keep-lld-exports (the split modules link against those exports).
  run(tool(root, 'wasm-bindgen'), [
    '--target=web', `--out-dir=${join(work, 'bindgen')}`, `--out-name=${stem}`, '--no-typescript',
    '--keep-lld-exports', '--no-demangle', main,
  ]);

  rewriteMain(root, join(work, 'bindgen'), stem, log);

  // 3. wasm-opt every module: the main one with MAIN_OPT (a wasm-opt
  //    process), and meanwhile the split modules and chunks -Oz in this
  //    process (optimizeModules).
  const wasmOpt = tool(root, 'wasm-opt');
  let glueJs = readFileSync(join(work, 'bindgen', `${stem}.js`), 'utf8');
  const named = join(work, 'main-named.wasm');
  const mainDone = withCold
    ? runAsync(wasmOpt, [...MAIN_OPT, '-g', join(work, 'bindgen', `${stem}_bg.wasm`), '-o', named])
    : runAsync(wasmOpt, [...MAIN_OPT, join(work, 'bindgen', `${stem}_bg.wasm`), '-o', join(staging, `${stem}_bg.wasm`)]);
  // Its rejection is seen at the await below, not as unhandled meanwhile.
  mainDone.catch(() => {});
  const binaryen = await loadBinaryen(root);
  const optimized = optimizeModules(binaryen, work, out.modules);
  // 3a. The chunks merged into a few files (scripts/merge-chunks.mjs).
  const merged = mergeChunks(binaryen, {
    names: out.modules, opts: optimized, loaderJs: readFileSync(join(work, loader), 'utf8'),
    read: (p) => readFileSync(p), write: (p, body) => writeFileSync(p, body),
  });
  log(`split: ${merged.groups.flat().length} chunks in ${merged.groups.length} files (${merged.groups.map((g) => g.length).join(', ')})`);
  const opts = merged.opts;
  await mainDone;
  const modules = [];
  if (withCold) {
    // 3b. The cold split (scripts/cold-split.mjs): what the first screens do
    //     not run leaves the main module for `<stem>_cold-<digest>.wasm`.
    const cold = await splitCold(root, { named, profile, work, primaryOut: join(staging, `${stem}_bg.wasm`) });
    const coldName = `${stem}_cold-${hex16(cold.body)}.wasm`;
    writeFileSync(join(staging, coldName), cold.body);
    glueJs = withColdRuntime(glueJs, coldName, sri(cold.body));
    modules.push(coldName);
    log(`split: cold split by ${profile}: ${cold.slots} functions (${cold.coldBytes} bytes of code) to ${coldName}`);
  }
  writeFileSync(join(staging, glue), minifyJs(root, glueJs, glue));
  let loaderJs = merged.loaderJs;
  const table = {};
  for (const [i, name] of merged.names.entries()) {
    const body = readFileSync(opts[i]);
    const key = name.replace(/\.wasm$/, '');
    const hashed = `${stem}-${key}-${hex16(body)}.wasm`;
    // The loader fetches the module through the manifest (MANIFEST_FETCH).
    const call = `fetch(new URL("./${name}", import.meta.url))`;
    if (loaderJs.split(call).length !== 2) throw new Error(`split: the loader does not fetch ${name} once, as expected`);
    loaderJs = loaderJs.replace(call, `__pepFetch(${JSON.stringify(key)})`);
    table[key] = [hashed, sri(body)];
    writeFileSync(join(staging, hashed), body);
    modules.push(hashed);
  }
  if (/\.wasm"/.test(loaderJs)) throw new Error('split: the loader names a module the split step did not hash');
  const manifestBody = Buffer.from(JSON.stringify(table));
  const manifest = `${stem}_split-${hex16(manifestBody)}.json`;
  writeFileSync(join(staging, manifest), manifestBody);
  loaderJs = loaderJs.replace(/^(import [^\n]*\n)/, (line) => `${line}${MANIFEST_FETCH(manifest, sri(manifestBody))}`);
  if (!loaderJs.includes('function __pepFetch(')) throw new Error('split: the loader does not start with its import, as expected');
  modules.push(manifest);
  loaderJs = minifyJs(root, loaderJs, loader);
  writeFileSync(join(staging, loader), loaderJs);

  return { modules, written: [`${stem}_bg.wasm`, glue, loader, ...modules] };
}

/**
 * The digest of everything steps 1–3 of the split read (cargo's module
 * `input`, Trunk's file stem, the profile when the cold split is on, the split
 * step's binary, the scripts in this directory, the pinned npm tools and the
 * lockfile, the wasm-bindgen and wasm-opt versions `versions`): equal
 * digests, equal output.
 */
export function splitKey(root, { input, stem, splitter, profile, withCold, versions }) {
  const h = createHash('sha256');
  const part = (name, body) => h.update(`${name}\0${body.length}\0`).update(body);
  part('input', readFileSync(input));
  part('stem', stem);
  part('cold', withCold ? readFileSync(profile) : 'off');
  part('splitter', readFileSync(splitter));
  const scripts = join(root, 'scripts');
  for (const f of readdirSync(scripts).filter((f) => f.endsWith('.mjs')).sort()) part(`scripts/${f}`, readFileSync(join(scripts, f)));
  part('npm', readFileSync(join(root, '.tools', 'package-lock.json')));
  part('cargo', readFileSync(join(root, 'Cargo.lock')));
  part('versions', versions);
  return h.digest('hex').slice(0, 32);
}

/** Keeps the `keep` most recently used entries of the split cache `dir`. */
function pruneCache(dir, keep = 3) {
  const entries = readdirSync(dir).map((name) => ({ name, t: statSync(join(dir, name)).mtimeMs })).sort((a, b) => b.t - a.t);
  for (const e of entries.slice(keep)) rmSync(join(dir, e.name), { recursive: true, force: true });
}

/** Cargo's target directory, where the build's caches live too. */
export const targetDirOf = (root) => process.env.CARGO_TARGET_DIR || join(root, 'target');

/**
 * Splits the app in `staging` (Trunk's staging directory of a release build).
 * Returns what it did ({ modules: [file names] }) or null when there is
 * nothing to split.
 */
export async function splitApp(root, staging, { log = console.log } = {}) {
  const targetDir = targetDirOf(root);
  const input = join(targetDir, 'wasm32-unknown-unknown', 'release', 'pep-app.wasm');
  if (!existsSync(input) || !readFileSync(input).includes(PLACEHOLDER)) return null;

  const glue = readdirSync(staging).find((f) => /^pep-app(?:-[0-9a-f]+)?\.js$/.test(f));
  if (!glue) throw new Error(`split: no pep-app glue in ${staging}`);
  const stem = glue.slice(0, -'.js'.length);
  const loader = `${stem}_split.js`;

  // The split step's tool (built once, with the profile `tool`). A native
  // build: without scripts/trunk.sh's settings for the WebAssembly release
  // (build-std needs a --target; none is given here).
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k === 'RUSTC_BOOTSTRAP' || k.startsWith('CARGO_UNSTABLE_')) delete env[k];
  run('cargo', ['build', '--quiet', '--locked', '--profile', 'tool', '-p', 'pep-split-step'], { cwd: root, env, stdio: ['ignore', 'inherit', 'inherit'] });
  const splitter = join(targetDir, 'tool', 'pep-split-step');
  const profile = join(root, 'scripts', 'hot-functions.txt');
  const withCold = existsSync(profile) && process.env.PEP_NO_COLD !== '1';
  const versions = [tool(root, 'wasm-bindgen'), tool(root, 'wasm-opt')].map((t) => run(t, ['--version'])).join('\n');

  const cacheRoot = join(targetDir, 'split', 'cache');
  const cached = join(cacheRoot, splitKey(root, { input, stem, splitter, profile, withCold, versions }));
  let modules;
  if (existsSync(join(cached, 'split.json'))) {
    const done = JSON.parse(readFileSync(join(cached, 'split.json'), 'utf8'));
    for (const f of done.written) copyFileSync(join(cached, f), join(staging, f));
    modules = done.modules;
    const now = new Date();
    utimesSync(cached, now, now); // the most recently used, for pruneCache
    log(`split: the same module, profile, scripts and tools as an earlier build: its split taken from ${cached}`);
  } else {
    const done = await splitModules(root, staging, { targetDir, input, glue, stem, loader, splitter, profile, withCold, log });
    modules = done.modules;
    const tmp = `${cached}.tmp`;
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp, { recursive: true });
    for (const f of done.written) copyFileSync(join(staging, f), join(tmp, f));
    writeFileSync(join(tmp, 'split.json'), JSON.stringify({ written: done.written, modules }));
    rmSync(cached, { recursive: true, force: true });
    renameSync(tmp, cached);
    pruneCache(cacheRoot);
  }
  const loaderJs = readFileSync(join(staging, loader), 'utf8');

  // 4. index.html: digests, and the loader preloaded with the glue.
  const indexPath = join(staging, 'index.html');
  let html = readFileSync(indexPath, 'utf8');
  const integrity = (file) => (tag) => tag.replace(/integrity="[^"]*"/, `integrity="${sri(readFileSync(join(staging, file)))}"`);
  const glueTag = new RegExp(`<link rel="modulepreload" href="([^"]*)${glue.replace(/\./g, '\\.')}"[^>]*>`);
  const m = html.match(glueTag);
  if (!m) throw new Error(`split: index.html has no modulepreload for ${glue}`);
  const prefix = m[1];
  html = html.replace(glueTag, (tag) => {
    const fixed = integrity(glue)(tag);
    return `${fixed}\n<link rel="modulepreload" href="${prefix}${loader}" crossorigin="anonymous" integrity="${sri(Buffer.from(loaderJs))}">`;
  });
  const wasmTag = new RegExp(`<link rel="preload" href="[^"]*${stem}_bg\\.wasm"[^>]*>`);
  if (!wasmTag.test(html)) throw new Error(`split: index.html has no preload for ${stem}_bg.wasm`);
  html = html.replace(wasmTag, integrity(`${stem}_bg.wasm`));
  writeFileSync(indexPath, html);

  log(`split: ${glue} + ${loader}; on demand: ${modules.join(', ')}`);
  return { loader, modules };
}

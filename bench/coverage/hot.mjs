// Writes the cold split's profile, scripts/hot-functions.txt (scripts/cold-split.mjs,
// docs/DECISIONS.md D174): the functions of the main module that the first
// screens run — `/` and `/demo/a`…`/demo/f`, at 1400×900 (with the service
// worker and without, and with the demo arriving after the app started) and
// 390×844, until
// the first screen is complete and 2.5 s after (the background work that
// waits for it: the secrets detector, the semantic check).
//
// How: the split step's named main module (target/split/release/main-named.wasm,
// MAIN_OPT with `-g`, left by the last release build) instrumented with
// binaryen's `--log-execution`; a copy of dist/ serves it with wasm-bindgen's
// glue as the split step made it (no cold runtime); headless Chromium records
// each function entry reached; the names of those functions are hashed into
// the profile.
//
// Usage, after `scripts/trunk.sh build --release` (with or without a profile):
//   node bench/coverage/hot.mjs            then build again (the split reads it)
// A build with a stale profile still works; the complete-screen gate says
// when it costs bytes (the cold module fetched before the first screen).
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FUNC_NAME, unquote, writeProfile } from '../../scripts/cold-split.mjs';
import { MAIN_OPT } from '../../scripts/split.mjs';
import { COND } from '../complete-screen.mjs';
import { launch, root } from '../lib.mjs';
import { startServer } from '../serve.mjs';

const target = process.env.CARGO_TARGET_DIR || join(root, 'target');
const work = join(target, 'split', 'release');
const named = join(work, 'main-named.wasm');
const bin = (n) => join(root, '.tools/node_modules/.bin', n);
if (!existsSync(named)) {
  // A build without a profile yet: the split step's main module, named.
  const bindgen = readdirSync(join(work, 'bindgen')).find((f) => /_bg\.wasm$/.test(f));
  if (!bindgen) {
    console.error(`hot: no split build in ${work}: run scripts/trunk.sh build --release first`);
    process.exit(2);
  }
  execFileSync(bin('wasm-opt'), [...MAIN_OPT, '-g', join(work, 'bindgen', bindgen), '-o', named]);
}
const out = join(target, 'coverage-hot');
rmSync(out, { recursive: true, force: true });
cpSync(join(root, 'dist'), out, { recursive: true });
for (const f of readdirSync(out)) if (/\.(?:gz|br)$/.test(f)) rmSync(join(out, f));
const wasmName = readdirSync(out).find((f) => /^pep-app-[0-9a-f]+_bg\.wasm$/.test(f));
if (!wasmName) throw new Error('hot: no main module in dist/');
const stem = wasmName.slice(0, -'_bg.wasm'.length);
const inst = join(out, wasmName);
execFileSync(bin('wasm-opt'), ['-g', '--log-execution', named, '-o', inst]);
// The glue as the split step wrote it (short names, no cold runtime).
cpSync(join(work, 'bindgen', `${stem}.js`), join(out, `${stem}.js`));
for (const f of ['index.html', '404.html']) {
  const p = join(out, f);
  writeFileSync(p, readFileSync(p, 'utf8').replace(/ integrity="[^"]*"/g, ''));
}

// Log point → function: the first log call in each function's body is its entry.
const wat = execFileSync(bin('wasm-dis'), [inst], { maxBuffer: 1 << 30 }).toString();
const logImport = wat.match(/\n \(import "([^"]+)" "log_execution" \(func (\$\S+)/);
if (!logImport) throw new Error('hot: the instrumented module has no log_execution import');
const entry = new Map();
for (const part of wat.split('\n (func ').slice(1)) {
  const name = unquote(part.match(FUNC_NAME)[1]);
  const call = part.indexOf(`(call ${logImport[2]}`);
  if (call < 0 || name === null) continue;
  const id = part.slice(call).match(/\(i32\.const (\d+)\)/);
  if (id) entry.set(Number(id[1]), name);
}

const server = await startServer(out, 0, {});
const base = `http://127.0.0.1:${server.address().port}`;
const browser = await launch();
const hit = new Set();
try {
  // With the service worker (a visit) and without (what the benchmarks and
  // the size gate load: its registration fails there, another path).
  // And with the demo arriving after the app has started (a busy machine:
  // the viewer first shows its loading state, another path).
  const runs = [
    [{ width: 1400, height: 900 }, 'allow', 0],
    [{ width: 1400, height: 900 }, 'block', 0],
    [{ width: 1400, height: 900 }, 'block', 800],
    [{ width: 390, height: 844 }, 'allow', 0],
  ];
  for (const [viewport, serviceWorkers, demoDelay] of runs) {
    for (const path of ['/', '/demo/a', '/demo/b', '/demo/c', '/demo/d', '/demo/e', '/demo/f']) {
      const context = await browser.newContext({ viewport, serviceWorkers });
      const page = await context.newPage();
      if (demoDelay) {
        await page.route(/\/demos\/[a-f]\.json$/, async (route) => {
          await new Promise((r) => setTimeout(r, demoDelay));
          await route.continue();
        });
      }
      const errors = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.addInitScript((module) => {
        window.__hot = new Set();
        const add = (imports) => {
          imports = imports || {};
          imports[module] = Object.assign({}, imports[module], { log_execution: (i) => window.__hot.add(i) });
          return imports;
        };
        const is = WebAssembly.instantiateStreaming;
        const ins = WebAssembly.instantiate;
        WebAssembly.instantiateStreaming = (s, imp) => is(s, add(imp));
        WebAssembly.instantiate = (m, imp) => ins(m, add(imp));
      }, logImport[1]);
      await page.goto(base + path);
      // (On a phone the protocol pane is hidden: its text is not there to read.)
      if (viewport.width > 900) await page.waitForFunction(...COND.ours, { polling: 'raf', timeout: 60000 });
      else await page.locator('[data-message-id]').first().waitFor({ timeout: 60000 });
      await page.waitForTimeout(2500);
      for (const i of await page.evaluate(() => [...window.__hot])) hit.add(i);
      await context.close();
      if (errors.length) throw new Error(`hot: ${path}: ${errors.join('; ')}`);
    }
  }
} finally {
  await browser.close();
  server.close();
}
const names = [...hit].map((i) => entry.get(i)).filter((n) => n !== undefined);
const file = join(root, 'scripts', 'hot-functions.txt');
writeProfile(file, names);
console.log(`hot: ${names.length} of ${entry.size} functions run on the first screens; written to ${file}`);

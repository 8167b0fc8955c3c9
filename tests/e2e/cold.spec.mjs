// The cold split (scripts/cold-split.mjs, docs/DECISIONS.md D174): the
// transformation on a small module run in Node's WebAssembly, and in the
// browser what the first screen fetches, the background load after it, the
// synchronous load of a click that comes first, and what a failed load shows.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bodySizes, coldSplit, nameDigest } from '../../scripts/cold-split.mjs';
import { test, BASE, root, newPage } from './helpers.mjs';

const bin = (n) => join(root, '.tools/node_modules/.bin', n);
const FEATURES = ['--enable-mutable-globals', '--enable-bulk-memory', '--enable-sign-ext', '--enable-reference-types', '--enable-multivalue'];

// `main` (hot) calls `sum3` (cold), which calls `twice` (hot) and `scale`
// (cold), reads memory, and moves the stack pointer; `unused` is cold and
// called by no one. `tiny` is too small to move.
const WAT = `(module
 (type $ii_i (func (param i32 i32) (result i32)))
 (import "env" "log" (func $log (param i32)))
 (global $__stack_pointer (mut i32) (i32.const 1024))
 (global $k i32 (i32.const 7))
 (memory $0 1)
 (data (i32.const 16) "\\05\\00\\00\\00")
 (table $0 2 2 funcref)
 (elem (i32.const 1) func $twice)
 (export "main" (func $main))
 (export "memory" (memory $0))
 (func $main (param $0 i32) (result i32)
  (call $sum3 (local.get $0) (i32.const 2) (i32.const 3))
 )
 (func $twice (param $0 i32) (result i32)
  (i32.add (local.get $0) (local.get $0))
 )
 (func $tiny (result i32)
  (i32.const 1)
 )
 (func $sum3 (param $0 i32) (param $1 i32) (param $2 i32) (result i32)
  (local $3 i32)
  (global.set $__stack_pointer (i32.sub (global.get $__stack_pointer) (i32.const 16)))
  (local.set $3 (i32.add (call $twice (local.get $0)) (call $scale (local.get $1) (local.get $2))))
  (call $log (local.get $3))
  (global.set $__stack_pointer (i32.add (global.get $__stack_pointer) (i32.const 16)))
  (i32.add (i32.add (local.get $3) (i32.load (i32.const 16))) (i32.add (global.get $k) (call $tiny)))
 )
 (func $scale (param $0 i32) (param $1 i32) (result i32)
  (i32.mul (call_indirect (type $ii_i) (local.get $0) (local.get $1) (i32.const 0)) (i32.const 10))
 )
 (func $unused (param $0 i32) (result i32)
  (i32.mul (i32.add (local.get $0) (i32.const 3)) (i32.add (local.get $0) (i32.const 5)))
 )
 (func $add (type $ii_i) (param $0 i32) (param $1 i32) (result i32)
  (i32.add (local.get $0) (local.get $1))
 )
 (elem (i32.const 0) func $add)
)`;

test('cold split: the moved functions run from the cold module, over the same memory, stack pointer and table, loaded by the first call that needs one', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pep-cold-'));
  const as = (wat, out) => {
    writeFileSync(join(dir, `${out}.wat`), wat);
    execFileSync(bin('wasm-as'), [...FEATURES, '-g', join(dir, `${out}.wat`), '-o', join(dir, `${out}.wasm`)]);
    return readFileSync(join(dir, `${out}.wasm`));
  };
  const original = as(WAT, 'original');
  execFileSync(bin('wasm-dis'), [join(dir, 'original.wasm'), '-o', join(dir, 'named.wat')]);
  const named = readFileSync(join(dir, 'named.wat'), 'utf8');
  const hot = new Set(['main', 'twice', 'add'].map(nameDigest));
  const split = coldSplit(named, { hot, sizes: bodySizes(original), minBody: 8 });
  assert.equal(split.slots, 3, 'sum3, scale and unused move; tiny stays');
  const primary = as(split.primary, 'primary');
  const cold = as(split.cold, 'cold');

  const run = (bytesOfCold) => {
    const logged = [];
    let loads = 0;
    let exports;
    const imports = { env: { log: (v) => logged.push(v) } };
    const instance = new WebAssembly.Instance(new WebAssembly.Module(primary), {
      ...imports,
      pep: {
        cold: () => {
          loads++;
          const p = {};
          for (const k of Object.keys(exports)) if (k.startsWith('$')) p[k] = exports[k];
          new WebAssembly.Instance(new WebAssembly.Module(bytesOfCold), { ...imports, p });
          exports.$cold.value = 1;
        },
      },
    });
    exports = instance.exports;
    return { exports, logged, loads: () => loads };
  };
  const whole = new WebAssembly.Instance(new WebAssembly.Module(original), { env: { log: () => {} } }).exports;
  const r = run(cold);
  assert.equal(r.exports.$cold.value, 0, 'nothing loaded before a cold function is called');
  for (const x of [1, 4, 40]) assert.equal(r.exports.main(x), whole.main(x), `main(${x}) as in the whole module`);
  assert.equal(r.loads(), 1, 'the cold module is loaded once');
  assert.deepEqual(r.logged, [1 * 2 + 50, 4 * 2 + 50, 40 * 2 + 50], 'the cold code calls the same imports');
  assert.equal(r.exports.$g0.value, 1024, 'the stack pointer is back where it was: the two modules share it');
  // The primary no longer carries the moved code; the cold module does.
  assert.ok(!/i32\.mul/.test(split.primary.slice(split.primary.indexOf('(func $scale'), split.primary.indexOf('(func $unused'))), 'scale is a stub in the primary');
  assert.ok(primary.length < original.length + 400, `the primary (${primary.length} bytes) carries stubs, not the code`);
  // A missing cold module makes the call fail (the app shows its error screen), not a wrong result.
  const broken = run(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]));
  assert.throws(() => broken.exports.main(1));
});

test('cold split in the app: the first screen fetches no cold module; it loads in the background after it; a click that comes first loads it at once; a failed load shows the error screen', async ({ browser }) => {
  const cold = /_cold-[0-9a-f]{16}\.wasm$/;
  {
    const { context, page } = await newPage(browser);
    const requested = [];
    page.on('request', (r) => { if (cold.test(r.url())) requested.push(performance.now()); });
    await page.goto(`${BASE}/demo/f`);
    await page.waitForFunction(() => {
      const j = document.querySelector('[data-testid=protocol-json]');
      return j && j.innerText.includes('messages') && document.querySelector('[data-message-id] .md:not(.md-plain) p');
    }, null, { polling: 'raf' });
    assert.equal(requested.length, 0, 'no cold module before the first screen is complete');
    await page.waitForFunction(() => performance.getEntriesByType('resource').some((e) => /_cold-/.test(e.name) && e.responseEnd > 0), null, { timeout: 20000 });
    const how = await page.evaluate(() => performance.getEntriesByType('resource').filter((e) => /_cold-/.test(e.name)).map((e) => e.initiatorType));
    assert.deepEqual(how, ['fetch'], 'fetched once, in the background');
    await page.getByTestId('tab-raw').click();
    await page.getByTestId('protocol-json').waitFor();
    assert.deepEqual(page.errors, []);
    await context.close();
  }
  {
    // A click before the background load: the cold module comes at once.
    const { context, page } = await newPage(browser);
    await page.goto(`${BASE}/demo/a`);
    await page.locator('[data-message-id]').first().waitFor();
    await page.getByTestId('tab-raw').click();
    await page.getByTestId('protocol-json').waitFor();
    await page.locator('a.demo-link', { hasText: 'D' }).click();
    await page.locator('[data-message-id="d-sys"]').waitFor();
    const how = await page.evaluate(() => performance.getEntriesByType('resource').filter((e) => /_cold-/.test(e.name)).map((e) => e.initiatorType));
    assert.ok(how.length >= 1, 'the cold module was loaded');
    assert.deepEqual(page.errors, []);
    await context.close();
  }
  {
    // The cold module cannot be had (offline without the service worker's copy, a newer deployment).
    const { context, page } = await newPage(browser);
    await page.route(cold, (route) => route.fulfill({ status: 404, body: 'gone' }));
    await page.goto(`${BASE}/demo/a`);
    await page.locator('[data-message-id]').first().waitFor();
    // (The click's own handler fails: the error screen replaces the page under it.)
    await page.getByTestId('tab-raw').click({ timeout: 5000 }).catch(() => {});
    await page.getByTestId('crash').waitFor({ timeout: 20000 });
    assert.match(await page.locator('#crash-message').textContent(), /could not be loaded \(HTTP 404\)/);
    await context.close();
  }
});

// The split's chunks merged into a few files (scripts/merge-chunks.mjs,
// docs/DECISIONS.md D179): which chunks go together, the merged module run in
// Node's WebAssembly against separately instantiated chunks, the loader's
// rewrite, and in the build what a view fetches.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chunkNeeds, EVERY_LOAD, groupChunks, loaderForGroups, mergeModules } from '../../scripts/merge-chunks.mjs';
import { loadBinaryen, withoutLabelNames } from '../../scripts/split.mjs';
import { test, root } from './helpers.mjs';

const FEATURES = ['--enable-mutable-globals', '--enable-bulk-memory', '--enable-sign-ext', '--enable-reference-types'];

// Two chunks as crates/split-step writes them: the main module's memory,
// table and stack pointer imported, the chunk's functions placed in table
// slots of its own, its data at an address of its own. The same helper
// function (`$sq`) is in both, as monomorphized code often is. A data string
// holds `$0`, which is not a name.
const chunk = (slot, addr, k, text) => `(module
 (type $t (func (param i32) (result i32)))
 (import "__wasm_split" "memory" (memory $mimport$0 1))
 (import "__wasm_split" "__indirect_function_table" (table $timport$0 8 funcref))
 (import "__wasm_split" "__wasm_split_shared0" (global $gimport$0 (mut i32)))
 (data $0 (i32.const ${addr}) "${text}")
 (elem $0 (i32.const ${slot}) $0 $sq)
 (func $sq (type $t) (param $0 i32) (result i32)
  (i32.mul (local.get $0) (local.get $0))
 )
 (func $0 (type $t) (param $0 i32) (result i32)
  (global.set $gimport$0 (i32.sub (global.get $gimport$0) (i32.const 16)))
  (i32.store (global.get $gimport$0) (local.get $0))
  (local.set $0 (i32.add (i32.load (global.get $gimport$0)) (i32.load8_u (i32.const ${addr}))))
  (global.set $gimport$0 (i32.add (global.get $gimport$0) (i32.const 16)))
  (i32.add (call_indirect (type $t) (i32.mul (local.get $0) (i32.const ${k})) (i32.const ${slot + 1})) (local.get $0))
 )
)`;

test('merge chunks: the merged module fills the same table slots and memory and computes the same as the chunks loaded one by one', async () => {
  const b = await loadBinaryen(root);
  // As the split step's modules are: with their target_features section.
  const dir = mkdtempSync(join(tmpdir(), 'pep-merge-'));
  const bin = (wat) => {
    writeFileSync(join(dir, 'in.wat'), wat);
    execFileSync(join(root, '.tools/node_modules/.bin/wasm-opt'), [...FEATURES, '--emit-target-features', join(dir, 'in.wat'), '-o', join(dir, 'out.wasm')]);
    return readFileSync(join(dir, 'out.wasm'));
  };
  const a = bin(chunk(2, 100, 3, '\\07$0 a'));
  const c = bin(chunk(5, 200, 5, '\\0b$0 \\"c\\"'));
  const merged = mergeModules(b, [a, c]);
  const mt = b.readBinary(merged);
  const text = mt.emitText();
  mt.dispose();
  assert.equal((text.match(/^ \(import /gm) || []).length, 3, 'one import of each shared thing');
  const funcs = (text.match(/^ \(func /gm) || []).length;
  assert.ok(funcs === 3 || funcs === 4, `the functions of both chunks (the two copies of the same helper may become one): ${funcs}`);
  assert.ok(text.includes('$0 \\"c\\"'), 'a string that looks like a name is left as it is');
  const shared = () => ({
    memory: new WebAssembly.Memory({ initial: 1 }),
    __indirect_function_table: new WebAssembly.Table({ initial: 8, element: 'anyfunc' }),
    __wasm_split_shared0: new WebAssembly.Global({ value: 'i32', mutable: true }, 4096),
  });
  const one = shared();
  for (const m of [a, c]) new WebAssembly.Instance(new WebAssembly.Module(m), { __wasm_split: one });
  const two = shared();
  new WebAssembly.Instance(new WebAssembly.Module(merged), { __wasm_split: two });
  for (const slot of [2, 5]) {
    for (const x of [0, 1, 9]) assert.equal(two.__indirect_function_table.get(slot)(x), one.__indirect_function_table.get(slot)(x), `slot ${slot}(${x})`);
  }
  assert.equal(two.__indirect_function_table.get(2)(1), (1 + 7) * 3 * ((1 + 7) * 3) + 8, 'the chunk\'s own arithmetic');
  assert.deepEqual(new Uint8Array(two.memory.buffer, 100, 4), new Uint8Array(one.memory.buffer, 100, 4));
  assert.deepEqual(new Uint8Array(two.memory.buffer, 200, 6), new Uint8Array(one.memory.buffer, 200, 6));
  assert.equal(two.__wasm_split_shared0.value, 4096, 'the stack pointer is back where it was');
  assert.equal([0, 1, 4, 7].filter((s) => two.__indirect_function_table.get(s) !== null).length, 0, 'no other slot is filled');
});

const LOADER = (chunks) => `${chunks.map(([name, by]) => `/* ${by.join(', ')} */
const __${name} = makeLoad(() => {
    const src = fetch(new URL("./${name}.wasm", import.meta.url));
    src.catch(() => {});
    return async (imports) => (WebAssembly.instantiateStreaming(src, imports));
}
, []);
`).join('')}export const __wasm_split_load_x = wrapAsyncCb(makeLoad(() => {}
, [__chunk_1, __chunk_2, __chunk_3]));
export const __wasm_split_load_y = wrapAsyncCb(makeLoad(() => {}
, [__chunk_2, __chunk_4]));
`;

test('merge chunks: what every page loads is one file; the others are merged cheapest first until no view needs more than the limit; the loader fetches each group once', () => {
  const js = LOADER([['chunk_1', ['recheck', 'x']], ['chunk_2', ['secrets', 'x', 'y']], ['chunk_3', ['x', 'z']], ['chunk_4', ['x', 'y']]]);
  const needs = chunkNeeds(js);
  assert.deepEqual([...needs.keys()], ['chunk_1', 'chunk_2', 'chunk_3', 'chunk_4']);
  const size = new Map([['chunk_1', 10], ['chunk_2', 10], ['chunk_3', 1000], ['chunk_4', 10]]);
  assert.deepEqual(groupChunks(needs, size, { maxFiles: 2 }), [['chunk_1', 'chunk_2'], ['chunk_3'], ['chunk_4']], 'x needs two other files: nothing to merge');
  // With a limit of one, chunk_3 and chunk_4 must go together.
  assert.deepEqual(groupChunks(needs, size, { maxFiles: 1 }), [['chunk_1', 'chunk_2'], ['chunk_3', 'chunk_4']]);
  assert.throws(() => groupChunks(needs, size, { everyLoad: ['nowhere'] }), /no chunk is needed by nowhere/);
  const out = loaderForGroups(js, [['chunk_1', 'chunk_2'], ['chunk_3', 'chunk_4']]);
  assert.ok(!/const __chunk_2 |const __chunk_4 /.test(out), 'the merged chunks have no loader of their own');
  assert.ok(out.includes('[__chunk_1, __chunk_3]') && out.includes('[__chunk_1, __chunk_3]));\nexport const __wasm_split_load_y'), out);
  assert.ok(out.includes(', [__chunk_1, __chunk_3]));\n'), 'y needs each group once');
  assert.throws(() => loaderForGroups(js, [['chunk_1', 'chunk_2']]), /no group holds/);
});

test('merge chunks in the build: a few chunk files, every one listed in the manifest; the every-page modules need one of them', () => {
  const dist = process.env.PEP_E2E_DIST || join(root, 'dist');
  const manifestFile = readdirSync(dist).find((f) => /_split-[0-9a-f]{16}\.json$/.test(f));
  const manifest = JSON.parse(readFileSync(join(dist, manifestFile), 'utf8'));
  const chunks = Object.keys(manifest).filter((k) => k.startsWith('chunk_'));
  const splits = Object.keys(manifest).filter((k) => k.startsWith('split_'));
  assert.ok(splits.length >= 10, `split modules: ${splits}`);
  // 86 before D179; the groups' number is not fixed (no view needs more than MAX_FILES of them besides the every-page one).
  assert.ok(chunks.length >= 2 && chunks.length <= 10, `a few chunk files: ${chunks}`);
  const loader = readFileSync(join(dist, readdirSync(dist).find((f) => /_split\.js$/.test(f))), 'utf8');
  for (const c of chunks) assert.ok(loader.includes(JSON.stringify(c)), `the loader fetches ${c}`);
  for (const f of readdirSync(dist).filter((n) => /-chunk_\d+-[0-9a-f]{16}\.wasm$/.test(n))) {
    assert.ok(chunks.some((c) => f.includes(`-${c}-`)), `${f} is in the manifest`);
  }
  assert.ok(EVERY_LOAD.every((s) => splits.includes(`split_${s}`)));
});

test('the split step\'s label names (name subsection 3, which binaryen does not read) are dropped before binaryen reads a module; the function names stay', async () => {
  const binaryen = await loadBinaryen(root);
  const hex = (h) => Buffer.from(h.replace(/\s+/g, ''), 'hex');
  const code = hex('0061736d 01000000  01 04 01 60 00 00  03 02 01 00  0a 04 01 02 00 0b');
  // "name": function names (subsection 1: function 0 is "f"), then empty label names (3).
  const named = Buffer.concat([code, hex('00 0e 04 6e616d65  01 04 01 00 01 66  03 01 00')]);
  const out = withoutLabelNames(named);
  assert.deepEqual(out, Buffer.concat([code, hex('00 0b 04 6e616d65  01 04 01 00 01 66')]));
  const module = binaryen.readBinary(out);
  try {
    assert.ok(module.validate());
    assert.equal(binaryen.getFunctionInfo(module.getFunctionByIndex(0)).name, 'f');
  } finally {
    module.dispose();
  }
  assert.equal(withoutLabelNames(code), code, 'a module without a name section is returned as it is');
  assert.throws(() => withoutLabelNames(named.subarray(0, code.length + 1)), /ends inside a LEB128 number/, 'a truncated module is an error, not a hang');
});

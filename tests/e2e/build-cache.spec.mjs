// What a release build takes from an earlier one (docs/DECISIONS.md D190):
// the split's output (scripts/split.mjs, keyed by splitKey), the worker's
// optimized module and the precompressed files (scripts/postbuild.mjs). The
// key must change with every input of the split; what the caches give must be
// what a build without them makes. scripts/test.sh builds dist/ and then
// target/dist-sub/ (the same modules under /sub/), the second from the caches.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { splitKey } from '../../scripts/split.mjs';
import { test, root } from './helpers.mjs';

test('the split cache\'s key changes with each input of the split, and not with the profile when the cold split is off', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pep-split-key-'));
  mkdirSync(join(dir, 'scripts'));
  mkdirSync(join(dir, '.tools'));
  const files = {
    'input.wasm': 'module', 'splitter': 'tool', 'hot.txt': 'profile', 'Cargo.lock': 'lock',
    '.tools/package-lock.json': 'npm', 'scripts/split.mjs': 'split', 'scripts/cold-split.mjs': 'cold',
  };
  const write = (over = {}) => {
    for (const [f, body] of Object.entries({ ...files, ...over })) writeFileSync(join(dir, f), body);
  };
  const key = (over = {}, opts = {}) => {
    write(over);
    return splitKey(dir, {
      input: join(dir, 'input.wasm'), stem: 'pep-app-1', splitter: join(dir, 'splitter'),
      profile: join(dir, 'hot.txt'), withCold: true, versions: 'wasm-bindgen 1\nwasm-opt 1', ...opts,
    });
  };
  const base = key();
  assert.equal(key(), base, 'the same inputs, the same key');
  const changed = {
    'cargo\'s module': key({ 'input.wasm': 'module2' }),
    'the split step\'s binary': key({ splitter: 'tool2' }),
    'the first-screen profile': key({ 'hot.txt': 'profile2' }),
    'Cargo.lock': key({ 'Cargo.lock': 'lock2' }),
    'the npm tools': key({ '.tools/package-lock.json': 'npm2' }),
    'a script': key({ 'scripts/cold-split.mjs': 'cold2' }),
    'Trunk\'s file stem': key({}, { stem: 'pep-app-2' }),
    'a tool\'s version': key({}, { versions: 'wasm-bindgen 1\nwasm-opt 2' }),
    'the cold split turned off': key({}, { withCold: false }),
  };
  for (const [what, k] of Object.entries(changed)) assert.notEqual(k, base, `the key does not change with ${what}`);
  writeFileSync(join(dir, 'scripts', 'new.mjs'), 'x');
  assert.notEqual(key(), base, 'the key does not change with a new script');
  const off = key({}, { withCold: false });
  assert.equal(key({ 'hot.txt': 'profile3' }, { withCold: false }), off, 'without the cold split the profile is not read');
});

/** The files of a build directory, recursively, relative to it. */
function files(dir, rel = '') {
  return readdirSync(join(dir, rel), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(dir, join(rel, e.name)) : [join(rel, e.name)]));
}

test('every precompressed file of both release builds is its file, compressed (the second build\'s from the cache)', () => {
  for (const dir of [join(root, 'dist'), join(root, 'target/dist-sub')]) {
    const all = files(dir);
    const compressed = all.filter((f) => /\.(?:gz|br)$/.test(f));
    assert.ok(compressed.length > 50, `${dir}: ${compressed.length} precompressed files`);
    for (const f of compressed) {
      const body = readFileSync(join(dir, f));
      const plain = readFileSync(join(dir, f.slice(0, -3)));
      const back = f.endsWith('.gz') ? gunzipSync(body) : brotliDecompressSync(body);
      assert.ok(back.equals(plain), `${dir}/${f} is not ${f.slice(0, -3)} compressed`);
    }
  }
});

test('the sub-path build has the root build\'s modules, byte for byte (its split and worker taken from the cache)', () => {
  const dist = join(root, 'dist');
  const sub = join(root, 'target/dist-sub');
  const modules = readdirSync(dist).filter((f) => /^(?:pep-app|token-worker).*\.(?:wasm|js|json)$/.test(f));
  assert.ok(modules.some((f) => f.includes('_cold-')) && modules.some((f) => f.includes('-split_')), modules.join(' '));
  for (const f of modules) assert.ok(readFileSync(join(sub, f)).equals(readFileSync(join(dist, f))), `${f} differs between the two builds`);
});

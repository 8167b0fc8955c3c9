// What `scripts/serve.sh`'s Trunk watches for rebuilds (Trunk.toml [watch],
// docs/DECISIONS.md D189): every input of the build, and nothing the build
// writes. Trunk's default (this whole directory, recursively) put a fresh
// build's thousands of files in target/ through its file watcher, whose
// panic aborted Trunk mid-build. Read from the files themselves, so that an
// input added to index.html, to the workspace or to a hook without a watch
// entry fails here.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, normalize, sep } from 'node:path';
import { test, root } from './helpers.mjs';

/** The strings of a TOML array `key = [ … ]` in section `[section]` (this file's simple form). */
function tomlArray(text, section, key) {
  const body = text.split(/^\[/m).find((s) => s.startsWith(`${section}]`));
  assert.ok(body, `Trunk.toml has no [${section}] section`);
  const m = body.match(new RegExp(`^${key}\\s*=\\s*\\[([^\\]]*)\\]`, 'm'));
  assert.ok(m, `Trunk.toml [${section}] has no ${key} = [ … ]`);
  return [...m[1].matchAll(/"([^"]*)"/g)].map((x) => x[1]);
}

const trunkToml = readFileSync(join(root, 'Trunk.toml'), 'utf8');
const watched = tomlArray(trunkToml, 'watch', 'watch').map((p) => normalize(p));
const covered = (path) => watched.some((w) => path === w || path.startsWith(w + sep));

/** What the build reads: index.html's Trunk links, the hook's script, the workspace's members and build scripts. */
function inputs() {
  const html = readFileSync(join(root, 'index.html'), 'utf8');
  const links = [...html.matchAll(/<link\s+data-trunk\b[^>]*\bhref="([^"]+)"/g)].map((m) => m[1]);
  const hooks = tomlArray(trunkToml, '[hooks', 'command_arguments').filter((a) => existsSync(join(root, a)));
  const cargo = readFileSync(join(root, 'Cargo.toml'), 'utf8');
  const members = [...cargo.match(/^members\s*=\s*\[([^\]]*)\]/m)[1].matchAll(/"([^"]*)"/g)].map((m) => m[1]).filter((m) => m !== '.');
  return [...links, ...hooks, ...members, 'index.html', 'Cargo.toml', 'Cargo.lock', 'build.rs', '.cargo/config.toml', 'src'].map((p) => normalize(p));
}

test('every entry of the watch list exists (Trunk refuses to start otherwise)', () => {
  assert.ok(watched.length > 0, 'an empty list means Trunk watches the whole directory');
  for (const w of watched) assert.ok(existsSync(join(root, w)), `Trunk.toml [watch] names ${w}, which does not exist`);
});

test('every input of the build is watched', () => {
  const missing = inputs().filter((p) => !covered(p));
  assert.deepEqual(missing, [], `inputs of the build not in Trunk.toml [watch]: ${missing.join(', ')}`);
});

test('nothing the build or the set-up writes is watched', () => {
  // The build's outputs and the installed tools, wherever they are.
  const written = new Set(['target', 'dist', '.tools', 'node_modules', '.git']);
  for (const w of watched) {
    assert.ok(w !== '.' && w !== '', 'the whole directory is watched');
    assert.ok(!w.split(sep).some((part) => written.has(part)), `${w} is written by the build or the set-up`);
    if (!statSync(join(root, w)).isDirectory()) continue;
    const walk = (dir) => {
      for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
        if (!e.isDirectory()) continue;
        const rel = join(dir, e.name);
        assert.ok(!written.has(e.name), `the watched ${w} holds ${rel}, which the build or the set-up writes`);
        walk(rel);
      }
    };
    walk(w);
  }
});

// The cold split of the main module (issue 24, docs/DECISIONS.md D174): the
// functions the first screen never runs leave the module the first screen
// waits for, by a recorded profile, and come in a second module fetched once
// the first screen is complete.
//
// Input: the main module after MAIN_OPT with its names kept (`-g`), and the
// profile (scripts/hot-functions.txt: one 16-hex-digit FNV-1a digest per
// function name the first screens ran, written by bench/coverage/hot.mjs).
// Output:
//   - the primary module: every cold function (not in the profile, and not
//     too small to be worth it) keeps its index, type and exports, but its
//     body becomes a stub: "if the cold module is not there, load it
//     (`$__pep_cold_check`, which calls the import `pep.cold`); call slot K of
//     the function table" (call_indirect, the function's own type). The table grows by one slot per cold function.
//     The globals and tables are exported for the cold module
//     (`$g<i>`, `$t<i>`); the flag it sets is `$cold`.
//   - the cold module: the same functions, all of them as they were (hot ones
//     too, as far as cold ones call them: a second copy of code over the same
//     state), with the memory, tables and globals imported from the primary
//     (module `p`), no data, no element segments but one (the cold functions
//     into their slots), no start, no exports; wasm-opt then drops what no
//     cold function reaches.
// Both share the memory, the stack pointer and the tables, so a call through
// either copy does the same thing. The JavaScript that loads the cold module
// (COLD_RUNTIME) is added to wasm-bindgen's glue by scripts/split.mjs.
//
// A stale profile stays correct (a function the first screen now runs but the
// profile does not name is a stub: the first screen loads the cold module
// synchronously, slower and bigger); the complete-screen size gate fails on it
// (bench/complete-gate.mjs), which is the signal to run bench/coverage/hot.mjs.
import { readFileSync, writeFileSync } from 'node:fs';

/** FNV-1a 64 of a function's name, as the profile stores it. */
export function nameDigest(name) {
  let h = 0xcbf29ce484222325n;
  for (const b of Buffer.from(name, 'utf8')) {
    h ^= BigInt(b);
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h.toString(16).padStart(16, '0');
}

/** Reads a profile file: the set of digests. */
export function readProfile(path) {
  return new Set(readFileSync(path, 'utf8').split('\n').map((l) => l.trim()).filter((l) => /^[0-9a-f]{16}$/.test(l)));
}

/** The unsigned LEB128 number at `b[i]`: [its value, the index after it]. */
export function leb(b, i) {
  let r = 0n;
  let s = 0n;
  for (;;) {
    const x = b[i++];
    if (x === undefined) throw new Error('wasm: a module ends inside a LEB128 number');
    r |= BigInt(x & 0x7f) << s;
    s += 7n;
    if (x < 0x80) return [Number(r), i];
  }
}

/**
 * A module's defined functions, from the binary: how many functions it
 * imports (a defined function's index is `imported` + its position), each
 * body's size in bytes, in order, and the name section's function names by
 * index (empty without one).
 */
export function functionBodies(wasm) {
  let i = 8;
  let imported = 0;
  const sizes = [];
  const names = new Map();
  while (i < wasm.length) {
    const id = wasm[i++];
    let size;
    [size, i] = leb(wasm, i);
    const end = i + size;
    if (id === 2) {
      let [n, j] = leb(wasm, i);
      for (let k = 0; k < n; k++) {
        let l;
        [l, j] = leb(wasm, j);
        j += l;
        [l, j] = leb(wasm, j);
        j += l;
        const kind = wasm[j++];
        if (kind === 0) {
          [, j] = leb(wasm, j);
          imported++;
        } else if (kind === 1) {
          j++;
          const flags = wasm[j++];
          [, j] = leb(wasm, j);
          if (flags & 1) [, j] = leb(wasm, j);
        } else if (kind === 2) {
          const flags = wasm[j++];
          [, j] = leb(wasm, j);
          if (flags & 1) [, j] = leb(wasm, j);
        } else if (kind === 3) j += 2;
        else throw new Error(`cold split: import kind ${kind} not read`);
      }
    } else if (id === 10) {
      let [n, j] = leb(wasm, i);
      for (let k = 0; k < n; k++) {
        let l;
        [l, j] = leb(wasm, j);
        sizes.push(l);
        j += l;
      }
    } else if (id === 0) {
      let [l, j] = leb(wasm, i);
      const name = wasm.subarray(j, j + l).toString('utf8');
      j += l;
      if (name === 'name') {
        while (j < end) {
          const sub = wasm[j++];
          let sl;
          [sl, j] = leb(wasm, j);
          if (sub === 1) {
            let [n, k] = leb(wasm, j);
            for (let m = 0; m < n; m++) {
              let idx;
              let nl;
              [idx, k] = leb(wasm, k);
              [nl, k] = leb(wasm, k);
              names.set(idx, wasm.subarray(k, k + nl).toString('utf8'));
              k += nl;
            }
          }
          j += sl;
        }
      }
    }
    i = end;
  }
  return { imported, sizes, names };
}

/** The size of each defined function's body (by name), from the binary. */
export function bodySizes(wasm) {
  const { imported, sizes, names } = functionBodies(wasm);
  const out = new Map();
  sizes.forEach((s, k) => {
    const n = names.get(imported + k);
    if (n !== undefined) out.set(n, s);
  });
  return out;
}

/** A name as binaryen's text writes it (`$name` or `$"…"`) as the name section holds it; null if unreadable. */
export const unquote = (n) => {
  if (!n.startsWith('$"')) return n.slice(1);
  try {
    return JSON.parse(n.slice(1));
  } catch {
    return null;
  }
};

/** The name of the function whose text (after `(func `) is `text`, as written there. */
export const FUNC_NAME = /^(\$(?:"(?:[^"\\]|\\.)*"|\S+))/;

/** A function in binaryen's text: `(func $name (param $0 i32) … (result …)`. */
function header(line) {
  const m = line.match(FUNC_NAME);
  if (!m) return null;
  const rest = line.slice(m[1].length);
  if (/\((?:type|export|import) /.test(rest)) return null;
  const params = [...rest.matchAll(/\(param (\$\S+) ([a-z0-9]+)\)/g)].map((p) => [p[1], p[2]]);
  const results = [...rest.matchAll(/\(result ([a-z0-9 ]+)\)/g)].map((r) => r[1]);
  // Anything else in the header (unnamed parameters, reference types with
  // heap types): the function stays as it is.
  const known = rest.replace(/\(param \$\S+ [a-z0-9]+\)|\(result [a-z0-9 ]+\)/g, '').trim();
  if (known !== '') return null;
  return { name: m[1], params, results };
}

/**
 * Splits `wat` (binaryen's text of the named main module). `hot`: the
 * profile's digests; `sizes`: body sizes by name; `minBody`: smaller bodies
 * stay (a stub is ~20 bytes). Returns { primary, cold, slots, coldBytes }.
 */
export function coldSplit(wat, { hot, sizes, minBody = 16 }) {
  const table = wat.match(/\n \(table (\$\S+) (\d+) (\d+) funcref\)/);
  if (!table) throw new Error('cold split: no function table of fixed size in the main module');
  const [tableLine, tableName, tableMin] = [table[0], table[1], Number(table[2])];
  const parts = wat.split('\n (func ');
  const head = parts[0];
  const cold = [];
  const primaryFuncs = [];
  let coldBytes = 0;
  for (let k = 1; k < parts.length; k++) {
    const text = parts[k];
    const nl = text.indexOf('\n');
    const first = nl < 0 ? text : text.slice(0, nl);
    const h = header(first);
    const end = text.indexOf('\n )');
    const name = h && unquote(h.name);
    const size = name !== null ? sizes.get(name) : undefined;
    const isCold = h && end >= 0 && size !== undefined && size >= minBody && !hot.has(nameDigest(name));
    if (!isCold) {
      primaryFuncs.push(text);
      continue;
    }
    const slot = tableMin + cold.length;
    cold.push(h.name);
    coldBytes += size;
    const args = h.params.map(([p]) => `(local.get ${p})`).join(' ');
    const sig = [...h.params.map(([, t]) => `(param ${t})`), ...h.results.map((r) => `(result ${r})`)].join(' ');
    const stub = `${first}\n  (call $__pep_cold_check)\n  (call_indirect ${tableName} ${sig}\n   ${args}\n   (i32.const ${slot})\n  )`;
    primaryFuncs.push(stub + text.slice(end));
  }
  const slots = cold.length;
  const lastImport = head.lastIndexOf('\n (import ');
  const importEnd = head.indexOf('\n', lastImport + 1);
  const globals = [...head.matchAll(/\n \(global (\$\S+) /g)].map((m) => m[1]);
  const tables = [...head.matchAll(/\n \(table (\$\S+) /g)].map((m) => m[1]);
  const memories = [...head.matchAll(/\n \(memory (\$\S+) /g)].map((m) => m[1]);
  if (memories.length !== 1) throw new Error(`cold split: ${memories.length} memories`);
  const exportsFor = [
    ...globals.map((g, i) => ` (export "$g${i}" (global ${g}))`),
    ...tables.map((t, i) => ` (export "$t${i}" (table ${t}))`),
    ` (export "$m0" (memory ${memories[0]}))`,
    ' (export "$cold" (global $__pep_cold_ready))',
  ].join('\n');
  let primaryHead = `${head.slice(0, importEnd)}\n (import "pep" "cold" (func $__pep_cold))${head.slice(importEnd)}`;
  primaryHead = primaryHead.replace(tableLine, `\n (table ${tableName} ${tableMin + slots} ${tableMin + slots} funcref)`);
  const lastGlobal = primaryHead.lastIndexOf('\n (global ');
  if (lastGlobal < 0) throw new Error('cold split: no global section to add the flag to');
  const afterGlobal = primaryHead.indexOf('\n', lastGlobal + 1);
  primaryHead = `${primaryHead.slice(0, afterGlobal)}\n (global $__pep_cold_ready (mut i32) (i32.const 0))${primaryHead.slice(afterGlobal)}`;
  const check = '$__pep_cold_check\n  (if\n   (i32.eqz\n    (global.get $__pep_cold_ready)\n   )\n   (then\n    (call $__pep_cold)\n   )\n  )\n )';
  const primary = `${primaryHead}\n (func ${[check, ...primaryFuncs].join('\n (func ')}`.replace(/\n\)\s*$/, `\n${exportsFor}\n)\n`);

  // The cold module: imports in place of the definitions, no data, no
  // element segments but the slots, no start, no exports.
  const lines = wat.split('\n');
  const funcStart = lines.findIndex((l) => l.startsWith(' (func '));
  const moduleLines = lines.slice(0, funcStart);
  const imports = [];
  const kept = [];
  let gi = 0;
  let ti = 0;
  for (const l of moduleLines) {
    let m;
    if ((m = l.match(/^ \(global (\$\S+) (\(mut [a-z0-9]+\)|[a-z0-9]+) .*\)$/))) imports.push(` (import "p" "$g${gi++}" (global ${m[1]} ${m[2]}))`);
    else if ((m = l.match(/^ \(table (\$\S+) (\d+)(?: \d+)? ([a-z]+)\)$/))) {
      const min = m[1] === tableName ? tableMin + slots : Number(m[2]);
      imports.push(` (import "p" "$t${ti++}" (table ${m[1]} ${min} ${m[3]}))`);
    } else if ((m = l.match(/^ \(memory (\$\S+) (\d+)(?: \d+)?\)$/))) imports.push(` (import "p" "$m0" (memory ${m[1]} ${m[2]}))`);
    else if (/^ \((?:data|elem|start|export) /.test(l)) continue;
    else kept.push(l);
  }
  const lastImp = kept.map((l, k) => (l.startsWith(' (import ') ? k : -1)).reduce((a, b) => Math.max(a, b), -1);
  const head2 = [...kept.slice(0, lastImp + 1), ...imports, ...kept.slice(lastImp + 1)].join('\n');
  const body = lines.slice(funcStart).join('\n')
    .replace(/\n \((?:data|elem|start|export) [^\n]*/g, '');
  const elem = slots ? ` (elem $__pep_cold_slots (table ${tableName}) (i32.const ${tableMin}) func ${cold.join(' ')})` : '';
  const coldWat = `${head2}\n${body}`.replace(/\n\)\s*$/, `\n${elem}\n)\n`);
  return { primary, cold: coldWat, slots, coldBytes };
}

/** The profile written by bench/coverage/hot.mjs from the names a run reached. */
export function writeProfile(path, names) {
  const digests = [...new Set(names.map(nameDigest))].sort();
  writeFileSync(path, `# The functions the first screens run (scripts/cold-split.mjs): FNV-1a 64 of each name.\n# Written by bench/coverage/hot.mjs; ${digests.length} functions.\n${digests.join('\n')}\n`);
}

// The split's chunks merged into a few files (issue 24; D179), run by
// scripts/split.mjs after every module is optimized.
//
// crates/split-step writes one chunk per set of split modules that share code
// (86 in session 17: a view's first open fetched up to 37 of them, ~0.5-3 KB
// each, and demo A's two background modules 10). Each chunk imports the same
// three things from the main module (memory, table, stack pointer) and only
// fills its own table slots and memory regions when it is instantiated, so
// chunks can be joined into one module that does all of that at once.
//
// Which chunks go together (groupChunks):
//   - every chunk a module of EVERY_LOAD needs: one file, which every page
//     fetches after its first screen anyway (the same bytes as before, one
//     request instead of ten);
//   - the others by cheapest merge first: joining two groups costs the gzip
//     bytes each view fetches that it does not need; merging stops when no view
//     needs more than MAX_FILES of these files.
// The loader (`<glue>_split.js`) then fetches a group's file once for all its
// chunks: the first chunk's file holds the group, the others' loaders are gone
// and every list of what a split module needs names each group once.
import { gzipSync } from 'node:zlib';

/** The split modules demo A's page loads after its first screen (tests/e2e/split.spec.mjs). */
export const EVERY_LOAD = ['recheck', 'secrets'];
/** At most this many chunk files (besides the every-load one) for any view. */
export const MAX_FILES = 4;

/** Chunk name (`chunk_17`) → the split modules that need it, from the loader's comments. */
export function chunkNeeds(loaderJs) {
  const needs = new Map();
  for (const m of loaderJs.matchAll(/\/\* ([\w, ]+) \*\/\nconst __(chunk_\d+) = makeLoad\(/g)) {
    needs.set(m[2], new Set(m[1].split(',').map((s) => s.trim())));
  }
  const declared = [...loaderJs.matchAll(/^const __(chunk_\d+) = /gm)].length;
  if (declared !== needs.size) throw new Error(`merge-chunks: ${declared} chunk loaders, ${needs.size} with the list of modules that need them`);
  return needs;
}

/**
 * Groups of chunk names (each in the loader's order, groups by their first
 * chunk). `needs` from chunkNeeds, `size` chunk → gzip bytes.
 */
export function groupChunks(needs, size, { everyLoad = EVERY_LOAD, maxFiles = MAX_FILES } = {}) {
  const names = [...needs.keys()];
  const splits = new Set(names.flatMap((c) => [...needs.get(c)]));
  for (const s of everyLoad) if (!splits.has(s)) throw new Error(`merge-chunks: no chunk is needed by ${s} (EVERY_LOAD)`);
  const load = names.filter((c) => everyLoad.some((s) => needs.get(c).has(s)));
  let groups = names.filter((c) => !load.includes(c)).map((c) => ({ chunks: [c], by: new Set(needs.get(c)), bytes: size.get(c) }));
  const filesFor = (s) => groups.filter((g) => g.by.has(s)).length;
  while (groups.length > 1 && [...splits].some((s) => filesFor(s) > maxFiles)) {
    let best = null;
    for (let i = 0; i < groups.length; i++) {
      for (let j = i + 1; j < groups.length; j++) {
        const a = groups[i];
        const b = groups[j];
        const onlyB = [...b.by].filter((s) => !a.by.has(s)).length;
        const onlyA = [...a.by].filter((s) => !b.by.has(s)).length;
        const waste = onlyB * a.bytes + onlyA * b.bytes;
        if (!best || waste < best.waste) best = { waste, i, j };
      }
    }
    const a = groups[best.i];
    const b = groups[best.j];
    const joined = { chunks: [...a.chunks, ...b.chunks], by: new Set([...a.by, ...b.by]), bytes: a.bytes + b.bytes };
    groups = groups.filter((_, k) => k !== best.i && k !== best.j).concat([joined]);
  }
  const order = new Map(names.map((c, i) => [c, i]));
  const sorted = (cs) => [...cs].sort((x, y) => order.get(x) - order.get(y));
  return [load, ...groups.map((g) => g.chunks)]
    .filter((g) => g.length > 0)
    .map(sorted)
    .sort((x, y) => order.get(x[0]) - order.get(y[0]));
}

// Outside string literals, every `$name` of a module's text is renamed
// (`rename`): a prefix of its own for each module, so that two modules'
// functions, types and segments cannot meet, and the one name of each import.
const NAME = /\$[0-9A-Za-z!#$%&'*+\-./:<=>?@\\^_`|~]+/g;
const STRING = /"(?:[^"\\]|\\.)*"/g;
function renameNames(line, rename) {
  let out = '';
  let last = 0;
  for (const m of line.matchAll(STRING)) {
    out += line.slice(last, m.index).replace(NAME, rename) + m[0];
    last = m.index + m[0].length;
  }
  return out + line.slice(last).replace(NAME, rename);
}

const IMPORT = /^ \(import "([^"]*)" "([^"]*)" \((memory|table|global) (\$\S+) (.*)\)\)$/;

/**
 * One module doing what the chunks `bufs` (optimized modules) do: their
 * imports once, their types, functions and segments side by side. Returns the
 * optimized binary (`binaryen` as scripts/split.mjs's loadBinaryen sets it).
 */
export function mergeModules(binaryen, bufs) {
  const imports = new Map(); // "module base" → { decl, name }
  const fields = [];
  let features = null;
  bufs.forEach((buf, k) => {
    const module = binaryen.readBinary(buf);
    let text;
    try {
      const f = module.getFeatures();
      if (features !== null && features !== f) throw new Error('merge-chunks: the chunks were built with different features');
      features = f;
      text = module.emitText();
    } finally {
      module.dispose();
    }
    const lines = text.split('\n').filter((l) => !/^\s*;;/.test(l));
    if (lines[0] !== '(module' || lines.at(-2) !== ')' || lines.at(-1) !== '') throw new Error('merge-chunks: a chunk\'s text is not one module as expected');
    const body = lines.slice(1, -2);
    const own = new Map();
    for (const line of body) {
      const imp = line.match(IMPORT);
      if (!imp) continue;
      const [, mod, base, kind, name, rest] = imp;
      const key = `${mod} ${base}`;
      const decl = `${kind} ${rest}`;
      if (!imports.has(key)) imports.set(key, { decl, name: `$imp${imports.size}` });
      else if (imports.get(key).decl !== decl) throw new Error(`merge-chunks: chunks import ${key} as ${imports.get(key).decl} and as ${decl}`);
      own.set(name, imports.get(key).name);
    }
    const rename = (n) => own.get(n) ?? `$c${k}_${n.slice(1)}`;
    let field = null;
    for (const line of body) {
      if (line.startsWith(' (')) {
        if (field) fields.push(field);
        field = null;
        if (IMPORT.test(line)) continue;
        if (/^ \((import|export|start|memory|table|global) /.test(line)) throw new Error(`merge-chunks: a chunk has a field not expected in one: ${line.slice(0, 80)}`);
        field = [];
      } else if (!field) {
        throw new Error('merge-chunks: a chunk\'s text is not as expected');
      }
      field.push(renameNames(line, rename));
    }
    if (field) fields.push(field);
  });
  const head = [...imports].map(([key, { decl, name }]) => {
    const [mod, base] = key.split(' ');
    const [kind, ...rest] = decl.split(' ');
    return ` (import "${mod}" "${base}" (${kind} ${name} ${rest.join(' ')}))`;
  });
  const types = fields.filter((f) => f[0].startsWith(' (type '));
  const rest = fields.filter((f) => !f[0].startsWith(' (type '));
  const text = ['(module', ...types.flat(), ...head, ...rest.flat(), ')'].join('\n');
  const merged = binaryen.parseText(text);
  try {
    merged.setFeatures(features);
    if (!merged.validate()) throw new Error('merge-chunks: the merged module is not valid');
    merged.optimize();
    return merged.emitBinary();
  } finally {
    merged.dispose();
  }
}

/**
 * The loader for `groups`: each group's first chunk loads the group's file,
 * the other chunks' loaders are dropped, and every list of needed chunks
 * names each group once.
 */
export function loaderForGroups(loaderJs, groups) {
  const leader = new Map(groups.flatMap((g) => g.map((c) => [c, g[0]])));
  let js = loaderJs;
  for (const g of groups) {
    for (const c of g.slice(1)) {
      const block = new RegExp(`/\\* [\\w, ]+ \\*/\\nconst __${c} = makeLoad\\(\\(\\) => \\{\\n[^\\n]*\\n[^\\n]*\\n[^\\n]*\\n\\}\\n, \\[\\]\\);\\n`);
      if (!block.test(js)) throw new Error(`merge-chunks: the loader's ${c} is not as expected`);
      js = js.replace(block, '');
    }
  }
  js = js.replace(/\[(__chunk_\d+(?:, __chunk_\d+)*)\]/g, (_, list) => {
    const names = list.split(', ').map((n) => {
      const to = leader.get(n.slice(2));
      if (!to) throw new Error(`merge-chunks: the loader needs ${n}, which no group holds`);
      return `__${to}`;
    });
    return `[${[...new Set(names)].join(', ')}]`;
  });
  for (const c of leader.keys()) {
    if (leader.get(c) !== c && new RegExp(`\\b__${c}\\b`).test(js)) throw new Error(`merge-chunks: the loader still names ${c}`);
  }
  return js;
}

/**
 * Merges the chunks among `names` (the split step's modules, optimized as
 * `opts`, the same order): returns the modules left ({ names, opts }, a
 * group's file at its first chunk's place, its body written by `write(path, body)`)
 * and the loader for them.
 */
export function mergeChunks(binaryen, { names, opts, loaderJs, read, write }) {
  const needs = chunkNeeds(loaderJs);
  const at = new Map(names.map((n, i) => [n.replace(/\.wasm$/, ''), i]));
  const body = new Map([...needs.keys()].map((c) => {
    if (!at.has(c)) throw new Error(`merge-chunks: the loader names ${c}, which the split step did not write`);
    return [c, read(opts[at.get(c)])];
  }));
  const size = new Map([...body].map(([c, b]) => [c, gzipSync(b, { level: 9 }).length]));
  const groups = groupChunks(needs, size);
  const dropped = new Set();
  for (const g of groups) {
    if (g.length === 1) continue;
    write(opts[at.get(g[0])], mergeModules(binaryen, g.map((c) => body.get(c))));
    for (const c of g.slice(1)) dropped.add(at.get(c));
  }
  const keep = [...names.keys()].filter((i) => !dropped.has(i));
  return { names: keep.map((i) => names[i]), opts: keep.map((i) => opts[i]), loaderJs: loaderForGroups(loaderJs, groups), groups };
}

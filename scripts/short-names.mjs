// Short names for what the main module and its glue call each other by
// (issue 11: first-load transfer), a step of scripts/split.mjs.
//
// wasm-bindgen names each JavaScript import of the module
// `__wbg_<method>_<16 hex digits>` under the module name `./<stem>_bg.js`,
// and the closure adapters it exports keep their mangled Rust symbols
// (`_RINvNvNtNt…`, ~120 characters). Each name is written twice, once in the
// module and once in the glue (where esbuild cannot rename a property), and
// the hex digits do not compress: ~300 imports cost ~6 KB gzip of the first
// load. This gives each a short name (`a`, `b`, … `aB`), the same in both
// files. Nothing else refers to these names: the split modules import only
// the memory, the table and the stack pointer, which keep theirs.
//
// Works on the text format of the module (binaryen's wasm-dis) and on
// wasm-bindgen 0.2.130's unminified glue; anything not as expected stops the
// build rather than ship a module whose imports the glue does not provide.

const LETTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
// Valid property names, but kept out so that no reader of the glue trips on them.
const RESERVED = new Set(['do', 'if', 'in']);

/** `a`, `b`, … `Z`, `aa`, `ab`, …: the n-th short name. */
export function* shortNames() {
  for (const c of LETTERS) yield c;
  for (const a of LETTERS) {
    for (const b of LETTERS) {
      if (!RESERVED.has(a + b)) yield a + b;
    }
  }
  throw new Error('short-names: more than 2,753 names');
}

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function once(text, needle, what) {
  const n = text.split(needle).length - 1;
  if (n !== 1) throw new Error(`short-names: ${what} occurs ${n} times in the glue, expected once`);
}

/**
 * Renames the imports from `module` (wasm-bindgen's `./<stem>_bg.js`) and the
 * `_R…` exports the glue calls. Returns the new texts and how many names
 * changed. `wat` is the module's text, `js` the glue's.
 */
export function shortenNames({ wat, js, module }) {
  const names = shortNames();
  const next = () => names.next().value;
  const moduleKey = `\n        "${module}": import0,\n`;
  once(js, moduleKey, `the import module ${module}`);
  const newModule = next();

  const importLine = new RegExp(`^ \\(import "${escape(module)}" "([^"]+)" `, 'gm');
  let imports = 0;
  wat = wat.replace(importLine, (_, name) => {
    const short = next();
    const key = `\n        ${name}: function(`;
    once(js, key, `the import ${name}`);
    js = js.replace(key, `\n        ${short}: function(`);
    imports += 1;
    return ` (import "${newModule}" "${short}" `;
  });
  if (imports === 0) throw new Error(`short-names: the module imports nothing from ${module}`);
  js = js.replace(moduleKey, `\n        ${newModule}: import0,\n`);
  // Every key left in the glue's import object is one the module does not
  // import: wasm-bindgen writes only what it imports, so none should be.
  const object = js.slice(js.indexOf('const import0 = {'), js.indexOf('\n    };\n', js.indexOf('const import0 = {')));
  const left = object.match(/\n {8}__wbg\w*: function\(/g);
  if (left) throw new Error(`short-names: the glue provides imports the module does not use: ${left.join(', ').trim()}`);

  const exportLine = /^ \(export "(_R[0-9A-Za-z_]+)" \(func /gm;
  let exports = 0;
  wat = wat.replace(exportLine, (_, name) => {
    const short = next();
    const call = `wasm.${name}(`;
    once(js, call, `the export ${name}`);
    js = js.replace(call, `wasm.${short}(`);
    exports += 1;
    return ` (export "${short}" (func `;
  });
  return { wat, js, imports, exports };
}

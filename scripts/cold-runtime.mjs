// The JavaScript that loads the cold module (scripts/cold-split.mjs), added to
// wasm-bindgen's glue by scripts/split.mjs. `file`: the cold module's name
// (beside the glue); `integrity`: its SRI digest.
//
// - Once the first screen is complete (the app's `pep-first-screen` event,
//   or 5 s after the start on a page that never sends it), half a second
//   later when the page is idle (requestIdleCallback: the frames that follow
//   the first screen go first), the module is fetched with its
//   digest, compiled off the main thread and instantiated: its element
//   segment puts the cold functions into their table slots; the primary's
//   `$cold` flag is then set, and its stubs call through the slots.
// - On a page the service worker serves (every visit after the first), it
//   comes from the worker's cache as the main module loads, and is in place
//   before the app starts: a first screen the profile did not see (a saved
//   tab, a saved document) and a click at once need no load, offline too.
// - A stub called before it is there (a click in the first moments of a
//   first visit, or a stale profile) loads it at once: a synchronous request and compile (the call
//   cannot wait). Should that fail (offline without the service worker's
//   copy, a newer version deployed), the page shows its error screen, as for
//   any trap, with what happened.
export const COLD_RUNTIME = (file, integrity) => `
const __pepColdUrl = new URL(${JSON.stringify(`./${file}`)}, import.meta.url).href;
let __pepColdImports, __pepColdDone = false, __pepColdFetching = false, __pepColdModule = null;
const __pepColdCompile = () => WebAssembly.compileStreaming(fetch(__pepColdUrl, { integrity: ${JSON.stringify(integrity)} }));
// A page the service worker serves (a visit came before): the cold module is
// in its cache, and the first screen (a saved tab, a saved document) may need
// it: compiled now, beside the main module, and in place before the app starts.
const __pepColdEarly = navigator.serviceWorker && navigator.serviceWorker.controller
  ? __pepColdCompile().catch(() => null)
  : null;
function __pepColdInstantiate(module) {
  if (__pepColdDone) return;
  const p = {};
  for (const k of Object.keys(wasm)) if (k.charCodeAt(0) === 36) p[k] = wasm[k];
  new WebAssembly.Instance(module, Object.assign({}, __pepColdImports, { p }));
  wasm.$cold.value = 1;
  __pepColdDone = true;
}
function __pepCold() {
  if (__pepColdDone) return;
  let why;
  try {
    const x = new XMLHttpRequest();
    x.open('GET', __pepColdUrl, false);
    x.overrideMimeType('text/plain; charset=x-user-defined');
    x.send();
    if (x.status === 200) {
      const s = x.responseText, b = new Uint8Array(s.length);
      for (let i = 0; i < s.length; i++) b[i] = s.charCodeAt(i) & 255;
      __pepColdInstantiate(new WebAssembly.Module(b));
      return;
    }
    why = 'HTTP ' + x.status;
  } catch (e) {
    why = String(e);
  }
  window.__pepPanic = "Part of the app's code could not be loaded (" + why + '). You may be offline, or a newer version was deployed: reload the page.';
  throw new WebAssembly.RuntimeError(window.__pepPanic);
}
function __pepColdPrefetch() {
  if (__pepColdDone || __pepColdFetching || wasm === undefined) return;
  __pepColdFetching = true;
  __pepColdCompile()
    .then(__pepColdInstantiate)
    .catch((e) => { __pepColdFetching = false; console.warn('the cold module will load when first needed:', e); });
}
const __pepColdIdle = () => setTimeout(() => (window.requestIdleCallback || setTimeout)(__pepColdPrefetch), 500);
addEventListener('pep-first-screen', __pepColdIdle, { once: true });
setTimeout(__pepColdIdle, 5000);
`;

/** Adds COLD_RUNTIME to wasm-bindgen's glue `js` and the `pep.cold` import. */
export function withColdRuntime(js, file, integrity) {
  const start = '    wasm.__wbindgen_start();\n    return wasm;';
  const load = '    const { instance, module } = await __wbg_load(await module_or_path, imports);\n';
  if (js.split(start).length !== 2 || js.split(load).length !== 2) throw new Error('cold split: the glue does not start the module as expected');
  js = js
    .replace(start, `    if (__pepColdModule) __pepColdInstantiate(__pepColdModule);\n${start}`)
    .replace(load, `${load}    if (__pepColdEarly) __pepColdModule = await __pepColdEarly;\n`);
  const head = 'function __wbg_get_imports() {';
  if (js.split(head).length !== 2) throw new Error('cold split: the glue has no single __wbg_get_imports');
  const end = '\nexport { initSync, __wbg_init as default };';
  if (!js.includes(end)) throw new Error('cold split: the glue does not end as expected');
  return js
    .replace(head, `function __wbg_get_imports() {\n    const i = __pepGlueImports();\n    i.pep = { __proto__: null, cold: __pepCold };\n    __pepColdImports = i;\n    return i;\n}\nfunction __pepGlueImports() {`)
    .replace(end, `${COLD_RUNTIME(file, integrity)}${end}`);
}

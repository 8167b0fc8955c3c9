// The first-load size gate (issue 11), run by scripts/test.sh right after
// `scripts/trunk.sh build --release`: fails (exit 1) when the gzip -9 sum of what
// dist/index.html loads (html + js + wasm + css, as bench/size.mjs counts it)
// exceeds the budget, or when the first load references a file of an
// on-demand module (the tokenizer worker, the Markdown module). Cheap and
// deterministic: no browser, no network.
//
// The budget ratchets down: it was the first-load figure when this gate last
// moved + 2 %, until the target (300 KB) was met (session 9); now it is the
// target. A change that makes the first load smaller should still lower
// BASELINE in the same commit (the record of where the figure stands);
// bench/SIZE.md says what the bytes are and where they went.
//
// Usage: node bench/size-gate.mjs [dist]     (SIZE_BUDGET=bytes overrides)
import { join, resolve } from 'node:path';
import { firstLoad } from './first-load.mjs';

/**
 * gzip -9 bytes of the first load when the gate last moved (bench/SIZE.md).
 * Raised in session 3 from 413,854 to 508,002 (the features that session
 * landed); lowered in session 4 to 438,676: the views the first screen does
 * not show are split modules fetched on first use (src/split.rs,
 * scripts/split.mjs); then 452,960 once the session's fixes for big and
 * hostile documents and first paint were merged (+14.3 KB, bench/SIZE.md);
 * in session 5: the protocol panel is a split module fetched after the first
 * paint, and code that runs only on first use (opening documents, the Budget
 * recount, the checks' run, undo keys, match steps) is split too, and the
 * semantic pass of the demos runs after the first paint from its own module:
 * 382,200 (bench/SIZE.md, "Session 5, merged"); in session 6, timestamps
 * read without core's decimal-to-float parser (envelope::number): 368,370;
 * lengths and figures of the first screen written without core's float
 * printing (display::decimal): 361,677; the early compile's script in
 * <head>: 361,805; what each segment sends made on first use (the panel's),
 * not before the first paint: 359,155; in session 7, the glue, split
 * loader and stylesheet minified (scripts/minify.mjs): 354,324; wasm-streams'
 * unused stream adapters dropped: 352,386; the Checks tab's settings read by
 * its own module, not at start: 349,756; the split step's SRI digests
 * SHA-256: 348,490; in session 8, the standard library compiled with the
 * app (scripts/trunk.sh: build-std, panic=immediate-abort, no source
 * locations, optimize_for_size) and the error screen in index.html: 323,592;
 * the main module's wasm-opt --flatten --rereloop -Oz -Oz: 321,285; in
 * session 9, short names for the main module's imports and the glue's calls
 * (scripts/short-names.mjs): 312,115; the split modules' names and digests
 * in a manifest fetched with the first split module, and the reports (load
 * errors, import notes, warnings) a split module: 299,777, under the target,
 * so the budget is now the target itself; the saved-document and new-version
 * notices with the reports, the paste dialog's form in the opening module,
 * and the phone header's fix: 297,369; the paste dialog opened at once, its
 * form arriving into it: 297,025; one split_loader! macro for the split
 * functions' loaded flags: 297,068. Session 10 (issue 21): the fidelity
 * extension's reader and the views of what imported requests now keep
 * (reasoning and provider blocks split out), secrets masked on the page (the
 * detector split out): 310,232, over the target again, so the budget is
 * BASELINE + 2 % until it is met again (bench/SIZE.md, "Session 10").
 */
export const BASELINE = 310_232;
/** The target: 300 KB (1 KB = 1,000 bytes). */
export const TARGET = 300_000;
// Until the target was met the budget was BASELINE + 2 %; once BASELINE is at or
// under the target, the budget is the target.
export const BUDGET = Number(process.env.SIZE_BUDGET) || (BASELINE <= TARGET ? TARGET : Math.round(BASELINE * 1.02));

const dist = resolve(process.argv[2] || join(import.meta.dirname, '..', 'dist'));
const { rows, total } = firstLoad(dist);
const w = Math.max(...rows.map((r) => r.path.length));
for (const r of rows) {
  const name = r.path.replace(/-[0-9a-f]{6,16}(?=[._])/, '');
  console.log(`  ${r.kind.padEnd(5)} ${name.padEnd(w)} ${String(r.raw).padStart(9)} raw ${String(r.gzip).padStart(8)} gzip${r.kind === 'other' ? '  (not counted)' : ''}`);
}
const worker = rows.filter((r) => /token-worker|pep-markdown/.test(r.path));
const pct = (x) => `${((100 * x) / BUDGET).toFixed(1)} %`;
console.log(`first load: ${total} bytes gzip -9 (budget ${BUDGET} = ${pct(total)}; target ${TARGET})`);
let ok = true;
if (total > BUDGET) {
  console.error(`FAIL: the first load is ${total - BUDGET} bytes over its budget of ${BUDGET} (gzip -9). See bench/SIZE.md for what the bytes are.`);
  ok = false;
}
if (worker.length) {
  console.error(`FAIL: the first load references on-demand modules (tokenizer worker, Markdown): ${worker.map((r) => r.path).join(', ')}`);
  ok = false;
}
if (ok) console.log('size-gate: 1 passed, 0 failed');
else console.log('size-gate: 0 passed, 1 failed');
process.exit(ok ? 0 : 1);

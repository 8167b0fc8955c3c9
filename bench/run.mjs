// Runs the browser benchmarks against dist/ and prints one line per figure
// against its budget (PASS/FAIL/INFO), then a table; writes everything to
// target/bench/results.json. Reports only: exits 0 even when a budget is
// missed (non-zero only when the bench itself cannot run).
//
// Usage: node bench/run.mjs [--only size,sbs,load,budget-tab,tokenizer,big,huge,opening,replan]
// Expects target/bench/ inputs from bench/gen.mjs and (for budget 6)
// target/bench/replan.json from bench/replan (scripts/bench.sh does both).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { bigDocument, hugeDocuments } from './bigdoc.mjs';
import { DATA, PORT, Results, launch, root, useServer } from './lib.mjs';
import { budgetTab, firstRender } from './load.mjs';
import { openingBig } from './open-big.mjs';
import { startServer } from './serve.mjs';
import { sideBySide, standinDir } from './sidebyside.mjs';
import { sizes } from './size.mjs';
import { tokenizer } from './tokenizer.mjs';

const args = process.argv.slice(2);
const only = args.includes('--only') ? args[args.indexOf('--only') + 1].split(',') : null;
const want = (name) => !only || only.includes(name);

const started = Date.now();
// BENCH_DIST=dist-other: measure another build (an A/B run against a stash of main).
const DIST = process.env.BENCH_DIST || 'dist';
const load0 = loadavg();
let chromiumVersion = '?';
try { chromiumVersion = execFileSync(process.env.CHROMIUM || '/usr/bin/chromium', ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim(); } catch { /* reported as ? */ }
console.log(`load average at start: ${load0.map((x) => x.toFixed(2)).join(' ')} (1/5/15 min) on ${cpus().length} cores; node ${process.version}; ${chromiumVersion}`);
console.log(`${DIST}: ${readdirSync(join(root, DIST)).filter((f) => /\.(js|wasm|css|html)$/.test(f)).join(' ')}`);

for (const f of ['big.envelope.json', 'big100k.envelope.json', 'one-message-100k.envelope.json', 'mixed-10mb.txt', 'chat-360.json', 'long-runs.json', 'long-runs.txt']) {
  if (!existsSync(join(DATA, f))) {
    console.error(`missing ${join(DATA, f)}: run node bench/gen.mjs first (scripts/bench.sh does)`);
    process.exit(2);
  }
}

const results = new Results();
const server = await startServer(join(root, DIST), PORT, {
  '/__bench/node_modules/': join(root, 'bench/node_modules'),
  '/__bench/data/': DATA,
  '/__bench/': join(root, 'bench'),
});
useServer(server);

const sections = [
  ['size', 'budgets 1 and 7a: first-load transfer, worker size', (b) => sizes(results, b), 1],
  ['sbs', 'issue 11: side by side with the React stand-in (one interleaved run)', (b) => {
    const standin = standinDir(root);
    if (!standin) throw new Error('the React stand-in is not built (scripts/bench.sh builds it into target/react-standin)');
    return sideBySide(results, b, { standin, ours: join(root, DIST) });
  }, 2],
  ['load', 'budget 2: first render of / and /demo/f', (b) => firstRender(results, b), 2],
  ['budget-tab', 'budget 7b: Budget tab to first counts, cold', (b) => budgetTab(results, b), 7],
  ['tokenizer', 'budgets 4 and 5: tokenizer worker vs gpt-tokenizer', (b) => tokenizer(results, b), 4],
  ['big', 'budget 3 (and 6 in the browser): the 2,000-message envelope', (b) => bigDocument(results, b), 3],
  ['huge', 'budget 3: the window at 100,000 segments (10,000 messages; one message)', (b) => hugeDocuments(results, b), 3],
  ['opening', 'issue 12: opening 100,000 segments without freezing (≤ 5 MB and > 5 MB), and the Budget tab', (b) => openingBig(results, b), 3],
];
for (const [name, title, fn, budget] of sections) {
  if (!want(name)) continue;
  console.log(`\n== ${title}`);
  const t = Date.now();
  let browser;
  try {
    browser = await launch();
    await fn(browser);
  } catch (e) {
    results.error(budget, title, e);
    console.error(String(e.stack || e).split('\n').slice(0, 6).join('\n'));
  } finally {
    await browser?.close().catch(() => {});
  }
  console.log(`   (${((Date.now() - t) / 1000).toFixed(1)} s)`);
}
server.close();

// Budget 6: the native re-plan bench's answer (bench/replan).
if (want('replan')) {
  console.log('\n== budget 6: re-plan at 2,000 parts (native, release)');
  const file = join(DATA, 'replan.json');
  if (!existsSync(file)) {
    results.error(6, 'Re-plan at 2,000 parts', new Error(`${file} is missing (scripts/bench.sh makes it)`));
  } else {
    const r = JSON.parse(readFileSync(file, 'utf8'));
    const [main, ...rest] = r.cases;
    results.add({
      id: 'replan-median', budget: 6, name: `Re-plan, ${r.parts} parts, ${main.case}: median of ${r.runs}`, value: main.median_us / 1000, unit: 'ms', limit: 2, cmp: '<',
      note: `${main.median_us.toFixed(1)} µs; mean ${main.mean_us.toFixed(1)} µs, max ${main.max_us.toFixed(1)} µs, ${main.kept} parts kept of ${r.parts} (${r.total_tokens} tokens)`,
    });
    results.add({ id: 'replan-p99', budget: 6, name: `Re-plan, ${r.parts} parts: p99 of ${r.runs}`, value: main.p99_us / 1000, unit: 'ms', limit: 2, cmp: '<', note: `${main.p99_us.toFixed(1)} µs` });
    results.add({ id: 'replan-other', budget: 6, name: 'Re-plan, other limits/steps: worst p99', value: Math.max(...rest.map((c) => c.p99_us)) / 1000, unit: 'ms', note: rest.map((c) => `${c.case}: median ${c.median_us.toFixed(1)} µs, p99 ${c.p99_us.toFixed(1)} µs`).join('; ') });
  }
}

// Budget 3, native: the steps of opening the big envelope (bench/replan's load_stages).
if (want('big') || want('replan')) {
  const file = join(DATA, 'load-stages.json');
  if (existsSync(file)) {
    const r = JSON.parse(readFileSync(file, 'utf8'));
    const total = r.stages.reduce((n, s) => n + s.ms, 0);
    results.add({
      id: 'big-load-stages-native', budget: 3, name: 'Big envelope, native opt-level 3: the synchronous steps of opening it (Doc::load + save)', value: Math.round(total), unit: 'ms',
      note: `${r.stages.map((s) => `${s.stage} ${s.ms.toFixed(0)}`).join('; ')}; texts built at load: OpenAI ${(r.openai_text_bytes / 1e6).toFixed(1)} MB, raw ${(r.raw_text_bytes / 1e6).toFixed(1)} MB`,
      detail: r,
    });
  }
}

const load1 = loadavg();
const rows = [...results.rows].sort((a, b) => (a.budget ?? 99) - (b.budget ?? 99));
results.rows = rows;
const fails = rows.filter((r) => r.status === 'FAIL' || r.status === 'ERROR');
console.log(`\n== results (KB = 1,000 bytes, MB = 1,000,000 bytes)\n${results.table()}`);
console.log(`\nload average at start ${load0.map((x) => x.toFixed(2)).join(' ')}, at end ${load1.map((x) => x.toFixed(2)).join(' ')}; ${((Date.now() - started) / 1000).toFixed(0)} s`);
if (results.sideBySide) console.log(`\n== side by side with the React stand-in (issue 11), from the same run\n${results.sideBySide.print()}`);
console.log(fails.length ? `${fails.length} figure(s) over budget or not measured: ${fails.map((r) => r.id).join(', ')}` : 'every budgeted figure is within budget');
if (results.notes.length) console.log(`notes:\n${results.notes.map((n) => `  - ${n}`).join('\n')}`);

writeFileSync(join(DATA, DIST === 'dist' ? 'results.json' : `results-${DIST}.json`), JSON.stringify({
  date: new Date().toISOString(),
  machine: { cores: cpus().length, node: process.version, chromium: chromiumVersion, loadavg_start: load0, loadavg_end: load1 },
  dist: readdirSync(join(root, DIST)).filter((f) => /\.(js|wasm|css|html)$/.test(f)),
  seconds: Math.round((Date.now() - started) / 1000),
  results: rows,
  notes: results.notes,
}, null, 2));
console.log(`wrote ${join(DATA, DIST === 'dist' ? 'results.json' : `results-${DIST}.json`)}`);

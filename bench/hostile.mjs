// Times `pep validate`, `pep export` and `pep truncate` on every input of
// bench/hostile-gen.mjs (issue #12): budget ≤ 2 s each (release build).
// Median of 3 wall-clock runs; prints one line per figure
// (PASS/FAIL/ERROR) and writes OUT_DIR/results.json.
//
// Usage: node bench/hostile.mjs PEP_BINARY OUT_DIR
//   (OUT_DIR holds the inputs: node bench/hostile-gen.mjs OUT_DIR)
import { spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const [pep, dir] = process.argv.slice(2);
if (!pep || !dir) {
  console.error('usage: node bench/hostile.mjs PEP_BINARY OUT_DIR');
  process.exit(1);
}
const BUDGET_S = 2;
const files = readdirSync(dir).filter((f) => f.endsWith('.json') && f !== 'results.json').sort();
const commands = {
  validate: (f) => ['validate', f],
  export: (f) => ['export', f],
  truncate: (f) => ['truncate', '--limit', '1000', f],
};

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = [];
for (const file of files) {
  for (const [name, args] of Object.entries(commands)) {
    const samples = [];
    let status = null;
    let stderr = '';
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      const r = spawnSync(pep, args(join(dir, file)), { maxBuffer: 1 << 30, stdio: ['ignore', 'ignore', 'pipe'] });
      samples.push((performance.now() - t) / 1000);
      status = r.status;
      stderr = r.stderr?.toString() ?? '';
      // One sample is enough to see a budget blown several times over.
      if (samples[0] > 5 * BUDGET_S) break;
    }
    const s = median(samples);
    // Exit 0 (valid) or 1 (the escape documents with errors): anything else,
    // or a crash, is an error of the bench.
    const ok = status === 0 || status === 1;
    const verdict = !ok ? 'ERROR' : s <= BUDGET_S ? 'PASS' : 'FAIL';
    rows.push({ file, command: name, seconds: Math.round(s * 1000) / 1000, exit: status, status: verdict, stderrBytes: stderr.length });
    console.log(`${verdict.padEnd(5)} pep ${name.padEnd(8)} ${file.padEnd(26)} ${s.toFixed(2)} s (≤ ${BUDGET_S} s, exit ${status})`);
  }
}
writeFileSync(join(dir, 'results.json'), JSON.stringify({ budgetSeconds: BUDGET_S, rows }, null, 2));
const over = rows.filter((r) => r.status !== 'PASS');
console.log(over.length ? `${over.length} CLI run(s) over budget or failed` : 'every CLI run within budget');

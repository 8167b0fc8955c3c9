// Budgets 1 and 7a: what the first load transfers (gzip -9 of the files
// index.html references), that loading `/` fetches no tokenizer worker file,
// and the worker + vocabulary size.
import { join } from 'node:path';
import { firstLoad, gz } from './first-load.mjs';
import { BASE, freshPage, root, state } from './lib.mjs';

const KB = 1000;

export async function sizes(results, browser) {
  const dist = join(root, 'dist');
  const { rows, counted, total } = firstLoad(dist);
  const bad = counted.filter((r) => /token-worker/.test(r.path));
  console.log('  first-load files (gzip -9 bytes):');
  for (const r of rows) console.log(`    ${r.kind.padEnd(5)} ${r.path.padEnd(40)} ${String(r.raw).padStart(9)} raw ${String(r.gzip).padStart(9)} gz${r.kind === 'other' ? ' (not counted)' : ''}`);
  results.add({
    id: 'first-load-gzip', budget: 1, name: 'First-load transfer, gzip -9 (html+js+wasm+css)', value: total / KB, unit: 'KB', limit: 250,
    note: counted.map((r) => `${r.path.replace(/-[0-9a-f]{12,}(?=[._])/, '')} ${(r.gzip / KB).toFixed(1)}`).join(', ') + (bad.length ? `; REFERENCES ${bad.map((r) => r.path).join(', ')}` : ''),
    detail: rows,
  });

  // What loading `/` really fetches, in a fresh context.
  const { context, page } = await freshPage(browser);
  const requests = [];
  const logStart = state.server ? state.server.log.length : 0;
  page.on('request', (r) => requests.push({ url: r.url().replace(BASE, ''), type: r.resourceType() }));
  const finished = [];
  page.on('requestfinished', async (r) => {
    try { finished.push({ url: r.url().replace(BASE, ''), ...(await r.sizes()) }); } catch { /* closed */ }
  });
  await page.goto(`${BASE}/`);
  await page.locator('[data-kind]').first().waitFor();
  await page.waitForLoadState('networkidle');
  await page.waitForTimeout(500);
  // Both what the browser reports and what the server saw (worker fetches included).
  const served = state.server ? state.server.log.slice(logStart) : [];
  const workers = [...requests.map((r) => r.url), ...served].filter((u) => /token-worker/.test(u));
  console.log('  requests when loading / :');
  for (const r of requests) console.log(`    ${r.type.padEnd(10)} ${r.url}`);
  const wire = finished.reduce((n, f) => n + (f.responseBodySize || 0), 0);
  results.add({
    id: 'first-load-worker-requests', budget: 1, name: 'token-worker* requests when loading /', value: workers.length, unit: 'requests', limit: 0,
    note: `${requests.length} requests: ${requests.map((r) => r.url.replace(/-[0-9a-f]{12,}(?=[._])/, '')).join(' ')}; the server saw ${served.length}: ${served.map((u) => u.replace(/-[0-9a-f]{12,}(?=[._])/, '')).join(' ')}`, detail: { requests, served },
  });
  results.add({ id: 'first-load-wire', budget: 1, name: 'First load of / on the wire (response bodies, incl. demo JSON, icon)', value: wire / KB, unit: 'KB' });
  await context.close();

  // The worker and its vocabulary.
  const wfiles = ['token-worker.js', 'token-worker_bg.wasm', 'token-worker_loader.js'];
  const wsizes = wfiles.map((f) => gz(join(dist, f)));
  results.add({
    id: 'worker-gzip', budget: 7, name: 'Worker + vocabulary, gzip -9', value: wsizes.reduce((a, b) => a + b, 0) / 1e6, unit: 'MB', limit: 1.6,
    note: wfiles.map((f, i) => `${f} ${(wsizes[i] / KB).toFixed(1)} KB`).join(', '),
  });
}

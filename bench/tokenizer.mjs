// Budgets 4 and 5: the tokenizer worker of the app against gpt-tokenizer
// (o200k_base), both in module workers of the same page of the served app,
// same browser, same inputs.
import { BASE, freshPage, median, round } from './lib.mjs';

/** Installed in the page: spawns a worker speaking `{id, texts, ids}` → `{id, lens, ms}`. */
function install() {
  window.__spawn = async (name, url) => {
    const t0 = performance.now();
    const w = new Worker(url, { type: 'module' });
    await new Promise((ok, fail) => {
      w.onmessage = (e) => { if (e.data === 'ready') ok(); };
      w.onerror = (e) => fail(new Error(`${url}: ${e.message || 'worker error'}`));
    });
    let next = 0;
    const ask = (texts, ids = false) => new Promise((ok, fail) => {
      const id = ++next;
      const s = performance.now();
      w.onmessage = (e) => {
        if (e.data?.id !== id) return;
        if (e.data.error) fail(new Error(e.data.error));
        const lens = Array.from(e.data.lens);
        ok({ ms: e.data.ms, wall: performance.now() - s, tokens: lens.reduce((a, b) => a + b, 0), lens, ids: e.data.tokens ? e.data.tokens.length : undefined });
      };
      w.postMessage({ id, texts, ids });
    });
    (window.__workers ??= {})[name] = { w, ask };
    return performance.now() - t0;
  };
  window.__texts = {};
  window.__load = async (name, url, json) => {
    const r = await fetch(url);
    window.__texts[name] = json ? await r.json() : await r.text();
    const v = window.__texts[name];
    return typeof v === 'string' ? v.length : v.length;
  };
  window.__ask = (worker, text, ids = false) => {
    const t = window.__texts[text];
    return window.__workers[worker].ask(Array.isArray(t) ? t : [t], ids);
  };
}

export async function tokenizer(results, browser, { runs = 3 } = {}) {
  const { context, page } = await freshPage(browser);
  await page.goto(`${BASE}/`);
  await page.locator('[data-kind]').first().waitFor();
  await page.waitForLoadState('networkidle');
  await page.evaluate(install);
  const ask = (w, t, ids = false) => page.evaluate(([w, t, ids]) => window.__ask(w, t, ids), [w, t, ids]);

  const appReady = await page.evaluate(() => window.__spawn('app', '/token-worker_loader.js'));
  const gptReady = await page.evaluate(() => window.__spawn('gpt', '/__bench/gpt-worker.mjs'));
  results.add({ id: 'worker-ready', budget: 4, name: 'App worker: spawn → "ready" (fetch, compile, vocabulary), warm HTTP', value: round(appReady), unit: 'ms', note: `gpt-tokenizer worker: ${Math.round(gptReady)} ms` });

  await page.evaluate(() => Promise.all([
    window.__load('mixed', '/__bench/data/mixed-10mb.txt'),
    window.__load('chat', '/__bench/data/chat-360.json', true),
    window.__load('runs3', '/__bench/data/long-runs.json', true),
    window.__load('runs1', '/__bench/data/long-runs.txt'),
  ]));
  const bytes = await page.evaluate(() => new TextEncoder().encode(window.__texts.mixed).length);

  // Budget 5 first: the chat, first request to the worker, then warm.
  const chat = [];
  for (let i = 0; i < 6; i++) chat.push(await ask('app', 'chat'));
  const chatIds = [];
  for (let i = 0; i < 3; i++) chatIds.push(await ask('app', 'chat', true));
  const gptChat = [];
  for (let i = 0; i < 3; i++) gptChat.push(await ask('gpt', 'chat'));

  // Budget 4: 10 MB, alternating so both see the same machine load.
  const app = [], gpt = [];
  for (let i = 0; i < runs; i++) {
    app.push(await ask('app', 'mixed'));
    gpt.push(await ask('gpt', 'mixed'));
  }
  const appIds = await ask('app', 'mixed', true);

  // Budget 5b: long unbroken runs.
  const runs1 = [], runs3 = [], gptRuns3 = [];
  for (let i = 0; i < 3; i++) {
    runs1.push(await ask('app', 'runs1'));
    runs3.push(await ask('app', 'runs3'));
    gptRuns3.push(await ask('gpt', 'runs3'));
  }
  const errors = page.errors;
  await context.close();

  // ---- report ----
  const tps = (r) => r.tokens / (r.ms / 1000);
  const appTps = median(app.map(tps)), gptTps = median(gpt.map(tps));
  const same = app[0].tokens === gpt[0].tokens;
  results.add({
    id: 'tok-app-tps', budget: 4, name: `App worker throughput, ${(bytes / 1e6).toFixed(1)} MB mixed text (worker ms), median of ${runs}`,
    value: round(appTps / 1e6, 2), unit: 'M tok/s',
    note: `${app[0].tokens.toLocaleString('en-US')} tokens; worker ms ${app.map((r) => Math.round(r.ms)).join('/')}, wall (incl. postMessage) ${app.map((r) => Math.round(r.wall)).join('/')}; ${(bytes / 1e6 / (median(app.map((r) => r.ms)) / 1000)).toFixed(1)} MB/s`,
  });
  results.add({
    id: 'tok-gpt-tps', budget: 4, name: 'gpt-tokenizer 4.0.0 throughput, same text, same browser (worker ms)', value: round(gptTps / 1e6, 2), unit: 'M tok/s',
    note: `${gpt[0].tokens.toLocaleString('en-US')} tokens; worker ms ${gpt.map((r) => Math.round(r.ms)).join('/')}, wall ${gpt.map((r) => Math.round(r.wall)).join('/')}`,
  });
  results.add({ id: 'tok-ratio', budget: 4, name: 'Tokenizer speed ratio, app worker / gpt-tokenizer', value: round(appTps / gptTps, 2), unit: '×', limit: 2.5, cmp: '>=' });
  results.add({
    id: 'tok-same-count', budget: 4, name: 'Same token count as gpt-tokenizer on the 10 MB text', value: same ? 1 : 0, unit: same ? '(yes)' : '(NO)', limit: 1, cmp: '>=',
    note: same ? `${app[0].tokens} tokens` : `app ${app[0].tokens} vs gpt-tokenizer ${gpt[0].tokens} (diff ${app[0].tokens - gpt[0].tokens})`,
  });
  results.add({
    id: 'tok-app-ids', budget: 4, name: 'App worker with ids (encode + pieces, as the Budget tab asks), 10 MB', value: round(tps(appIds) / 1e6, 2), unit: 'M tok/s',
    note: `worker ${Math.round(appIds.ms)} ms, wall ${Math.round(appIds.wall)} ms, ${appIds.ids} ids`,
  });

  const chatTokens = chat[0].tokens;
  results.add({
    id: 'chat-recount', budget: 5, name: `Chat recount, ${chatTokens.toLocaleString('en-US')} tokens in ${chat[0].lens.length} strings, 2nd run (worker ms)`, value: round(chat[1].ms, 2), unit: 'ms', limit: 5,
    note: `runs 1–6: ${chat.map((r) => r.ms.toFixed(1)).join('/')} ms (wall ${chat.map((r) => r.wall.toFixed(1)).join('/')}); with ids: ${chatIds.map((r) => r.ms.toFixed(1)).join('/')} ms; gpt-tokenizer: ${gptChat.map((r) => r.ms.toFixed(1)).join('/')} ms (${gptChat[0].tokens} tokens${gptChat[0].tokens === chatTokens ? ', same' : ', DIFFERENT'})`,
  });
  results.add({
    id: 'chat-recount-ids', budget: 5, name: 'Chat recount with ids (what the Budget tab asks), 2nd run', value: round(chatIds[1].ms, 2), unit: 'ms',
  });
  const runsNote = (rs) => `runs ${rs.map((r) => r.ms.toFixed(1)).join('/')} ms, ${rs[0].tokens} tokens (lens ${rs[0].lens.join('+')})`;
  results.add({
    id: 'long-runs-1', budget: 5, name: 'Long runs (20k letters + 20k CJK + 5k spaces, 85 KB) as one string, median of 3', value: round(median(runs1.map((r) => r.ms)), 1), unit: 'ms', limit: 50,
    note: runsNote(runs1),
  });
  results.add({
    id: 'long-runs-3', budget: 5, name: 'Long runs as three strings, median of 3', value: round(median(runs3.map((r) => r.ms)), 1), unit: 'ms', limit: 50,
    note: `${runsNote(runs3)}; gpt-tokenizer ${gptRuns3.map((r) => r.ms.toFixed(1)).join('/')} ms, ${gptRuns3[0].tokens} tokens${gptRuns3[0].tokens === runs3[0].tokens ? ' (same)' : ' (DIFFERENT)'}`,
  });
  if (errors.length) results.note(`page errors during the tokenizer bench: ${[...new Set(errors)].join(' | ')}`);
}

// The Calls view (issue 22): files of many recorded model calls — traces
// made by the real instrumentation packages (crates/envelope/tests/fixtures/
// traces, SOURCES.md), whose sent.jsonl holds what each SDK really sent and
// the reply it was given — read in the engine, listed in a windowed table,
// opened one at a time in the viewer, compared with the previous call.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { callsJsonl } from '../../bench/calls-gen.mjs';
import { test, BASE, DIST, root, shotDir, newPage, settle, axe, paste } from './helpers.mjs';

const TRACES = join(root, 'crates/envelope/tests/fixtures/traces');
const run = (name) => join(TRACES, name);
const sent = (name) => readFileSync(join(TRACES, name, 'sent.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));

/** What a row shows of a body's last user text (envelope::recorded::one_line, 160 characters). */
function lastUser(body) {
  const user = [...body.messages].reverse().find((m) => m.role === 'user');
  if (!user) return null;
  const text = typeof user.content === 'string' ? user.content : [...user.content].reverse().find((p) => p.type === 'text')?.text;
  if (text == null) return null;
  const words = text.split(/\s+/).filter(Boolean).join(' ');
  const chars = [...words];
  return chars.length > 160 ? `${chars.slice(0, 160).join('')}…` : words;
}

/** Opens `files` through "Open…" from the first demo and waits for the whole recording. */
async function openCalls(page, files, { done = true } = {}) {
  await page.goto(`${BASE}/`);
  await page.locator('[data-message-id]').first().waitFor();
  await page.getByTestId('open-file').setInputFiles(files);
  await page.waitForURL(`${BASE}/calls`);
  await page.locator('[data-testid=calls-table] tbody tr[data-index]').first().waitFor({ timeout: 60000 });
  if (done) await page.locator('[data-testid=calls-progress]').waitFor({ state: 'detached', timeout: 120000 });
  await settle(page);
}

/** Every row of the table, in order: scrolled from top to bottom (the table is windowed). */
async function tableRows(page) {
  const rows = new Map();
  await page.evaluate(() => { document.querySelector('[data-testid=calls-scroll]').scrollTop = 0; });
  for (let i = 0; i < 2000; i++) {
    await settle(page);
    const { seen, end } = await page.evaluate(() => {
      const sc = document.querySelector('[data-testid=calls-scroll]');
      const seen = [...sc.querySelectorAll('tbody tr[data-index]')].map((tr) => {
        const td = (c) => tr.querySelector(`td.${c}`);
        return {
          pos: Number(tr.dataset.pos), index: Number(tr.dataset.index), n: td('c-num').textContent,
          start: td('c-start').textContent, trace: td('c-trace').title, provider: td('c-provider').textContent,
          model: td('c-model').textContent, numbers: [...tr.querySelectorAll('td.c-n')].map((d) => d.textContent),
          text: td('c-text').textContent, uncaptured: tr.classList.contains('uncaptured'),
        };
      });
      return { seen, end: sc.scrollTop + sc.clientHeight >= sc.scrollHeight - 1 };
    });
    for (const r of seen) rows.set(r.pos, r);
    if (end) break;
    await page.evaluate(() => { const sc = document.querySelector('[data-testid=calls-scroll]'); sc.scrollTop += sc.clientHeight * 0.8; });
  }
  return [...rows.keys()].sort((a, b) => a - b).map((k) => rows.get(k));
}

const rendered = (page) => page.locator('[data-testid=calls-table] tbody tr[data-index]').count();
const ariaSort = (page, col) => page.locator(`th:has(button.sort[data-col="${col}"])`).getAttribute('aria-sort');

test('calls: a trace and its logs opened together list every call the SDK sent — its model, trace, last user text — with the summary', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  const name = 'otel-openai-v2-events';
  const requests = sent(name);
  await openCalls(page, [join(run(name), 'traces.jsonl'), join(run(name), 'logs.jsonl')]);
  assert.equal(await page.title(), 'Calls · Prompt Envelope');
  assert.match(await page.locator('#calls-title').textContent(), /traces\.jsonl and logs\.jsonl/);
  const rows = await tableRows(page);
  assert.equal(rows.length, requests.length, 'one row per request the SDK sent');
  assert.equal(await page.getByTestId('calls-shown').textContent(), `${requests.length} calls`);
  assert.ok((await page.getByTestId('calls-count').textContent()).startsWith(`${requests.length} calls`));
  // By start time, as the requests were sent; each with what was sent.
  const starts = rows.map((r) => r.start);
  assert.deepEqual(starts, [...starts].sort(), 'sorted by start time');
  assert.equal(await ariaSort(page, 'Start (UTC)'), 'ascending');
  const bySent = [...requests].sort((a, b) => (BigInt(a.timeUnixNano) < BigInt(b.timeUnixNano) ? -1 : 1));
  assert.deepEqual(rows.map((r) => r.trace), bySent.map((q) => q.traceId), 'trace ids in the order sent');
  assert.deepEqual(rows.map((r) => r.model), bySent.map((q) => q.body.model));
  assert.deepEqual(rows.map((r) => r.text), bySent.map((q) => lastUser(q.body) ?? '(no user text)'));
  assert.deepEqual(rows.map((r) => r.provider), bySent.map(() => 'openai'));
  // Messages as sent; input tokens as the instrumentation recorded them.
  assert.deepEqual(rows.map((r) => Number(r.numbers[0])), bySent.map((q) => q.body.messages.length));
  assert.ok(rows.every((r) => /^\d[\d,]*$/.test(r.numbers[1])), 'input tokens recorded for every call');
  assert.ok(rows.every((r) => /^\d[\d,]*$/.test(r.numbers[2])), 'input tokens counted by us for every call');
  assert.ok(rows.every((r) => / ms$| s$/.test(r.numbers[3])), 'durations');
  // The summary: our count is the column's sum; the calls that follow
  // another of their trace (the tool-call turns send their start again),
  // and how much of their prompt the previous call's cache could serve
  // (the figures crates/token-worker/tests/recorded.rs computes).
  const num = (t) => Number(t.replace(/,/g, ''));
  const counted = rows.reduce((a, r) => a + num(r.numbers[2]), 0);
  assert.match(await page.getByTestId('calls-counted').textContent(), new RegExp(`^as we count them: ${counted.toLocaleString('en-US')} in all, [\\d,]+ per call \\(median\\)$`));
  assert.equal(await page.getByTestId('calls-reuse').textContent(),
    "the previous call's cache could serve 186 of the 430 tokens of the 4 calls that follow another (43%)");
  // The chart: one bar per call (fewer than 60), each titled.
  assert.equal(await page.locator('[data-testid=calls-chart] rect').count(), requests.length);
  assert.ok((await page.locator('[data-testid=calls-chart] svg').getAttribute('aria-label')).startsWith('Input tokens per call'));
  // The header links to the recording from anywhere.
  await page.goto(`${BASE}/demo/b`);
  await page.locator('[data-message-id]').first().waitFor();
  assert.equal(await page.getByTestId('nav-calls').count(), 0, 'a reload forgets the recording (it is the engine’s)');
  await page.goBack();
  await page.getByTestId('calls-none').waitFor();
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('calls: sort by a header (aria-sort, again to reverse), filter by words in any case, a row per match, "no call matches"', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  const name = 'otel-openai-v2-latest-span';
  const requests = sent(name);
  await openCalls(page, [join(run(name), 'traces.jsonl')]);
  await page.locator('button.sort[data-col="Input tokens"]').click();
  await settle(page);
  assert.equal(await ariaSort(page, 'Input tokens'), 'descending', 'numbers sort largest first');
  assert.equal(await ariaSort(page, 'Start (UTC)'), 'none');
  let rows = await tableRows(page);
  const tokens = rows.map((r) => Number(r.numbers[1].replace(/,/g, '')));
  assert.deepEqual(tokens, [...tokens].sort((a, b) => b - a));
  await page.locator('button.sort[data-col="Input tokens"]').click();
  await settle(page);
  assert.equal(await ariaSort(page, 'Input tokens'), 'ascending');
  rows = await tableRows(page);
  const up = rows.map((r) => Number(r.numbers[1].replace(/,/g, '')));
  assert.deepEqual(up, [...up].sort((a, b) => a - b));
  await page.locator('button.sort[data-col="Model"]').click();
  await settle(page);
  rows = await tableRows(page);
  assert.deepEqual(rows.map((r) => r.model), [...rows.map((r) => r.model)].sort());
  // Filter: a model in capitals, then two words that must both match.
  const mini = requests.filter((q) => q.body.model.includes('4o-mini')).length;
  assert.ok(mini > 0 && mini < requests.length);
  await page.getByTestId('calls-filter').fill('GPT-4O-MINI');
  await page.getByTestId('calls-shown').filter({ hasText: `${mini} of ${requests.length} calls` }).waitFor();
  rows = await tableRows(page);
  assert.equal(rows.length, mini);
  assert.ok(rows.every((r) => r.model.includes('4o-mini')));
  const paris = requests.filter((q) => q.body.model.includes('4o-mini') && (lastUser(q.body) || '').includes('Paris')).length;
  await page.getByTestId('calls-filter').fill('4o-mini paris');
  await page.getByTestId('calls-shown').filter({ hasText: `${paris} of ${requests.length} calls` }).waitFor();
  await page.getByTestId('calls-filter').fill('nothing-like-this');
  await page.getByTestId('calls-no-match').waitFor();
  assert.equal(await rendered(page), 0);
  await page.getByTestId('calls-filter').fill('');
  await page.getByTestId('calls-shown').filter({ hasText: new RegExp(`^${requests.length} calls$`) }).waitFor();
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('calls: opening a call shows its request in the viewer and the recorded reply as output (not in the export); Previous / Next walk the list; Back keeps the place; Compare with the previous call of the trace', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  const name = 'otel-openai-v2-events';
  const bySent = sent(name).sort((a, b) => (BigInt(a.timeUnixNano) < BigInt(b.timeUnixNano) ? -1 : 1));
  await openCalls(page, [join(run(name), 'traces.jsonl'), join(run(name), 'logs.jsonl')]);
  // A trace with two calls (a tool round): open its second call.
  const k = bySent.findIndex((q, i) => i > 0 && bySent[i - 1].traceId === q.traceId);
  assert.ok(k > 0, 'the run has a trace of two calls');
  const row = page.locator(`[data-testid=calls-table] tbody tr[data-pos="${k}"]`);
  const n = Number(await row.getAttribute('data-index')) + 1;
  await row.locator('td.c-model').click();
  await page.waitForURL(`${BASE}/calls/${n}`);
  assert.equal(await page.title(), `Call ${n} · Prompt Envelope`);
  await page.getByTestId('call-position').filter({ hasText: `Call ${k + 1} of ${bySent.length}` }).waitFor();
  await page.locator('[data-message-id]').first().waitFor({ timeout: 30000 });
  // The request as sent: its messages, and the user's last text.
  const body = bySent[k].body;
  assert.equal(await page.locator('.conversation .messages > [data-message-id]').count(), body.messages.length);
  assert.ok((await page.locator('.conversation ol.messages').textContent()).includes(lastUser(body).slice(0, 40)));
  // The reply the fake provider gave, shown after the conversation as output.
  const out = page.getByTestId('call-output');
  await out.waitFor();
  const reply = bySent[k].reply;
  if (reply.kind === 'text') assert.ok((await out.textContent()).includes(reply.text.slice(0, 40)), await out.textContent());
  assert.ok((await out.textContent()).includes('not part of the request'));
  assert.equal(await out.locator('[data-testid=output-message] .badge', { hasText: 'output' }).count(), await out.getByTestId('output-message').count());
  // Not in the export.
  await page.locator('.pane.right').getByText('"model"').first().waitFor({ timeout: 30000 });
  const exported = await page.locator('.pane.right').textContent();
  if (reply.kind === 'text') assert.ok(!exported.includes(reply.text.slice(0, 40)), 'the reply is not in the export');
  assert.ok((await page.getByTestId('call-facts').textContent()).includes(body.model));
  // Previous and Next follow the table's order.
  await page.getByTestId('call-next').click();
  await page.getByTestId('call-position').filter({ hasText: `Call ${k + 2} of ${bySent.length}` }).waitFor();
  await page.getByTestId('call-prev').click();
  await page.getByTestId('call-position').filter({ hasText: `Call ${k + 1} of ${bySent.length}` }).waitFor();
  await page.waitForURL(`${BASE}/calls/${n}`);
  // Back: the table, this call's row focused.
  await page.getByTestId('call-back').click();
  await page.waitForURL(`${BASE}/calls`);
  await page.waitForFunction((p) => document.activeElement?.closest('tr')?.dataset.pos === String(p), k);
  // Compare with the previous call: the previous call of the same trace.
  await page.locator(`tr[data-pos="${k}"] a`).press('Enter');
  await page.waitForURL(`${BASE}/calls/${n}`);
  await page.locator('[data-message-id]').first().waitFor({ timeout: 30000 });
  await page.getByTestId('call-compare').click();
  await page.waitForURL(`${BASE}/diff`);
  await page.getByTestId('compare-result').waitFor({ timeout: 60000 });
  const before = await page.getByTestId('compare-before-select').locator('option:checked').textContent();
  const after = await page.getByTestId('compare-after-select').locator('option:checked').textContent();
  assert.match(before, /^Pasted or opened: call \d+$/);
  assert.equal(after, `Pasted or opened: call ${n}`);
  assert.equal(await page.locator('[data-testid=compare-row]').count(), body.messages.length, 'every message of the later call');
  assert.ok(await page.locator('[data-testid=compare-row][data-status=added]').count() > 0, 'the tool round added messages');
  assert.ok((await page.getByTestId('compare-sentence').textContent()).length > 0);
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('calls: one request recorded by two instrumentations (OpenLLMetry and the Anthropic SDK\'s own span) is listed once, with a notice', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  const name = 'openllmetry-anthropic';
  const requests = sent(name);
  await openCalls(page, [join(run(name), 'traces.jsonl')]);
  await page.getByTestId('calls-shown').filter({ hasText: new RegExp(`^${requests.length} calls$`) }).waitFor();
  // The count reaches one per request when the fold's answer arrives; the rows
  // it updated (the kept one's notice) are painted in the frames after it.
  let rows = [];
  for (let tries = 0; tries < 60; tries++) {
    rows = await tableRows(page);
    if (rows.length === requests.length && rows.every((r) => r.numbers[4] === '1')) break;
    await page.waitForTimeout(250);
  }
  assert.equal(rows.length, requests.length, 'one row per request sent');
  assert.deepEqual(new Set(rows.map((r) => r.trace)), new Set(requests.map((q) => q.traceId)));
  assert.ok(rows.every((r) => r.numbers[4] === '1'), `each with its notice: recorded twice, listed once: ${JSON.stringify(rows.map((r) => r.numbers))}`);
  await page.locator('tr[data-pos="0"] a').click();
  const findings = page.getByTestId('call-findings');
  await findings.waitFor({ timeout: 30000 });
  await findings.locator('summary').click();
  assert.ok((await findings.textContent()).includes('one request, listed once'));
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('calls: calls recorded without their content are marked in the table, with how to capture it', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  const name = 'otel-openai-v2-no-content';
  await openCalls(page, [join(run(name), 'traces.jsonl')]);
  const rows = await tableRows(page);
  assert.equal(rows.length, sent(name).length);
  assert.ok(rows.every((r) => r.uncaptured && r.text === 'content not captured'), JSON.stringify(rows[0]));
  const capture = await page.getByTestId('calls-capture').textContent();
  assert.ok(capture.includes('OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT'), capture);
  await page.locator('tr[data-pos="0"] a').click();
  const notCaptured = page.getByTestId('call-not-captured');
  await notCaptured.waitFor();
  assert.ok((await notCaptured.textContent()).includes('OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT'));
  assert.equal(await page.locator('.conversation').count(), 0, 'no request to show');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('calls: pasted JSON Lines of bodies open the Calls view (one body pasted keeps the import); unreadable lines are listed with file:line and what', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  await page.goto(`${BASE}/`);
  await page.locator('[data-message-id]').first().waitFor();
  const bodies = callsJsonl(30, 5).trim().split('\n');
  const lines = [...bodies.slice(0, 10), '{"model": "gpt-4o", "messages": [', ...bodies.slice(10)];
  await paste(page, lines.join('\n'));
  await page.waitForURL(`${BASE}/calls`);
  await page.locator('[data-testid=calls-progress]').waitFor({ state: 'detached', timeout: 60000 });
  await page.getByTestId('calls-shown').filter({ hasText: /^30 calls$/ }).waitFor();
  const errors = page.getByTestId('calls-errors');
  await errors.waitFor();
  const text = await errors.textContent();
  assert.ok(text.includes('1 line or file could not be read'), text);
  assert.match(text, /Pasted document:11: /);
  const rows = await tableRows(page);
  assert.deepEqual(rows.map((r) => r.model), bodies.map((b) => JSON.parse(b).model), 'in the order read (no start times)');
  // One request body pasted: today's import, the document view.
  const one = JSON.parse(bodies[0]);
  await paste(page, JSON.stringify(one, null, 2), { loads: true });
  await page.locator('.conversation .messages > [data-message-id]').first().waitFor();
  assert.ok((await page.locator('.conversation').textContent()).includes(one.messages.at(-1).content.slice(0, 30)));
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('calls: a big generated file shows progress and its first rows while it is read, and Cancel stops it (Read again reads it anew)', async ({ browser }) => {
  test.slow();
  const file = join(root, 'target/e2e/calls-40k.jsonl');
  mkdirSync(join(root, 'target/e2e'), { recursive: true });
  writeFileSync(file, callsJsonl(40000, 9));
  const { context, page } = await newPage(browser);
  await openCalls(page, [file], { done: false });
  const progress = page.getByTestId('calls-progress');
  await progress.waitFor();
  assert.match(await progress.textContent(), /Reading calls-40k\.jsonl in the engine .*: [\d.]+ MB of [\d.]+ MB · [\d,]+ calls?/);
  assert.ok(await rendered(page) > 0, 'rows shown while reading');
  assert.ok(Number(await progress.locator('progress').getAttribute('max')) > 1e6, 'the bar counts bytes');
  await page.getByTestId('calls-cancel').click();
  await page.getByTestId('calls-cancelled').waitFor();
  assert.equal(await progress.count(), 0);
  assert.equal(await rendered(page), 0, 'the rows read go with the engine');
  // The engine starts afresh: the file is read again, whole.
  await page.getByTestId('calls-again').click();
  await page.getByTestId('calls-progress').waitFor();
  await page.getByTestId('calls-progress').waitFor({ state: 'detached', timeout: 600000 });
  await page.getByTestId('calls-shown').filter({ hasText: /^40,000 calls$/ }).waitFor();
  // Scrolled to the end: the last call, with the DOM still a window.
  await page.evaluate(() => { const sc = document.querySelector('[data-testid=calls-scroll]'); sc.scrollTop = sc.scrollHeight; });
  await page.locator('tr[data-index="39999"]').waitFor();
  assert.ok(await rendered(page) < 80, `${await rendered(page)} rows in the DOM`);
  await page.locator('tr[data-index="39999"] a').click();
  await page.getByTestId('call-position').filter({ hasText: 'Call 40,000 of 40,000' }).waitFor();
  await page.locator('[data-message-id]').first().waitFor({ timeout: 30000 });
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('calls: keyboard only — Tab to the table, arrows and Page Down move, Enter opens, Next by keyboard, Back returns to the row', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  const name = 'openinference-openai';
  await openCalls(page, [join(run(name), 'traces.jsonl')]);
  const total = Number((await page.getByTestId('calls-shown').textContent()).replace(/\D/g, ''));
  assert.ok(total > 15, `${total} calls`);
  // From the filter box, Tab reaches the sort buttons, then the table's one tab stop.
  await page.getByTestId('calls-filter').focus();
  let tabs = 0;
  while (tabs < 20 && !(await page.evaluate(() => !!document.activeElement?.closest('tbody')))) {
    await page.keyboard.press('Tab');
    tabs++;
  }
  assert.ok(tabs < 20, 'the table is reached by Tab');
  const pos = () => page.evaluate(() => document.activeElement?.closest('tr')?.dataset.pos);
  assert.equal(await pos(), '0');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.waitForFunction(() => document.activeElement?.closest('tr')?.dataset.pos === '2');
  await page.keyboard.press('PageDown');
  await page.waitForFunction(() => Number(document.activeElement?.closest('tr')?.dataset.pos) > 2);
  await page.keyboard.press('End');
  await page.waitForFunction((t) => document.activeElement?.closest('tr')?.dataset.pos === String(t - 1), total);
  await page.keyboard.press('Home');
  await page.waitForFunction(() => document.activeElement?.closest('tr')?.dataset.pos === '0');
  await page.keyboard.press('ArrowDown');
  await page.waitForFunction(() => document.activeElement?.closest('tr')?.dataset.pos === '1');
  // Tab leaves the table (one tab stop), Shift+Tab comes back to the same row.
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.press('Tab');
  assert.equal(await pos(), '1');
  await page.keyboard.press('Enter');
  await page.getByTestId('call-position').filter({ hasText: `Call 2 of ${total}` }).waitFor();
  await page.getByTestId('call-next').focus();
  await page.keyboard.press('Enter');
  await page.getByTestId('call-position').filter({ hasText: `Call 3 of ${total}` }).waitFor();
  await page.getByTestId('call-back').focus();
  await page.keyboard.press('Enter');
  await page.waitForURL(`${BASE}/calls`);
  await page.waitForFunction(() => document.activeElement?.closest('tr')?.dataset.pos === '2');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('calls: axe-core finds nothing on the table and on a call, and screenshots at 1400 and 390 px, light and dark', async ({ browser }) => {
  const files = [join(run('otel-openai-v2-events'), 'traces.jsonl'), join(run('otel-openai-v2-events'), 'logs.jsonl')];
  mkdirSync(shotDir, { recursive: true });
  const found = [];
  for (const scheme of ['light', 'dark']) {
    for (const [w, h, tag] of [[1400, 900, 'wide'], [390, 844, 'phone']]) {
      const { context, page } = await newPage(browser, { viewport: { width: w, height: h }, colorScheme: scheme });
      await openCalls(page, files);
      found.push(...await axe(page, `calls ${tag} ${scheme}`));
      await page.screenshot({ path: join(shotDir, `calls-${tag}-${scheme}.png`) });
      await page.locator('tr[data-pos="4"] a').click();
      await page.getByTestId('call-output').waitFor({ timeout: 30000 });
      await settle(page);
      found.push(...await axe(page, `call ${tag} ${scheme}`));
      await page.screenshot({ path: join(shotDir, `call-${tag}-${scheme}.png`) });
      if (tag === 'wide') {
        await page.getByTestId('call-output').scrollIntoViewIfNeeded();
        await page.screenshot({ path: join(shotDir, `call-output-${scheme}.png`) });
      }
      assert.deepEqual(page.errors, []);
      await context.close();
    }
  }
  // The uncaptured marks too.
  const { context, page } = await newPage(browser);
  await openCalls(page, [join(run('otel-openai-v2-no-content'), 'traces.jsonl')]);
  found.push(...await axe(page, 'calls not captured'));
  await page.screenshot({ path: join(shotDir, 'calls-not-captured.png') });
  await context.close();
  assert.deepEqual(found, []);
});

test('calls: the view\'s code is a split module, fetched when a file of many calls is opened, never by the first screen (release builds)', async ({ browser }) => {
  test.skip(!readdirSync(DIST).some((f) => /-split_\w+-[0-9a-f]{16}\.wasm$/.test(f)), 'a build without split modules (debug)');
  const { context, page } = await newPage(browser);
  const fetched = () => page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name).filter((n) => /-split_calls_view-[0-9a-f]{16}\.wasm$/.test(n)).length);
  const worker = () => page.evaluate(() => performance.getEntriesByType('resource').some((e) => /token-worker/.test(e.name)));
  await page.goto(`${BASE}/`);
  await page.locator('[data-message-id]').first().waitFor();
  await page.waitForTimeout(500);
  assert.equal(await fetched(), 0, 'the first screen does not fetch the Calls view');
  assert.equal(await worker(), false, 'nor the engine');
  await openCalls(page, [join(run('otel-openai-v2-latest-span'), 'traces.jsonl')]);
  assert.equal(await fetched(), 1);
  assert.deepEqual(page.errors, []);
  await context.close();
});

// The Budget tab: counting each document, the parts dropped as `pep
// truncate` drops them, the export after truncation, the legend and limit.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, BASE, shotDir, pep, newPage, scan } from './helpers.mjs';

test('the Budget tab counts each document it is shown, and leaving mid-count breaks nothing', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  // Hold the worker's module back, so that the first count is still running when we leave.
  let release;
  const held = new Promise((r) => { release = r; });
  await page.route('**/token-worker_bg.wasm', async (route) => { await held; await route.continue(); });
  await page.goto(`${BASE}/demo/f`);
  await page.locator('[data-message-id]').first().waitFor();
  await page.getByTestId('tab-budget').click();
  await page.getByTestId('budget-loading').waitFor();
  // Leave for another route while counting, then let the worker load.
  await page.locator('a.demo-link', { hasText: 'B' }).click();
  await page.locator('[data-message-id^="b-"]').first().waitFor();
  release();
  // The Budget tab is still the open tab: demo B, which arrived after the panel was built, gets counted.
  await page.getByTestId('budget-summary').waitFor({ timeout: 30000 });
  assert.equal(await page.locator('[data-testid=crash]').count(), 0, 'no crash screen');
  // And again after a reload, where the tab is a saved preference.
  await page.goto(`${BASE}/demo/c`);
  await page.getByTestId('budget-summary').waitFor({ timeout: 30000 });
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('the Budget tab drops exactly the parts `pep truncate` drops (demo F, two limits)', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  await page.goto(`${BASE}/demo/f`);
  await page.locator('[data-message-id]').first().waitFor();
  const before = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name));
  assert.ok(!before.some((n) => n.includes('token-worker')), 'the worker is not loaded before the preview opens');
  await page.getByTestId('tab-budget').click();
  await page.getByTestId('budget-summary').waitFor({ timeout: 30000 });
  for (const [limit, step] of [[5000, 1], [2500, 250]]) {
    await page.getByTestId('step-input').fill(String(step));
    await page.getByTestId('step-input').press('Enter');
    await page.getByTestId('limit-input').fill(String(limit));
    await page.getByTestId('limit-input').press('Enter');
    const cli = JSON.parse(pep('truncate', '--limit', String(limit), '--step', String(step), 'demos/f.json'));
    const wantDropped = cli.parts.filter((p) => !p.kept).map((p) => p.name);
    assert.ok(wantDropped.length > 0, `limit ${limit} drops something`);
    // The conversation marks them (seen through the window, top to bottom).
    await page.locator('[data-testid=parts-table] tr.dropped').first().waitFor();
    let uiDropped = [];
    for (let i = 0; i < 20 && uiDropped.join() !== wantDropped.join(); i++) uiDropped = (await scan(page)).dropped;
    assert.deepEqual(uiDropped, wantDropped, `limit ${limit} step ${step}: conversation`);
    const tableDropped = await page.evaluate(() => [...document.querySelectorAll('[data-testid=parts-table] tr.dropped')].map((r) => r.dataset.part));
    assert.deepEqual(tableDropped, wantDropped, `limit ${limit} step ${step}: parts table`);
    assert.equal(await page.getByTestId('kept-tokens').textContent(), cli.keptTokens.toLocaleString('en-US'));
  }
  // Token counts per part equal the CLI's (no limit).
  const all = JSON.parse(pep('truncate', '--limit', '-1', 'demos/f.json'));
  const uiTokens = await page.evaluate(() => [...document.querySelectorAll('[data-testid=parts-table] tbody tr')].map((r) => Number(r.children[3].textContent.replace(/[^0-9]/g, ''))));
  assert.deepEqual(uiTokens, all.parts.map((p) => p.tokens));
  await page.screenshot({ path: join(shotDir, 'budget-f-light.png') });
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('truncation: the export after truncation is `pep truncate --request`, and names its file', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: BASE });
  await page.goto(`${BASE}/demo/f`);
  await page.locator('[data-message-id]').first().waitFor();
  await page.getByTestId('tab-openai').click();
  assert.equal(await page.getByTestId('export-scope').count(), 0, 'no choice before a limit drops anything');
  await page.getByTestId('tab-budget').click();
  await page.getByTestId('budget-summary').waitFor({ timeout: 30000 });
  await page.getByTestId('limit-input').fill('3000');
  await page.getByTestId('limit-input').press('Enter');
  await page.locator('[data-testid=parts-table] tr.dropped').first().waitFor();
  await page.getByTestId('tab-openai').click();
  const scope = page.getByTestId('export-scope');
  await scope.waitFor();
  assert.equal(await scope.inputValue(), 'truncated', 'default: what the conversation shows');
  await page.getByTestId('copy-json').click();
  await page.getByTestId('copy-status').filter({ hasText: 'Copied' }).waitFor();
  const want = pep('truncate', '--limit', '3000', '--step', '1', '--request', 'demos/f.json');
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), want, 'clipboard = pep truncate --request');
  const [dl] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-json').click()]);
  assert.equal(dl.suggestedFilename(), 'demo-f.openai.truncated-3000.json');
  assert.equal(readFileSync(await dl.path(), 'utf8'), want);
  await scope.selectOption('full');
  await page.getByTestId('copy-json').click();
  await page.getByTestId('copy-status').filter({ hasText: 'Copied' }).waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), pep('export', 'demos/f.json'));
  const [dl2] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-json').click()]);
  assert.equal(dl2.suggestedFilename(), 'demo-f.openai.json');
  await page.screenshot({ path: join(shotDir, 'export-truncated-f.png') });
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('budget fixes: one legend at step 1, slider reaches the limit, limit kept across demos, one count per segment, kept replies explained', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  await page.goto(`${BASE}/demo/a`);
  await page.locator('[data-message-id]').first().waitFor();
  await page.getByTestId('tab-budget').click();
  await page.getByTestId('budget-summary').waitFor({ timeout: 30000 });
  // demo A's model has a 128,000 context window: the slider reaches it.
  const limit = Number(await page.getByTestId('limit-input').inputValue());
  const max = Number(await page.getByTestId('limit-slider').getAttribute('max'));
  assert.ok(max >= limit, `slider max ${max} >= limit ${limit}`);
  assert.equal(Number(await page.getByTestId('limit-slider').inputValue()), limit, 'the slider shows the limit');
  // Step 1: "step 1" once in the legend.
  const legend = await page.getByTestId('cache-legend').textContent().catch(() => '');
  if (legend) assert.equal(legend.match(/step 1/g).length, 1, legend);
  // One count per single-segment message: in its header, not again on its segment.
  const doubled = await page.evaluate(() => [...document.querySelectorAll('.conversation .msg')]
    .filter((m) => m.querySelectorAll('.seg-slot').length === 1 && m.querySelector('.tok-badge')).length);
  assert.equal(doubled, 0);
  // demo F at 3000: the legend at step 250 has both; the limit stays when the demo changes.
  await page.locator('a.demo-link', { hasText: 'F' }).click();
  await page.waitForURL(`${BASE}/demo/f`);
  await page.getByTestId('budget-summary').waitFor({ timeout: 30000 });
  await page.getByTestId('limit-input').fill('3000');
  await page.getByTestId('limit-input').press('Enter');
  await page.getByTestId('step-input').fill('250');
  await page.getByTestId('step-input').press('Enter');
  await page.waitForFunction(() => (document.querySelector('[data-testid=cache-legend]')?.textContent || '').includes('step 250'));
  assert.equal((await page.getByTestId('cache-legend').textContent()).match(/step 1\b/g).length, 1);
  await page.getByTestId('step-input').fill('1');
  await page.getByTestId('step-input').press('Enter');
  // The kept reply whose question was dropped says why.
  const why = [];
  await scan(page, { each: async (p) => { why.push(...await p.locator('[data-testid=kept-reason]').allTextContents()); } });
  assert.ok(why.length > 0, 'a kept reply is explained');
  assert.match(why[0], /PromptPoet removes whole runs of parts by priority/);
  await page.locator('a.demo-link', { hasText: 'E' }).click();
  await page.waitForURL(`${BASE}/demo/e`);
  await page.getByTestId('budget-summary').waitFor({ timeout: 30000 });
  assert.equal(await page.getByTestId('limit-input').inputValue(), '3000', 'the limit stays when the demo changes');
  assert.deepEqual(page.errors, []);
  await context.close();
});

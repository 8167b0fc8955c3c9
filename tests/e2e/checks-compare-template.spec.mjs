// The Checks tab, the Compare page (as `pep diff`) and the Template page.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bigEnvelope } from '../../bench/gen.mjs';
import { test, BASE, root, shotDir, DEMOS, pepFull, newPage, input, openFile, inView, openChecks, checksMs } from './helpers.mjs';

test('Checks: a sensitive word set in settings is found; clicking it reveals, opens and highlights the segment; settings survive a reload; settings saved damaged are said so in the tab, the other preferences still apply', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  await page.goto(`${BASE}/demo/f`);
  await page.locator('[data-message-id]').first().waitFor();
  await openChecks(page);
  const before = await page.locator('[data-testid=check-item][data-code=sensitive-word]').count();
  assert.equal(before, 0, 'no sensitive words configured, none found');
  const badge = Number(await page.getByTestId('checks-count').textContent());
  assert.equal(badge, await page.getByTestId('check-item').count(), 'the badge counts the findings');
  // "replicaset" is only in message 7's collapsed long_text (kubectl output).
  await page.getByTestId('checks-settings').locator('summary').click();
  await page.getByTestId('checks-sensitive-words').fill('ReplicaSet, nothing-like-this');
  await page.getByTestId('checks-sensitive-words').press('Enter');
  const hit = page.locator('[data-testid=check-item][data-code=sensitive-word]').first();
  await hit.waitFor({ timeout: 30000 });
  assert.equal(await hit.getAttribute('data-message'), '7');
  assert.equal(await hit.getAttribute('data-segment'), '1');
  assert.equal(Number(await page.getByTestId('checks-count').textContent()), badge + await page.locator('[data-testid=check-item][data-code=sensitive-word]').count());
  // Scroll the conversation to its end, so the segment is far out of view, then click the finding.
  const sel = '[data-message-id="f-u4"] .seg-slot[data-seg="1"]';
  await page.evaluate(() => { const p = document.querySelector('.pane.left'); p.scrollTop = p.scrollHeight; });
  await page.locator('[data-message-id="f-a21"]').waitFor();
  await page.waitForTimeout(200);
  assert.ok(!(await inView(page, sel)), 'out of view before the click');
  await hit.click();
  await page.locator(`${sel}.flash`).waitFor({ timeout: 5000 });
  assert.ok(await inView(page, sel), 'scrolled into view');
  assert.equal(await page.locator(`${sel} [aria-expanded]`).first().getAttribute('aria-expanded'), 'true', 'opened');
  mkdirSync(shotDir, { recursive: true });
  await page.screenshot({ path: join(shotDir, 'checks.png') });
  await page.locator(`${sel}.flash`).waitFor({ state: 'detached', timeout: 5000 });
  // A budget: over it is an error, in the error group.
  await page.getByTestId('checks-max-tokens').fill('1000');
  await page.getByTestId('checks-max-tokens').press('Enter');
  await page.locator('[data-testid=checks-error] [data-code=token-budget]').waitFor({ timeout: 30000 });
  // Bad input is refused where it was typed, and changes nothing.
  await page.getByTestId('checks-segment-share').fill('250');
  await page.getByTestId('checks-segment-share').press('Enter');
  await page.getByTestId('checks-input-error').waitFor();
  // Kept in preferences.
  await page.reload();
  await page.getByTestId('checks-summary').waitFor({ timeout: 60000 });
  await page.getByTestId('checks-settings').locator('summary').click();
  assert.equal(await page.getByTestId('checks-sensitive-words').inputValue(), 'ReplicaSet, nothing-like-this');
  assert.equal(await page.getByTestId('checks-max-tokens').inputValue(), '1000');
  await page.locator('[data-testid=check-item][data-code=sensitive-word]').first().waitFor();
  // Settings saved damaged (or by a newer version) are read only by the
  // Checks tab: the other preferences still apply, the tab says what is
  // wrong, and Reset runs the checks with the defaults.
  await page.evaluate(() => {
    const p = JSON.parse(localStorage.getItem('pep/v1/prefs'));
    localStorage.setItem('pep/v1/prefs', JSON.stringify({ ...p, theme: 'dark', checks: { max_tokens: 'many' } }));
  });
  await page.reload();
  await page.getByTestId('checks-settings-error').waitFor({ timeout: 60000 });
  assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark', 'the other preferences still apply');
  assert.match(await page.getByTestId('checks-settings-error').textContent(), /saved settings could not be read/);
  await page.getByTestId('checks-settings').locator('summary').click();
  await page.getByTestId('checks-reset').click();
  await page.getByTestId('checks-summary').waitFor({ timeout: 60000 });
  assert.equal(await page.locator('[data-testid=check-item][data-code=sensitive-word]').count(), 0, 'defaults: no sensitive words');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('Checks: lint time in the engine for the six demos and the 20,000-segment envelope', async ({ browser }) => {
  test.slow(); // the 20,000-segment envelope: three times the config's timeout
  const { context, page } = await newPage(browser);
  const times = {};
  for (const d of DEMOS) {
    await page.goto(`${BASE}/demo/${d}`);
    await page.locator('[data-message-id]').first().waitFor();
    if (d === 'a') await openChecks(page); else await page.getByTestId('checks-summary').waitFor({ timeout: 60000 });
    times[d] = await checksMs(page);
  }
  const file = input('big-20000.envelope.json', () => bigEnvelope());
  await openFile(page, file, 120000);
  const t0 = Date.now();
  await page.getByTestId('checks-summary').waitFor({ timeout: 120000 });
  times.big = await checksMs(page);
  times.bigWall = Date.now() - t0;
  console.log(`     lint ms (engine): ${JSON.stringify(times)}`);
  for (const d of DEMOS) assert.ok(times[d] < 2000, `demo ${d}: ${times[d]} ms`);
  assert.ok(times.big < 60000, `20,000 segments: ${times.big} ms`);
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('Compare: two demos side by side with text changes marked, token counts as `pep diff`, and the cache break marked in both', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  await page.goto(`${BASE}/diff`);
  await page.getByTestId('compare-before-select').selectOption('demo-a');
  await page.getByTestId('compare-after-select').selectOption('demo-b');
  const expected = JSON.parse(pepFull('diff', '--format', 'json', 'demos/a.json', 'demos/b.json').stdout);
  await page.getByTestId('compare-result').waitFor({ timeout: 60000 });
  const tokens = await page.getByTestId('compare-tokens').textContent();
  const n = (x) => x.toLocaleString('en-US');
  assert.ok(tokens.includes(`${n(expected.tokensBefore)} → ${n(expected.tokensAfter)} tokens`), tokens);
  assert.ok((await page.getByTestId('compare-sentence').textContent()).includes(`the first ${n(expected.cache.reusable)} of ${n(expected.cache.total)} tokens`));
  assert.equal(await page.getByTestId('cache-break-before').count(), 1);
  assert.equal(await page.getByTestId('cache-break-after').count(), 1);
  assert.ok(await page.getByTestId('cache-break-before').isVisible());
  assert.ok(await page.getByTestId('cache-break-after').isVisible());
  assert.ok(await page.getByTestId('compare-ins').count() > 0, 'inserted lines marked');
  assert.ok(await page.getByTestId('compare-del').count() > 0, 'deleted lines marked');
  assert.equal(await page.getByTestId('compare-row').count(), expected.messages.length);

  // A pasted new version of demo A with one changed line: the break is at that message.
  const a = JSON.parse(readFileSync(join(root, 'demos/a.json'), 'utf8'));
  const last = a.messages.length - 1;
  a.messages[last].segments[0].content += '\nA line added for the comparison.';
  await page.getByTestId('compare-before-select').selectOption('demo-a');
  await page.getByTestId('compare-after-select').selectOption('paste');
  await page.getByTestId('compare-after-paste').fill(JSON.stringify(a, null, 2));
  await page.getByTestId('compare-after-use').click();
  await page.locator('[data-testid=compare-ins]', { hasText: 'A line added for the comparison.' }).waitFor({ timeout: 60000 });
  const changed = page.locator('[data-testid=compare-row][data-status=changed]');
  assert.equal(await changed.count(), 1);
  assert.equal(await changed.getAttribute('data-after'), String(last));
  // The marker row sits right before the changed message.
  const markerNext = await page.evaluate(() => document.querySelector('[data-testid=cache-break-after]').parentElement.nextElementSibling.dataset.after);
  assert.equal(markerNext, String(last));
  await page.screenshot({ path: join(shotDir, 'compare.png') });
  // A side that does not read says which and why.
  await page.getByTestId('compare-after-select').selectOption('paste');
  await page.getByTestId('compare-after-paste').fill('{"version": 1');
  await page.getByTestId('compare-after-use').click();
  await page.getByTestId('compare-error').waitFor({ timeout: 30000 });
  assert.match(await page.getByTestId('compare-error').textContent(), /^After does not read/);
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('Compare: an added or removed message shows its text; a message holding only the tool declarations counts their tokens', async ({ browser }) => {
  mkdirSync(shotDir, { recursive: true });
  const { context, page } = await newPage(browser);
  await page.goto(`${BASE}/diff`);
  await page.getByTestId('compare-before-select').selectOption('demo-d');
  // Demo D's new version: the tools in a system message of their own, the
  // first user message removed, a reply added at the end.
  const d = JSON.parse(readFileSync(join(root, 'demos/d.json'), 'utf8'));
  const sys = d.messages[0];
  const tools = sys.segments.find((s) => s.kind === 'tool_overview');
  sys.segments = sys.segments.filter((s) => s !== tools);
  const removedText = d.messages[1].segments[0].content;
  d.messages.splice(1, 1);
  d.messages.splice(1, 0, { id: 'd-tools', role: 'system', timestamp: sys.timestamp, segments: [tools] });
  d.messages.push({ id: 'd-added', role: 'user', timestamp: d.messages.at(-1).timestamp + 1, segments: [{ kind: 'text', content: 'An added question.\nOn two lines.' }] });
  const file = join(root, 'target', 'e2e-compare-d.json');
  writeFileSync(file, JSON.stringify(d, null, 2));
  const expected = JSON.parse(pepFull('diff', '--format', 'json', 'demos/d.json', file).stdout);
  await page.getByTestId('compare-after-select').selectOption('paste');
  await page.getByTestId('compare-after-paste').fill(JSON.stringify(d, null, 2));
  await page.getByTestId('compare-after-use').click();
  const added = page.locator('[data-testid=compare-row][data-status=added]', { hasText: 'd-added' });
  await added.waitFor({ timeout: 60000 });
  // The added message's text, on the right, as inserted lines.
  assert.deepEqual(await added.locator('.cmp-side.after [data-testid=compare-ins]').allTextContents(), ['An added question.', 'On two lines.']);
  assert.equal(await added.locator('.cmp-side.before [data-testid=compare-segment]').count(), 0);
  // The removed one's, on the left, from the first document.
  const removed = page.locator('[data-testid=compare-row][data-status=removed]');
  assert.equal(await removed.count(), 1);
  const del = (await removed.locator('.cmp-side.before [data-testid=compare-del]').allTextContents()).join('\n');
  assert.equal(del, removedText);
  assert.equal(await removed.locator('.cmp-side.after [data-testid=compare-segment]').count(), 0);
  // The tools' own message: their tokens, as `pep diff` counts them, not 0.
  const want = expected.messages.find((m) => m.id === 'd-tools').tokensAfter;
  assert.ok(want > 0, `pep diff counts the tools in their message: ${want}`);
  const toolsRow = page.locator('[data-testid=compare-row]', { hasText: 'd-tools' });
  assert.equal(await toolsRow.locator('.cmp-side.after .cmp-tokens').textContent(), `${want.toLocaleString('en-US')} tokens`);
  assert.ok((await toolsRow.locator('.cmp-side.after [data-testid=compare-ins]').allTextContents()).join('\n').includes(`"name": "${tools.items[0].name}"`));
  await removed.scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(shotDir, 'compare-added-removed.png') });
  await toolsRow.locator('.cmp-side.after .cmp-head').evaluate((h) => h.scrollIntoView({ block: 'center' }));
  await page.screenshot({ path: join(shotDir, 'compare-tools.png') });
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('Compare: the prompt sent changed and its version did not: version-not-bumped is said above the rows', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  await page.goto(`${BASE}/diff`);
  const doc = (text, version) => JSON.stringify({
    version: '1.0', prompt: { name: 'triage', version },
    messages: [{ id: 's', role: 'system', timestamp: 1767225600, segments: [{ kind: 'text', content: text }] },
      { id: 'u', role: 'user', timestamp: 1767225601, segments: [{ kind: 'text', content: 'The site is down.' }] }],
  });
  const use = async (side, text) => {
    await page.getByTestId(`compare-${side}-select`).selectOption('paste');
    await page.getByTestId(`compare-${side}-paste`).fill(text);
    await page.getByTestId(`compare-${side}-use`).click();
  };
  await use('before', doc('Triage the ticket.', '1.2.0'));
  await use('after', doc('Triage the ticket. Answer in JSON.', '1.2.0'));
  const finding = page.getByTestId('compare-finding');
  await finding.waitFor({ timeout: 60000 });
  assert.equal(await finding.getAttribute('data-code'), 'version-not-bumped');
  assert.match(await finding.textContent(), /^version-not-bumped: .*1\.2\.0/);
  mkdirSync(shotDir, { recursive: true });
  await page.screenshot({ path: join(shotDir, 'compare-version-not-bumped.png') });
  // The version bumped: nothing to say.
  await use('after', doc('Triage the ticket. Answer in JSON.', '1.3.0'));
  await page.getByTestId('compare-row').first().waitFor();
  await page.waitForFunction(() => !document.querySelector('[data-testid=compare-finding]'), null, { timeout: 60000 });
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('Template: the line numbers scroll with the text, an error\'s number beside its line', async ({ browser }) => {
  mkdirSync(shotDir, { recursive: true });
  const { context, page } = await newPage(browser);
  await page.goto(`${BASE}/template`);
  await page.getByTestId('template-example').click();
  await page.getByTestId('template-status').filter({ hasText: /^Rendered \d+ parts/ }).waitFor({ timeout: 60000 });
  // The example with 60 comment lines before it and an unclosed tag after them.
  const source = await page.getByTestId('template-source').inputValue();
  const broken = Array.from({ length: 60 }, (_, i) => `{# padding line ${i + 1} #}`).join('\n') + '\n' + source + '\n{{ unclosed';
  await page.getByTestId('template-source').fill(broken);
  await page.getByTestId('template-error').waitFor({ timeout: 30000 });
  const errLine = Number(await page.locator('.editor-box .gutter .ln.err').first().textContent());
  assert.ok(errLine > 60, `the error's line: ${errLine}`);
  // Scroll the text so the error's line is in the middle of the box.
  const at = await page.evaluate((n) => {
    const area = document.querySelector('[data-testid=template-source]');
    area.scrollTop = 6 + (n - 1) * 18 - area.clientHeight / 2;
    return area.scrollTop;
  }, errLine);
  assert.ok(at > 0, 'the text scrolls in its box');
  await page.waitForFunction(() => {
    const area = document.querySelector('[data-testid=template-source]');
    return area.closest('.editor-box').querySelector('.gutter').scrollTop === area.scrollTop;
  });
  const { markMid, lineMid } = await page.evaluate((n) => {
    const area = document.querySelector('[data-testid=template-source]');
    const mark = area.closest('.editor-box').querySelector('.gutter .ln.err').getBoundingClientRect();
    return { markMid: (mark.top + mark.bottom) / 2, lineMid: area.getBoundingClientRect().top + 6 + (n - 0.5) * 18 - area.scrollTop };
  }, errLine);
  assert.ok(Math.abs(markMid - lineMid) < 2, `${markMid} vs ${lineMid}`);
  await page.getByTestId('template-source').evaluate((a) => a.scrollIntoView({ block: 'nearest' }));
  await page.getByTestId('template').screenshot({ path: join(shotDir, 'template-gutter.png') });
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('Template: the example renders as a conversation with its parts; edited data updates it and the budget; errors say line and column', async ({ browser }) => {
  mkdirSync(shotDir, { recursive: true });
  const { context, page } = await newPage(browser);
  await page.goto(`${BASE}/template`);
  await page.getByTestId('template-example').click();
  await page.getByTestId('template-status').filter({ hasText: /^Rendered \d+ parts/ }).waitFor({ timeout: 60000 });
  const data = JSON.parse(readFileSync(join(root, 'demos/templates/chat.data.json'), 'utf8'));
  const parts = data.chat_history.length + 2;
  assert.equal(await page.getByTestId('template-part').count(), parts);
  await page.locator('[data-message-id="system instructions"]').waitFor();
  assert.equal(await page.locator('.conversation [data-message-id]').count() >= Math.min(parts, 5), true);
  assert.ok((await page.locator('[data-message-id="system instructions"]').textContent()).includes(data.company));
  await page.getByTestId('tab-budget').click();
  await page.getByTestId('budget-summary').waitFor({ timeout: 60000 });
  const budgetBefore = await page.getByTestId('budget-summary').textContent();
  await page.screenshot({ path: join(shotDir, 'template.png') });
  // Edit the data: the conversation and the budget follow.
  const edited = { ...data, company: 'Zeta Kettles Incorporated', rules: [...data.rules, 'Always answer in rhyming couplets, with a short poem about kettles at the end of every message you write.'] };
  await page.getByTestId('template-data').fill(JSON.stringify(edited, null, 2));
  await page.locator('[data-message-id="system instructions"]', { hasText: 'Zeta Kettles Incorporated' }).waitFor({ timeout: 30000 });
  await page.waitForFunction((b) => { const e = document.querySelector('[data-testid=budget-summary]'); return e && e.textContent !== b; }, budgetBefore, { timeout: 30000 });
  // A broken template: an error with line and column; the last good render stays.
  const good = await page.getByTestId('template-source').inputValue();
  await page.getByTestId('template-source').fill('- name: a\n  content: |\n    Hello {{ user_query \n');
  const err = page.getByTestId('template-error');
  await err.waitFor({ timeout: 30000 });
  assert.equal(await err.getAttribute('data-source'), 'template');
  assert.equal(await err.getAttribute('data-line'), '3');
  assert.ok(Number(await err.getAttribute('data-column')) > 0);
  assert.match(await err.textContent(), /template, line 3, column \d+/);
  assert.equal(await page.locator('.editor-box .ln.err').textContent(), '3\n');
  assert.ok(await page.locator('[data-message-id="system instructions"]').count() === 1, 'the last good render stays');
  // Broken data JSON: line and column in the data.
  await page.getByTestId('template-source').fill(good);
  await page.getByTestId('template-data').fill('{\n  "company": "x",\n  oops\n}');
  await err.waitFor({ timeout: 30000 });
  await page.waitForFunction(() => document.querySelector('[data-testid=template-error]')?.dataset.source === 'data');
  assert.equal(await err.getAttribute('data-line'), '3');
  assert.equal(await err.getAttribute('data-column'), '3');
  // The template and data are kept for the next visit.
  await page.reload();
  assert.equal(await page.getByTestId('template-source').inputValue(), good);
  // Render time for a 2,000-turn history.
  const turns = Array.from({ length: 2000 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', text: `Turn ${i}: ${'words and more words '.repeat(5)}` }));
  await page.getByTestId('template-data').fill(JSON.stringify({ ...data, chat_history: turns }));
  await page.getByTestId('template-status').filter({ hasText: 'Rendered 2,002 parts' }).or(page.getByTestId('template-status').filter({ hasText: 'Rendered 2002 parts' })).waitFor({ timeout: 120000 });
  console.log(`     2,000-turn render: ${await page.getByTestId('template-status').textContent()}`);
  assert.deepEqual(page.errors, []);
  await context.close();
});

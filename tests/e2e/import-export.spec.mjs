// Requests in, any provider out: Copy and Download equal `pep export`,
// pasted OpenAI Chat / Responses / Anthropic requests equal `pep import`,
// the notes of what does not carry over, an engine that fails to load.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test, BASE, root, shotDir, pep, pepFull, newPage, scan, axe, REQUESTS, LABELS, FORMATS, fileName, requestFiles, paste, pathLines, noteLines, notCarried, richAnthropic, wholeJson } from './helpers.mjs';

test('Copy puts exactly `pep export` on the clipboard, for both tabs', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: BASE });
  for (const d of ['a', 'd', 'e']) {
    await page.goto(`${BASE}/demo/${d}`);
    await page.locator('[data-message-id]').first().waitFor();
    await page.getByTestId('tab-openai').click();
    await page.getByTestId('copy-json').click();
    await page.getByTestId('copy-status').filter({ hasText: 'Copied' }).waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    assert.equal(copied, pep('export', join('demos', `${d}.json`)), `demo ${d}: clipboard = pep export`);
  }
  await page.getByTestId('tab-raw').click();
  await page.getByTestId('copy-json').click();
  await page.getByTestId('copy-status').filter({ hasText: 'Copied' }).waitFor();
  const raw = await page.evaluate(() => navigator.clipboard.readText());
  assert.deepEqual(JSON.parse(raw), JSON.parse(readFileSync(join(root, 'demos/e.json'), 'utf8')), 'raw tab = the document');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('Download saves exactly the export under the demo name', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  await page.goto(`${BASE}/demo/d`);
  await page.locator('[data-message-id]').first().waitFor();
  await page.getByTestId('tab-openai').click();
  const [dl] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-json').click()]);
  assert.equal(dl.suggestedFilename(), 'demo-d.openai.json');
  assert.equal(readFileSync(await dl.path(), 'utf8'), pep('export', 'demos/d.json'));
  await page.getByTestId('tab-raw').click();
  const [dl2] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-json').click()]);
  assert.equal(dl2.suggestedFilename(), 'demo-d.envelope.json');
  assert.deepEqual(JSON.parse(readFileSync(await dl2.path(), 'utf8')), JSON.parse(readFileSync(join(root, 'demos/d.json'), 'utf8')));
  await context.close();
});

test('pasted OpenAI Chat, Responses and Anthropic requests render the segments `pep import` makes, say where they came from, and survive a reload', async ({ browser }) => {
  test.slow(); // every request fixture, pasted and reloaded, each against `pep import`: three times the config's timeout
  const { context, page } = await newPage(browser);
  await page.goto(`${BASE}/demo/a`);
  await page.locator('[data-message-id]').first().waitFor();
  const before = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name));
  assert.ok(!before.some((n) => n.includes('token-worker')), 'the engine is not loaded before it is needed');
  const files = requestFiles();
  assert.ok(files.length >= 9 && ['openai', 'responses', 'anthropic'].every((d) => files.some((f) => f.dir === d)));
  for (const { dir, rel } of files) {
    const cli = pepFull('import', rel);
    assert.equal(cli.status, 0, `${rel}: pep import`);
    const envelope = JSON.parse(cli.stdout);
    const counts = {};
    for (const m of envelope.messages) for (const s of m.segments) counts[s.kind] = (counts[s.kind] || 0) + 1;
    const notes = noteLines(cli.stderr);
    const check = async (when) => {
      await page.getByTestId('imported-from').waitFor();
      assert.equal(await page.getByTestId('imported-from').getAttribute('data-format'), dir, `${rel} ${when}`);
      assert.ok((await page.getByTestId('imported-from').textContent()).includes(`Imported from ${LABELS[dir]}`), `${rel} ${when}: label`);
      await page.locator('[data-message-id]').first().waitFor();
      const seen = await scan(page);
      assert.equal(seen.ids.length, envelope.messages.length, `${rel} ${when}: messages`);
      assert.deepEqual(seen.counts, counts, `${rel} ${when}: [data-kind] counts`);
      await page.evaluate(() => { window.__scroller.scrollTop = 0; });
      // Requests carry no times: none is shown (not 1970).
      assert.deepEqual([...new Set(await page.locator('[data-message-id] time').allTextContents())], [''], `${rel}: no times`);
      // The notices, one click away, are pep's notes.
      if (notes.length) {
        await page.getByTestId('import-notices-toggle').click();
        const items = await pathLines(page.locator('[data-testid=import-notices] li'));
        assert.deepEqual(items, notes.map((l) => l.slice(l.indexOf(': note: ') + 8)), `${rel} ${when}: notices`);
      } else {
        assert.equal(await page.getByTestId('import-notices-toggle').count(), 0);
      }
      // Request settings: the model, then params in order.
      const keys = await page.locator('[data-testid=request-settings] .chip').evaluateAll((cs) => cs.map((c) => c.dataset.key));
      const want = envelope.params ? [...(envelope.model ? ['model'] : []), ...Object.keys(envelope.params)] : [];
      assert.deepEqual(keys, want, `${rel} ${when}: settings`);
    };
    await paste(page, readFileSync(join(root, rel), 'utf8'), { loads: true });
    await check('pasted');
    // The raw tab shows the envelope made, as `pep import` prints it.
    await page.getByTestId('tab-raw').click();
    // (The view abbreviates long data: URLs; Download gives the text whole.)
    const [rawDl] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-json').click()]);
    assert.deepEqual(JSON.parse(readFileSync(await rawDl.path(), 'utf8')), envelope, `${rel}: raw tab`);
    await page.getByTestId('tab-openai').click();
    await page.reload();
    await check('reloaded');
  }
  assert.deepEqual(page.errors, []);
  await context.close();
});

/**
 * The document on screen, as its conversation states it: "N messages · M
 * segments" and its first message's id (not the rows in the DOM, which the
 * window adds to after the first screen).
 */
const shownDocument = (page) => page.evaluate(() => [
  document.querySelector('.conversation .conv-tools .muted')?.textContent,
  document.querySelector('.conversation [data-message-id]')?.dataset.messageId,
].join(' / '));

test('a body of no format names the formats tried; a malformed request lists every error with its path', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  await page.goto(`${BASE}/demo/b`);
  await page.locator('[data-message-id]').first().waitFor();
  const shown = await shownDocument(page);
  await paste(page, '{"prompt": "Summarise this"}');
  await page.getByTestId('load-errors').waitFor();
  const text = await page.getByTestId('load-errors').textContent();
  for (const f of ['Prompt Envelope', 'OpenAI Chat', 'OpenAI Responses', 'Anthropic Messages']) assert.ok(text.includes(f), `names ${f}: ${text}`);
  assert.equal(page.url(), `${BASE}/demo/b`);
  assert.equal(await shownDocument(page), shown, 'the demo stays');
  // A malformed OpenAI Chat request: the errors `pep import` gives, each with its path.
  const bad = { model: 'gpt-4o', messages: [
    { role: 'wizard', content: 'x' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '[1]' } }] },
    { role: 'user', content: [{ type: 'image_url', image_url: { url: 'javascript:alert(1)' } }] },
  ] };
  const file = join(root, 'target', 'bad-request.json');
  writeFileSync(file, JSON.stringify(bad));
  const cli = pepFull('import', file);
  assert.equal(cli.status, 1);
  const want = cli.stderr.split('\n').filter((l) => l.includes(': error: ')).map((l) => l.slice(l.indexOf(': error: ') + 9).replace(/ \[[a-z0-9-]+\]$/, ''));
  assert.equal(want.length, 3, cli.stderr);
  await paste(page, JSON.stringify(bad));
  await page.waitForFunction(() => document.querySelector('[data-testid=load-errors]')?.textContent.includes('wizard'));
  assert.deepEqual(await pathLines(page.locator('[data-testid=load-errors] li')), want);
  assert.equal(await shownDocument(page), shown, 'the demo stays');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('every export format: Copy and Download equal `pep export --format X`, for demos and imported requests', async ({ browser }) => {
  test.slow(); // eight formats for five documents, each against `pep export`: three times the config's timeout
  const { context, page } = await newPage(browser);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: BASE });
  const checkAll = async (stem, file, imported) => {
    // `pep export` of a request prints the import's notes first.
    const importNotes = imported ? noteLines(pepFull('import', file).stderr) : [];
    for (const [code] of FORMATS) {
      await page.getByTestId('export-format').selectOption(code);
      const cli = pepFull('export', '--format', code, file);
      assert.equal(cli.status, 0, `${file} ${code}`);
      await page.getByTestId('protocol-json').waitFor();
      await page.getByTestId('copy-json').click();
      await page.getByTestId('copy-status').filter({ hasText: 'Copied' }).waitFor();
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), cli.stdout, `${file} ${code}: clipboard`);
      const [dl] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-json').click()]);
      assert.equal(dl.suggestedFilename(), fileName(stem, code));
      assert.equal(readFileSync(await dl.path(), 'utf8'), cli.stdout, `${file} ${code}: download`);
      // What the target cannot express: pep's notes, listed under the
      // export (no click) and counted beside the picker.
      const all = noteLines(cli.stderr);
      assert.deepEqual(all.slice(0, importNotes.length), importNotes, `${file} ${code}: import notes first`);
      const notes = all.slice(importNotes.length);
      const listed = page.getByTestId('export-notices');
      const counted = (await page.getByTestId('export-notices-count').textContent()).trim();
      if (notes.length) {
        assert.ok(await listed.locator('ul').isVisible(), `${file} ${code}: notices shown`);
        assert.deepEqual(await pathLines(listed.locator('li')), notes.map((l) => l.slice(l.indexOf(': note: ') + 8)), `${file} ${code}: notices`);
        assert.equal(counted, notCarried(notes.length), `${file} ${code}: count`);
      } else {
        assert.equal(await listed.count(), 0, `${file} ${code}: no notices`);
        assert.equal(counted, '', `${file} ${code}: no count`);
      }
    }
  };
  for (const d of ['d', 'b']) {
    await page.goto(`${BASE}/demo/${d}`);
    await page.locator('[data-message-id]').first().waitFor();
    await page.getByTestId('tab-openai').click();
    await checkAll(`demo-${d}`, `demos/${d}.json`);
  }
  for (const dir of ['openai', 'responses', 'anthropic']) {
    const rel = `crates/envelope/tests/fixtures/requests/${dir}/tools-and-params.json`;
    // Two pasted, one opened as a file (its downloads are named after it).
    if (dir === 'responses') {
      await page.getByTestId('open-file').setInputFiles(join(root, rel));
      await page.waitForURL(`${BASE}/doc`);
    } else {
      await paste(page, readFileSync(join(root, rel), 'utf8'), { loads: true });
    }
    await page.getByTestId('imported-from').filter({ hasText: LABELS[dir] }).waitFor();
    await checkAll(dir === 'responses' ? 'tools-and-params' : 'pasted', rel, true);
  }
  // The choice is a preference; OpenAI Chat needs no engine on a fresh load.
  await page.getByTestId('export-format').selectOption('curl-anthropic');
  await page.reload();
  await page.getByTestId('protocol-json').waitFor();
  assert.equal(await page.getByTestId('export-format').inputValue(), 'curl-anthropic');
  assert.ok((await (await wholeJson(page)).textContent()).startsWith('curl '));
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('the Export tab starts on the format a request came from (its replay, `pep export`\'s bytes); another format counts and lists what it cannot carry; light, dark, phone', async ({ browser }) => {
  test.slow(); // three runs (light, dark, phone), axe in each: three times the config's timeout
  const file = join(root, 'target', 'e2e', 'rich-anthropic.json');
  mkdirSync(dirname(file), { recursive: true });
  const body = JSON.stringify(richAnthropic(), null, 2);
  writeFileSync(file, body);
  for (const k of ['"signature"', '"cache_control"', '"application/pdf"', '"web_search_20250305"']) assert.ok(body.includes(k), k);
  const replay = pepFull('export', '--format', 'anthropic', file);
  assert.equal(replay.status, 0, replay.stderr);
  assert.deepEqual(noteLines(replay.stderr), [], 'the replay carries everything');
  const chat = pepFull('export', '--format', 'openai', file);
  assert.equal(chat.status, 0, chat.stderr);
  const notes = noteLines(chat.stderr).map((l) => l.slice(l.indexOf(': note: ') + 8));
  // Reasoning, the cache breakpoints, the server tool: at least these.
  assert.ok(notes.length >= 3, chat.stderr);
  mkdirSync(shotDir, { recursive: true });
  const runs = [['light', { width: 1400, height: 900 }], ['dark', { width: 1400, height: 900 }], ['phone', { width: 390, height: 844 }]];
  for (const [name, viewport] of runs) {
    const { context, page } = await newPage(browser, { colorScheme: name === 'dark' ? 'dark' : 'light', viewport });
    await page.goto(`${BASE}/demo/a`);
    await page.locator('[data-message-id]').first().waitFor();
    assert.equal(await page.getByTestId('export-format').inputValue(), 'openai', 'the preference: OpenAI Chat');
    await paste(page, body, { loads: true });
    await page.getByTestId('imported-from').filter({ hasText: LABELS.anthropic }).waitFor();
    if (name === 'phone') await page.getByTestId('show-protocol').click();
    await page.getByTestId('tab-openai').click();
    // It starts on Anthropic: the request as it was, nothing left out.
    await page.getByTestId('protocol-json').filter({ hasText: '"signature"' }).waitFor();
    assert.equal(await page.getByTestId('export-format').inputValue(), 'anthropic');
    assert.equal(await (await wholeJson(page)).textContent(), replay.stdout);
    const [dl] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-json').click()]);
    assert.equal(readFileSync(await dl.path(), 'utf8'), replay.stdout);
    assert.equal(await page.getByTestId('export-notices').count(), 0);
    assert.equal((await page.getByTestId('export-notices-count').textContent()).trim(), '');
    // OpenAI Chat: what it cannot carry, counted beside the picker and listed, without a click.
    await page.getByTestId('export-format').selectOption('openai');
    await page.getByTestId('export-notices').waitFor();
    const count = page.getByTestId('export-notices-count');
    assert.ok(await count.isVisible(), 'the count is on screen');
    assert.equal((await count.textContent()).trim(), notCarried(notes.length));
    const list = page.getByTestId('export-notices-list');
    assert.ok(await list.isVisible(), 'the list is on screen');
    assert.equal(await list.locator('li').count(), notes.length);
    assert.deepEqual(await pathLines(list.locator('li')), notes);
    assert.equal(await page.getByRole('list', { name: `${notCarried(notes.length)} by OpenAI Chat` }).count(), 1, 'the list is named');
    const [dl2] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-json').click()]);
    assert.equal(readFileSync(await dl2.path(), 'utf8'), chat.stdout);
    // Nothing of the bar or the list goes past the screen's edge.
    const over = await page.evaluate(() => [...document.querySelectorAll('.protocol-bar, .protocol-bar *, .export-notices, .export-notices *')]
      .filter((el) => { const r = el.getBoundingClientRect(); return r.width > 0 && (r.right > window.innerWidth + 1 || r.left < -1); })
      .map((el) => el.className || el.tagName));
    assert.deepEqual(over, [], `${name}: the bar and the list fit`);
    const violations = await axe(page, `${name} export notices`);
    assert.equal(violations.length, 0, `${name}: axe: ${JSON.stringify(violations)}`);
    await page.screenshot({ path: join(shotDir, `export-notices-${name}.png`) });
    if (name === 'light') {
      // The user's pick holds for this document, after a reload too.
      await page.reload();
      await page.getByTestId('protocol-json').waitFor();
      assert.equal(await page.getByTestId('export-format').inputValue(), 'openai');
      await page.getByTestId('export-notices-list').waitFor();
      // Another imported request starts on its own format again.
      await paste(page, readFileSync(join(REQUESTS, 'real/anthropic/web-search-allowed-domains.json'), 'utf8'), { loads: true });
      await page.waitForFunction(() => document.querySelector('[data-testid=export-format]')?.value === 'anthropic');
    }
    assert.deepEqual(page.errors, []);
    await context.close();
  }
});

test('an engine that fails to load is an error with "Try again", for an import and an export, never a hang', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  await page.route('**/token-worker_bg.wasm', (route) => route.fulfill({ status: 404, body: 'gone' }));
  await page.goto(`${BASE}/demo/c`);
  await page.locator('[data-message-id]').first().waitFor();
  const shown = await shownDocument(page);
  const rel = 'crates/envelope/tests/fixtures/requests/openai/forms.json';
  await paste(page, readFileSync(join(root, rel), 'utf8'));
  await page.getByTestId('engine-error').waitFor({ timeout: 20000 });
  assert.equal(await shownDocument(page), shown, 'the demo stays');
  assert.equal(page.url(), `${BASE}/demo/c`);
  // The dialog stays open on a failure (the text is kept); close it.
  await page.getByRole('button', { name: 'Cancel' }).click();
  await page.getByTestId('tab-openai').click();
  await page.getByTestId('export-format').selectOption('anthropic');
  await page.getByTestId('export-error').waitFor({ timeout: 20000 });
  // The engine is back: both try again and succeed.
  await page.unroute('**/token-worker_bg.wasm');
  await page.getByTestId('export-retry').click();
  await page.getByTestId('protocol-json').waitFor();
  assert.equal(await (await wholeJson(page)).textContent(), pep('export', '--format', 'anthropic', 'demos/c.json'));
  await page.getByTestId('load-retry').click();
  await page.waitForURL(`${BASE}/doc`);
  await page.getByTestId('imported-from').waitFor();
  assert.equal(await page.locator('[data-message-id]').count(), JSON.parse(pep('import', rel)).messages.length);
  assert.deepEqual(page.errors, []);
  await context.close();
});

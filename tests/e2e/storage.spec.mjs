// Your document: opened, dropped, saved and read back after a reload;
// storage that is corrupt, full or refused.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, BASE, root, newPage } from './helpers.mjs';

test('a loaded document survives a reload; corrupt storage is reported, not fatal', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  await page.goto(`${BASE}/demo/b`);
  await page.locator('[data-message-id]').first().waitFor();
  await page.getByRole('button', { name: 'Paste…' }).click();
  const text = readFileSync(join(root, 'demos/c.json'), 'utf8').replace('"c-u1"', '"mine-u1"');
  await page.getByTestId('paste-json').fill(text);
  await page.getByTestId('paste-load').click();
  await page.waitForURL(`${BASE}/doc`);
  await page.locator('[data-message-id="mine-u1"]').waitFor();
  await page.getByTestId('tab-raw').click();
  const theme = async () => page.evaluate(() => document.documentElement.dataset.theme || null);
  assert.equal(await theme(), null, 'the theme follows the system until toggled');
  await page.getByTestId('theme-toggle').click();
  assert.equal(await theme(), 'dark', 'light system → dark');
  await page.reload();
  await page.locator('[data-message-id="mine-u1"]').waitFor();
  assert.equal(await page.getByTestId('tab-raw').getAttribute('aria-selected'), 'true', 'the tab preference persists');
  assert.equal(await theme(), 'dark', 'the theme persists');
  assert.equal(await page.evaluate(() => getComputedStyle(document.body).backgroundColor), 'rgb(15, 19, 26)', 'dark colours apply');
  // Corrupt both keys: the app starts with defaults and says so.
  await page.evaluate(() => { localStorage.setItem('pep/v1/document', '{not json'); localStorage.setItem('pep/v1/prefs', '[1,2'); });
  await page.goto(`${BASE}/`);
  await page.locator('[data-message-id="a-sys"]').waitFor();
  // Away from /doc, the saved document is read after the first paint.
  await page.getByTestId('notice').filter({ hasText: 'saved document could not be read' }).waitFor();
  const notices = await page.getByTestId('notice').allTextContents();
  assert.ok(notices.some((n) => n.includes('saved document could not be read')), notices.join('|'));
  assert.ok(notices.some((n) => n.includes('preferences were unreadable')), notices.join('|'));
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('render first, check after: a saved document is shown at once, then its warnings arrive; one that no longer passes the checks is taken away and said so, storage untouched', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  const doc = (messages) => JSON.stringify({ version: '1.0', model: 'gpt-4o', messages });
  const msg = (id, text) => ({ id, role: 'user', timestamp: 1767225600000, segments: [{ kind: 'text', content: text }] });
  const save = (text) => page.evaluate((t) => localStorage.setItem('pep/v1/document', JSON.stringify({ name: 'saved.json', text: t, imported: null })), text);
  await page.goto(`${BASE}/`);
  await page.locator('[data-message-id="a-sys"]').waitFor();
  assert.equal(await page.getByTestId('warnings').count(), 0, 'demo A has nothing to say after its check');
  // A placeholder with no variable: a warning of the semantic pass.
  await save(doc([msg('w-1', 'Hello {{who}}')]));
  await page.goto(`${BASE}/doc`);
  await page.locator('[data-message-id="w-1"]').waitFor();
  await page.getByTestId('warnings').filter({ hasText: 'placeholder {{who}} has no static_var' }).waitFor();
  // Two messages with one id: an error of the semantic pass.
  const invalid = doc([msg('d-1', 'one'), msg('d-1', 'two')]);
  await save(invalid);
  await page.goto(`${BASE}/doc`);
  await page.getByTestId('notice').filter({ hasText: 'no longer loads (1 error)' }).waitFor();
  await page.getByText('No document of yours yet').waitFor();
  assert.equal(await page.locator('[data-message-id="d-1"]').count(), 0);
  const kept = await page.evaluate(() => JSON.parse(localStorage.getItem('pep/v1/document')).text);
  assert.equal(kept, invalid, 'the saved text is kept untouched');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('a document over the storage quota still opens and the failed save is reported', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  await page.goto(`${BASE}/`);
  await page.locator('[data-message-id]').first().waitFor();
  const big = { version: '1.0', messages: [{ id: 'big', role: 'user', timestamp: 0, segments: [{ kind: 'text', content: 'x'.repeat(6_000_000) }] }] };
  const file = join(root, 'target', 'big.envelope.json');
  writeFileSync(file, JSON.stringify(big));
  await page.getByTestId('open-file').setInputFiles(file);
  await page.locator('[data-message-id="big"]').waitFor();
  const notices = await page.getByTestId('notice').allTextContents();
  assert.ok(notices.some((n) => n.includes('could not be saved')), notices.join('|'));
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('drop: a file dropped on the page opens (the opening code fetched with it); a broken one lists its error', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  await page.goto(`${BASE}/`);
  await page.locator('[data-message-id]').first().waitFor();
  const opening = () => page.evaluate(() => performance.getEntriesByType('resource').filter((e) => /split_opening-/.test(e.name)).length);
  assert.equal(await opening(), 0, 'the first screen does not fetch the opening code');
  const drop = async (name, text) => {
    const dt = await page.evaluateHandle(([n, t]) => {
      const d = new DataTransfer();
      d.items.add(new File([t], n, { type: 'application/json' }));
      return d;
    }, [name, text]);
    await page.locator('.app').dispatchEvent('drop', { dataTransfer: dt });
  };
  await drop('broken.json', '{"version": "1.0",');
  await page.getByTestId('load-errors').filter({ hasText: 'broken.json could not be loaded' }).waitFor();
  assert.equal(page.url(), `${BASE}/`, 'a failed open stays where it was');
  assert.equal(await opening(), 1, 'the opening code, once');
  const text = readFileSync(join(root, 'demos/b.json'), 'utf8').replace('"b-u1"', '"dropped-u1"');
  await drop('dropped.json', text);
  await page.waitForURL(`${BASE}/doc`);
  await page.locator('[data-message-id="dropped-u1"]').waitFor();
  assert.equal(await page.getByTestId('load-errors').count(), 0, 'the error is gone once a document opened');
  assert.equal(await opening(), 1, 'fetched once');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('storage the browser refuses is reported, and the app works without it', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  await context.addInitScript(() => {
    Object.defineProperty(window, 'localStorage', { get() { throw new DOMException('blocked', 'SecurityError'); } });
  });
  await page.goto(`${BASE}/demo/d`);
  await page.locator('[data-message-id]').first().waitFor();
  await page.getByText('Preferences could not be saved: this browser does not let the page store data').waitFor();
  await page.getByTestId('tab-raw').click();
  await page.getByTestId('theme-toggle').click();
  await page.getByTestId('theme-toggle').click();
  assert.equal(await page.getByText('Preferences could not be saved').count(), 1, 'one notice, not one per change');
  assert.deepEqual(page.errors, []);
  await context.close();
});

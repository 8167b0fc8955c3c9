// Editing, sharing (issue 10): edits update the export live with undo and
// redo, token counts follow, Copy link round trips with `pep share`, a phone.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, BASE, root, shotDir, pep, pepFull, newPage, paste, exportText, exportHas, reveal, editDemo, wholeJson } from './helpers.mjs';

test('edit: model, text and tool-call arguments update the export live; undo and redo; the demo stays', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  await page.goto(`${BASE}/demo/d`);
  await page.locator('[data-message-id]').first().waitFor();
  assert.equal(await page.getByTestId('edit-bar').count(), 0, 'Edit mode is off by default');
  assert.equal(await page.locator('[data-edit=true]').count(), 0);
  await editDemo(page, 'd');
  // The model.
  await page.getByTestId('edit-model').fill('gpt-edit-9');
  await exportHas(page, '"model": "gpt-edit-9"');
  await page.waitForURL(`${BASE}/doc`);
  assert.ok(await page.getByRole('link', { name: 'Your document' }).count() === 1, 'the edited demo is your document');
  // A text segment: the field keeps focus across the rebuild.
  const text = page.getByTestId('edit-text').first();
  await text.click();
  await text.fill('QUOKKA question {{nobody}}');
  await exportHas(page, 'QUOKKA question');
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'edit-text', 'focus stays in the field');
  // Warnings follow: an undeclared placeholder is warned about.
  await page.getByTestId('warnings').filter({ hasText: 'warning' }).waitFor();
  // Arguments: checked as typed, the error says what and where; nothing is committed.
  const args = (await reveal(page, '[data-testid=edit-arguments]')).first();
  const before = await exportText(page);
  await args.fill('{\n  "city": "Oslo",\n  "days": \n}');
  const err = page.getByTestId('edit-error');
  await err.waitFor();
  assert.match(await err.textContent(), /line 4 column 1/);
  await page.waitForTimeout(400);
  assert.equal(await exportText(page), before, 'an invalid argument object is not committed');
  await args.fill('[1]');
  assert.match(await err.textContent(), /JSON object/);
  await args.fill('{"city": "EDIT-CITY", "days": 2}');
  await exportHas(page, 'EDIT-CITY');
  assert.equal(await page.getByTestId('edit-error').count(), 0);
  // Undo (button) takes the arguments back; Ctrl+Z the text; Ctrl+Shift+Z redoes it.
  await page.getByTestId('edit-undo').click();
  await exportHas(page, 'EDIT-CITY', false);
  assert.ok((await exportText(page)).includes('QUOKKA question'));
  await page.locator('body').press('Control+z');
  await exportHas(page, 'QUOKKA question', false);
  assert.ok((await exportText(page)).includes('gpt-edit-9'), 'the model edit is an earlier step');
  await page.locator('body').press('Control+Shift+z');
  await exportHas(page, 'QUOKKA question');
  await page.getByTestId('edit-redo').click();
  await exportHas(page, 'EDIT-CITY');
  assert.ok(await page.getByTestId('edit-redo').isDisabled(), 'nothing more to redo');
  // Download envelope: the edited document, valid, under its own name.
  const [dl] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-envelope').click()]);
  assert.equal(dl.suggestedFilename(), 'demo-d-edited.envelope.json');
  const saved = join(root, 'target', 'e2e-edited.envelope.json');
  writeFileSync(saved, readFileSync(await dl.path(), 'utf8'));
  const doc = JSON.parse(readFileSync(saved, 'utf8'));
  assert.equal(doc.model, 'gpt-edit-9');
  assert.equal(pepFull('validate', saved).status, 0, 'the downloaded envelope validates');
  // The copied export is `pep export` of the downloaded envelope.
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: BASE });
  await page.getByTestId('copy-json').click();
  await page.getByTestId('copy-status').filter({ hasText: 'Copied' }).waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), pep('export', saved));
  // Turning Edit mode off changes nothing in the document.
  const edited = await exportText(page);
  await page.getByTestId('edit-toggle').click();
  assert.equal(await page.locator('[data-edit=true]').count(), 0);
  assert.equal(await exportText(page), edited);
  // The demo is untouched; the edited copy persists as your document.
  await page.goto(`${BASE}/demo/d`);
  await page.getByTestId('protocol-json').waitFor();
  assert.ok(!(await exportText(page)).includes('QUOKKA'));
  await page.goto(`${BASE}/doc`);
  await exportHas(page, 'EDIT-CITY');
  await page.screenshot({ path: join(shotDir, 'edit-doc.png') });
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('edit: variables, memory, skills, long text and text update the export; undo restores', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: BASE });
  const cases = [
    ['a', 'edit-variable', 'VAR-EDITED-1'],
    ['b', 'edit-memory', 'WOMBAT-MEMORY'],
    ['c', 'edit-skill', 'PLATYPUS-SKILL'],
    ['e', 'edit-text', 'LONGTEXT-EDIT'],
    ['d', 'edit-text', 'PLAINTEXT-EDIT'],
  ];
  for (const [d, testid, marker] of cases) {
    await editDemo(page, d);
    await reveal(page, `[data-testid=${testid}]`);
    let field = page.getByTestId(testid).first();
    if (testid === 'edit-skill') {
      // A loaded skill (its body is sent).
      const n = await page.getByTestId(testid).count();
      for (let i = 0; i < n; i++) if ((await page.getByTestId(testid).nth(i).inputValue()).length > 0) { field = page.getByTestId(testid).nth(i); break; }
    }
    if (d === 'e') field = (await reveal(page, '[data-kind=long_text] [data-testid=edit-text]')).first();
    if (d === 'd') field = (await reveal(page, '[data-kind=text] [data-testid=edit-text]')).first();
    const old = await field.inputValue();
    assert.ok(old.length > 0, `demo ${d}: ${testid} shows the value`);
    await field.fill(`${marker} ${old.slice(0, 20)}`);
    await exportHas(page, marker);
    await page.waitForURL(`${BASE}/doc`);
    await page.getByTestId('edit-undo').click();
    await exportHas(page, marker, false);
    // Undone: the request is again exactly the demo's.
    await page.getByTestId('copy-json').click();
    await page.getByTestId('copy-status').filter({ hasText: 'Copied' }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), pep('export', `demos/${d}.json`), `demo ${d}: undo restores`);
  }
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('edit: token counts follow an edit in the Budget tab', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  await editDemo(page, 'd');
  await page.getByTestId('tab-budget').click();
  await page.getByTestId('budget-summary').waitFor({ timeout: 30000 });
  const before = Number((await page.getByTestId('kept-tokens').textContent()).replace(/[^0-9]/g, ''));
  await page.getByTestId('edit-text').first().fill('word '.repeat(2000));
  await page.waitForFunction((b) => {
    const el = document.querySelector('[data-testid=kept-tokens]');
    return el && Number(el.textContent.replace(/[^0-9]/g, '')) > b + 1000;
  }, before, { timeout: 30000 });
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('share: Copy link round trip, pep share links, damaged and oversized links', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: BASE });
  await page.goto(`${BASE}/demo/e`);
  await page.locator('[data-message-id]').first().waitFor();
  assert.match(await page.locator('.share-note').textContent(), /never send to a server/);
  await page.getByTestId('copy-link').click();
  await page.getByTestId('share-status').filter({ hasText: 'Link copied' }).waitFor();
  const link = await page.evaluate(() => navigator.clipboard.readText());
  assert.ok(link.startsWith(`${BASE}/doc#d=`), link.slice(0, 80));
  // The browser's deflate reads back natively (the CLI's decoder).
  assert.deepEqual(JSON.parse(pep('share', '--decode', link)), JSON.parse(readFileSync(join(root, 'demos/e.json'), 'utf8')));
  // Opened in a fresh browser (no storage): the same document, as /doc.
  const other = await newPage(browser);
  await other.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: BASE });
  await other.page.goto(link);
  await other.page.waitForURL(`${BASE}/doc`);
  await other.page.locator('[data-message-id]').first().waitFor();
  await other.page.getByTestId('tab-raw').click();
  await other.page.getByTestId('copy-json').click();
  await other.page.getByTestId('copy-status').filter({ hasText: 'Copied' }).waitFor();
  const raw = await other.page.evaluate(() => navigator.clipboard.readText());
  assert.deepEqual(JSON.parse(raw), JSON.parse(readFileSync(join(root, 'demos/e.json'), 'utf8')), 'the shared document');
  // A link `pep share` printed opens the same way (miniz deflate, browser inflate).
  const cliLink = pep('share', '--base', BASE, 'demos/d.json').trim();
  await other.page.goto(cliLink);
  await other.page.locator('[data-message-id="d-u1"], [data-message-id]').first().waitFor();
  await other.page.getByTestId('tab-raw').click();
  await other.page.waitForFunction(() => document.querySelector('[data-testid=protocol-json]')?.textContent.includes('"d-'));
  assert.deepEqual(JSON.parse(await (await wholeJson(other.page)).textContent()), JSON.parse(readFileSync(join(root, 'demos/d.json'), 'utf8')));
  // Damaged links: a clear error, no crash, the page still works.
  for (const bad of ['%%%', 'AAAA', cliLink.split('#d=')[1].slice(0, 200)]) {
    await other.page.goto(`${BASE}/doc#d=${bad}`);
    const errs = other.page.getByTestId('load-errors');
    await errs.waitFor();
    assert.match(await errs.textContent(), /share-link|link/i, bad.slice(0, 10));
    assert.equal(await other.page.getByTestId('crash').count(), 0);
  }
  assert.deepEqual(other.page.errors, []);
  await other.context.close();
  // Too large for a link: a clear message, no link.
  const noise = randomBytes(120000).toString('base64');
  const big = { version: '1.0', messages: [{ id: 'm1', role: 'user', timestamp: 0, segments: [{ kind: 'text', content: noise }] }] };
  await paste(page, JSON.stringify(big), { loads: true });
  await page.getByTestId('copy-link').click();
  const status = page.getByTestId('share-status');
  await status.filter({ hasText: 'No link' }).waitFor();
  assert.match(await status.textContent(), /too large for a link/);
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('edit and share on a phone (390 × 844): nothing overflows', async ({ browser }) => {
  const { context, page } = await newPage(browser, { viewport: { width: 390, height: 844 } });
  await editDemo(page, 'd');
  await page.getByTestId('edit-text').first().fill('Phone edit');
  await page.waitForURL(`${BASE}/doc`);
  const over = await page.evaluate(() => [...document.querySelectorAll('.edit-bar, .edit-bar *, .edit-field, .share, .share *')]
    .filter((el) => { const r = el.getBoundingClientRect(); return r.width > 0 && (r.right > window.innerWidth + 1 || r.left < -1); })
    .map((el) => el.className || el.tagName));
  assert.deepEqual(over, [], 'edit bar, fields and share controls fit the width');
  await page.screenshot({ path: join(shotDir, 'edit-phone.png') });
  assert.deepEqual(page.errors, []);
  await context.close();
});

// The Template page loads what `include`, `import` and `extends` name from an
// opened folder or added files: prompt-poet's README "decomposing into
// sections" example renders as the real prompt-poet 0.0.52 rendered it
// (crates/envelope/tests/fixtures/promptpoet/folders.json).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, BASE, root, newPage } from './helpers.mjs';

const FIXTURES = join(root, 'crates/envelope/tests/fixtures/promptpoet');

test('Template: includes load from an opened folder and from added files; an error in an included file names it', async ({ browser }) => {
  const expected = JSON.parse(readFileSync(join(FIXTURES, 'folders.json'), 'utf8')).cases;
  const dir = join(FIXTURES, 'folders/readme_sections');
  const { context, page } = await newPage(browser);
  await page.goto(`${BASE}/template`);
  await page.getByTestId('template-source').fill(readFileSync(join(dir, 'main.yml.j2'), 'utf8'));
  await page.getByTestId('template-data').fill(readFileSync(join(dir, 'data_audio_homework.json'), 'utf8'));
  // Alone, the template's first include is not found.
  const err = page.getByTestId('template-error');
  await err.waitFor({ timeout: 60000 });
  assert.match(await err.textContent(), /TemplateNotFound/);

  // The folder opened: the parts prompt-poet gave, in its order.
  await page.getByTestId('template-folder').setInputFiles(dir);
  await page.getByTestId('template-loaded-files').waitFor();
  assert.match(await page.getByTestId('template-loaded-files').textContent(), /sections\/system_instruction\.yml\.j2/);
  const want = expected['readme_sections/data_audio_homework'].parts;
  await page.getByTestId('template-status').filter({ hasText: `Rendered ${want.length} parts` }).waitFor({ timeout: 60000 });
  const names = await page.getByTestId('template-part').locator('td:first-child').allTextContents();
  assert.deepEqual(names, want.map((p) => p.name));
  const roles = await page.getByTestId('template-part').locator('td:nth-child(2)').allTextContents();
  assert.deepEqual(roles, want.map((p) => p.role));

  // Forgotten: not found again.
  await page.getByTestId('template-forget-files').click();
  await err.waitFor({ timeout: 30000 });

  // Added files (no folder): names are the files' names.
  await page.getByTestId('template-source').fill("{% include 'a.yml.j2' %}\n{% include 'b.yml.j2' %}\n");
  await page.getByTestId('template-data').fill('{}');
  await page.getByTestId('template-files').setInputFiles([
    { name: 'a.yml.j2', mimeType: 'text/plain', buffer: Buffer.from('- name: a\n  content: "{{ \'a b\'|urlencode }}"\n') },
  ]);
  await err.filter({ hasText: /b\.yml\.j2/ }).waitFor({ timeout: 30000 });
  await page.getByTestId('template-files').setInputFiles([
    { name: 'b.yml.j2', mimeType: 'text/plain', buffer: Buffer.from('- name: b\n\n  content: {{ x.y.z }}\n') },
  ]);
  // An error in an included file: its name and line, not a line of the editor.
  await err.filter({ hasText: /b\.yml\.j2 line 3: UndefinedError/ }).waitFor({ timeout: 30000 });
  assert.equal(await err.getAttribute('data-line'), null);
  await page.getByTestId('template-files').setInputFiles([
    { name: 'b.yml.j2', mimeType: 'text/plain', buffer: Buffer.from('- name: b\n  content: b\n') },
  ]);
  await page.getByTestId('template-status').filter({ hasText: 'Rendered 2 parts' }).waitFor({ timeout: 30000 });

  // Files dropped on the page are added as "Add files…" adds them (not opened
  // as documents): the page stays, and the include they serve renders.
  await page.getByTestId('template-forget-files').click();
  await page.getByTestId('template-source').fill("{% include 'c.yml.j2' %}\n{% include 'd.yml.j2' %}\n");
  await err.filter({ hasText: /c\.yml\.j2/ }).waitFor({ timeout: 30000 });
  const dt = await page.evaluateHandle(() => {
    const d = new DataTransfer();
    d.items.add(new File(['- name: c\n  content: c\n'], 'c.yml.j2', { type: 'text/plain' }));
    d.items.add(new File(['- name: d\n  content: d\n'], 'd.yml.j2', { type: 'text/plain' }));
    return d;
  });
  await page.locator('.app').dispatchEvent('drop', { dataTransfer: dt });
  await page.getByTestId('template-loaded-files').filter({ hasText: 'c.yml.j2, d.yml.j2' }).waitFor({ timeout: 30000 });
  await page.getByTestId('template-status').filter({ hasText: 'Rendered 2 parts' }).waitFor({ timeout: 30000 });
  assert.ok(page.url().endsWith('/template'), `still the Template page: ${page.url()}`);
  assert.deepEqual(await page.getByTestId('template-part').locator('td:first-child').allTextContents(), ['c', 'd']);
  assert.deepEqual(page.errors, []);
  await context.close();
});

// The Skills page (/skills, issue 22 item 4): SKILL.md files opened,
// dropped or pasted, or a folder of skills, and what the model sees of each
// before loading (its line of the listing) and after (its body), with token
// counts (checked against `pep skill --format json` of the same files), the
// parser's warnings with their lines, errors per file, the body as Markdown
// (hostile text stays text), and "Open in the viewer". Keyboard only where a
// person would use it; axe-core clean; screenshots at 1400 px and 390 px,
// light and dark.
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, BASE, DIST, root, shotDir, newPage, axe, settle, pep, paste } from './helpers.mjs';

const FIXTURES = join(root, 'crates/envelope/tests/fixtures/skills');
const HOSTILE_BODY = '# Hostile\n\n<script>window.__pwned = 1</script>\n\n<img src=x onerror="window.__pwned = 2">\n\n[link](javascript:alert(1))\n\nStill *Markdown*.';

/** A folder of skills under target/e2e/skills/: our fixtures, and a broken
 * file, a duplicate name, a hostile body, and files that are not skills. */
function skillsFolder() {
  const dir = join(root, 'target/e2e/skills');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  cpSync(FIXTURES, dir, { recursive: true });
  const put = (path, text) => { mkdirSync(join(dir, path, '..'), { recursive: true }); writeFileSync(join(dir, path), text); };
  put('broken/SKILL.md', '---\nname: broken\ndescription: [unclosed\n---\nBody\n');
  put('csv-copy/SKILL.md', '---\nname: csv-insights\ndescription: An older copy of the CSV skill.\n---\nOld body.\n');
  put('hostile/SKILL.md', `---\nname: hostile\ndescription: "<b>not bold</b> <img src=x onerror=alert(1)>"\n---\n${HOSTILE_BODY}\n`);
  put('starter/notes.md', 'Notes that are not a skill.\n');
  put('csv-insights/scripts/profile.py', 'print("hello")\n');
  return dir;
}

/** One SKILL.md with a bad name (a warning on line 2). */
function oneSkill() {
  const dir = join(root, 'target/e2e/one-skill');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'SKILL.md');
  writeFileSync(file, '---\nname: One_Skill\ndescription: Checks one thing. Use when asked to check it.\n---\n\n# One skill\n\nDo **one** thing.\n');
  return file;
}

/** `pep skill --format json` of `args` (its exit status is 1 when a file has an error). */
function pepSkills(...args) {
  let out;
  try {
    out = pep('skill', '--format', 'json', ...args);
  } catch (e) {
    out = e.stdout;
  }
  return JSON.parse(out);
}

const tokensText = (n) => `${n.toLocaleString('en-US')} token${n === 1 ? '' : 's'}`;

async function waitCounted(page) {
  await page.getByTestId('skills-summary').waitFor();
  await page.waitForFunction(() => /\d+ tokens?$/.test(document.querySelector('[data-testid=skills-listing-tokens]')?.textContent || ''), null, { timeout: 60000 });
}

test('skills: one SKILL.md through Open… shows before and after loading, its warning with its line, and opens in the viewer', async ({ browser }) => {
  const file = oneSkill();
  const expected = pepSkills(file).skills[0];
  const { context, page } = await newPage(browser);
  await page.goto(`${BASE}/`);
  await page.locator('[data-message-id]').first().waitFor();
  await page.getByTestId('open-file').setInputFiles(file);
  await page.waitForURL(`${BASE}/skills`);
  assert.equal(await page.title(), 'Skills · Prompt Envelope');
  await waitCounted(page);
  const card = page.getByTestId('skill-card');
  assert.equal(await card.count(), 1);
  assert.equal(await card.locator('h3').textContent(), 'One_Skill');
  assert.equal(await card.locator('.skill-card-desc').textContent(), 'Checks one thing. Use when asked to check it.');
  assert.equal(await card.getByTestId('skill-l1-tokens').textContent(), tokensText(expected.l1.tokens));
  assert.equal(await card.getByTestId('skill-l2-tokens').textContent(), `+${tokensText(expected.l2.tokens)}`);
  // The name rule's warning, on line 2 (no folder: no folder warning here).
  const findings = await card.getByTestId('skill-finding').allTextContents();
  assert.equal(findings.length, 1, findings.join(' | '));
  assert.match(findings[0], /^warningline 2name.*only lowercase letters/);
  // The listing of one skill.
  assert.equal(await page.getByTestId('skills-count').textContent(), '1');
  // Keyboard: the body, then the viewer.
  await card.getByTestId('skill-body-toggle').focus();
  await page.keyboard.press('Enter');
  await card.locator('.skill-card-body .md h1').waitFor();
  assert.equal(await card.locator('.skill-card-body .md strong').textContent(), 'one');
  assert.equal(await card.getByTestId('skill-body-toggle').getAttribute('aria-expanded'), 'true');
  await page.getByTestId('skills-open-viewer').focus();
  await page.keyboard.press('Enter');
  await page.waitForURL(`${BASE}/doc`);
  const seg = page.locator('[data-kind=skills]');
  await seg.waitFor();
  assert.match(await seg.textContent(), /1 skill · 0 loaded/);
  assert.match(await seg.textContent(), /One_Skill/);
  // The header links back to the page.
  await page.getByTestId('nav-skills').click();
  await page.waitForURL(`${BASE}/skills`);
  await waitCounted(page);
  assert.equal(await page.getByTestId('skill-card').count(), 1, 'the last skills read are shown again');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('skills: a folder through "Open folder…": cards, totals equal to pep, errors per file, duplicates, other files, hostile bodies stay text; axe clean; screenshots', async ({ browser }) => {
  mkdirSync(shotDir, { recursive: true });
  const dir = skillsFolder();
  const report = pepSkills(dir);
  const listed = report.skills.filter((s) => s.name !== null);
  for (const [width, height] of [[1400, 900], [390, 844]]) {
    for (const scheme of ['light', 'dark']) {
      const { context, page } = await newPage(browser, { viewport: { width, height }, colorScheme: scheme });
      await page.goto(`${BASE}/skills`);
      await page.getByTestId('skills-empty').waitFor();
      await page.getByTestId('skills-folder').setInputFiles(dir);
      await waitCounted(page);
      // One card per listed skill, in pep's order, each with pep's counts.
      const cards = page.getByTestId('skill-card');
      assert.equal(await cards.count(), listed.length);
      assert.deepEqual(await cards.locator('h3').allTextContents(), listed.map((s) => s.name));
      for (let i = 0; i < listed.length; i++) {
        assert.equal(await cards.nth(i).getByTestId('skill-l1-tokens').textContent(), tokensText(listed[i].l1.tokens), listed[i].name);
        assert.equal(await cards.nth(i).getByTestId('skill-l2-tokens').textContent(), `+${tokensText(listed[i].l2.tokens)}`, listed[i].name);
      }
      // The totals: the whole listing, what every request carries.
      assert.equal(await page.getByTestId('skills-count').textContent(), String(listed.length));
      assert.equal(await page.getByTestId('skills-listing-tokens').textContent(), tokensText(report.listing.tokens));
      const bodies = listed.reduce((n, s) => n + s.l2.tokens, 0);
      assert.equal(await page.getByTestId('skills-bodies-tokens').textContent(), `+${tokensText(bodies)}`);
      assert.equal(await page.getByTestId('skills-warnings').textContent(), String(report.warnings));
      assert.equal(await page.getByTestId('skills-failed').textContent(), '1');
      // The broken file: where and what.
      const failed = page.getByTestId('skill-error');
      assert.equal(await failed.count(), 1);
      assert.match(await failed.locator('h3').textContent(), /broken\/SKILL\.md$/);
      assert.match(await failed.textContent(), /errorline 4.*invalid YAML/);
      // The folder and duplicate warnings, each with its line.
      const starter = cards.filter({ hasText: 'starter-skill' });
      assert.match(await starter.getByTestId('skill-finding').first().textContent(), /^warningline 2name.*differs from its folder `starter`/);
      const dup = cards.filter({ has: page.locator('h3', { hasText: /^csv-insights$/ }) });
      assert.equal(await dup.count(), 2);
      for (let i = 0; i < 2; i++) assert.match(await dup.nth(i).textContent(), /is also the name of `skills\/csv-/);
      // The files that are not skills, by path and size.
      const others = page.getByTestId('skills-others');
      assert.match(await others.locator('summary').textContent(), /^2 other files not read/);
      // Hostile text: the description is text; the body's HTML is not run.
      const hostile = cards.filter({ has: page.locator('h3', { hasText: /^hostile$/ }) });
      assert.equal(await hostile.locator('.skill-card-desc').textContent(), '<b>not bold</b> <img src=x onerror=alert(1)>');
      await hostile.getByTestId('skill-body-toggle').click();
      await hostile.locator('.skill-card-body .md h1').waitFor();
      assert.equal(await hostile.locator('.skill-card-body script, .skill-card-body img[onerror], .skill-card-body a[href^="javascript"]').count(), 0);
      assert.equal(await page.evaluate(() => window.__pwned), undefined);
      await starter.getByTestId('skill-body-toggle').click();
      await others.locator('summary').click();
      await settle(page);
      if (width === 1400 && scheme === 'light') {
        const found = await axe(page, '/skills');
        assert.deepEqual(found, [], JSON.stringify(found, null, 1));
      }
      // Nothing wider than the screen on a phone.
      const docWidth = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(docWidth <= width, `the page is ${docWidth}px wide`);
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: join(shotDir, `skills-${width}-${scheme}.png`), fullPage: width === 1400 });
      if (width === 390) {
        await starter.scrollIntoViewIfNeeded();
        await page.screenshot({ path: join(shotDir, `skills-${width}-${scheme}-card.png`) });
      }
      assert.deepEqual(page.errors, []);
      await context.close();
    }
  }
});

test('skills: a dropped folder is read through its entries; a card\'s "Open in the viewer" loads that skill', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  await page.goto(`${BASE}/`);
  await page.locator('[data-message-id]').first().waitFor();
  const skill = (name, description) => `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\n\nBody of ${name}.\n`;
  // A drop of one folder, as Chromium hands it: a file item whose entry is a
  // directory, read in batches (readEntries until it gives none).
  await page.evaluate(({ files }) => {
    const fileEntry = (path, text) => ({
      isFile: true, isDirectory: false, name: path.split('/').pop(), fullPath: `/${path}`,
      file(ok) { setTimeout(() => ok(new File([text], path.split('/').pop()))); },
    });
    const dirEntry = (path, children) => ({
      isFile: false, isDirectory: true, name: path.split('/').pop(), fullPath: `/${path}`,
      createReader() {
        let at = 0;
        return { readEntries(ok) { const batch = children.slice(at, at + 2); at += 2; setTimeout(() => ok(batch)); } };
      },
    });
    const tree = dirEntry('dropped', [
      dirEntry('dropped/beta', [fileEntry('dropped/beta/SKILL.md', files.beta), fileEntry('dropped/beta/README.md', 'x')]),
      dirEntry('dropped/alpha', [fileEntry('dropped/alpha/SKILL.md', files.alpha)]),
      dirEntry('dropped/node_modules', [fileEntry('dropped/node_modules/x/SKILL.md', files.alpha)]),
      fileEntry('dropped/LICENSE', 'MIT'),
    ]);
    const dt = new DataTransfer();
    dt.items.add(new File([''], 'dropped'));
    DataTransferItem.prototype.webkitGetAsEntry = () => tree;
    document.querySelector('.app').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, { files: { alpha: skill('alpha', 'First.'), beta: skill('beta', 'Second.') } });
  await page.waitForURL(`${BASE}/skills`);
  await waitCounted(page);
  const cards = page.getByTestId('skill-card');
  assert.deepEqual(await cards.locator('h3').allTextContents(), ['alpha', 'beta']);
  assert.deepEqual(await cards.locator('.skill-file').allTextContents(), ['dropped/alpha/SKILL.md', 'dropped/beta/SKILL.md']);
  assert.match(await page.getByTestId('skills-others').locator('summary').textContent(), /^2 other files not read/);
  // beta, loaded, in the viewer: its body is in the request.
  await cards.nth(1).getByTestId('skill-open-viewer').focus();
  await page.keyboard.press('Enter');
  await page.waitForURL(`${BASE}/doc`);
  const seg = page.locator('[data-kind=skills]');
  await seg.waitFor();
  assert.match(await seg.textContent(), /2 skills · 1 loaded/);
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('skills: a pasted SKILL.md goes to the Skills page; a file without front matter is an error that says so', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  await page.goto(`${BASE}/`);
  await page.locator('[data-message-id]').first().waitFor();
  await paste(page, readFileSync(join(FIXTURES, 'sql-review/SKILL.md'), 'utf8'));
  await page.waitForURL(`${BASE}/skills`);
  await waitCounted(page);
  assert.equal(await page.locator('dialog[open]').count(), 0, 'the paste dialog closed');
  assert.deepEqual(await page.getByTestId('skill-card').locator('h3').allTextContents(), ['sql-review']);
  // Markdown without front matter, through "Open SKILL.md files…".
  await page.getByTestId('skills-files').setInputFiles({ name: 'notes.md', mimeType: 'text/markdown', buffer: Buffer.from('# Notes\n\nNo front matter.\n') });
  await page.getByTestId('skill-error').waitFor();
  assert.match(await page.getByTestId('skill-error').textContent(), /notes\.md.*errorline 1no YAML front matter/);
  assert.equal(await page.getByTestId('skill-card').count(), 0);
  assert.equal(await page.getByTestId('skills-open-viewer').count(), 0, 'nothing to open');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('skills: the page\'s code is a split module, fetched on the first visit of /skills, never by the first screen (release builds)', async ({ browser }) => {
  test.skip(!readdirSync(DIST).some((f) => /-split_\w+-[0-9a-f]{16}\.wasm$/.test(f)), 'a build without split modules (debug)');
  const { context, page } = await newPage(browser);
  const fetched = () => page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name).filter((n) => /-split_skills_page-[0-9a-f]{16}\.wasm$/.test(n)).length);
  await page.goto(`${BASE}/`);
  await page.locator('[data-message-id]').first().waitFor();
  await page.waitForTimeout(500);
  assert.equal(await fetched(), 0, 'the first screen does not fetch the Skills page');
  await page.getByTestId('nav-skills').click();
  await page.getByTestId('skills-empty').waitFor();
  assert.equal(await fetched(), 1);
  assert.deepEqual(page.errors, []);
  await context.close();
});

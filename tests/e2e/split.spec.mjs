// The split WebAssembly: which module each first use fetches, the manifest
// of names and digests, and what a failed or altered fetch shows.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, BASE, root, newPage, paste, pep, wholeJson } from './helpers.mjs';

test('split: the first screen fetches no split module until it is complete, then only the semantic pass and the secret detector; search, Budget, Checks, Edit, Compare and Template fetch theirs on first use; a failed fetch says so and Retry recovers', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  const split = () => page.evaluate(() => performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname)
    .filter((p) => /-(?:split_\w+|chunk_\d+)-[0-9a-f]{16}\.wasm$/.test(p)).map((p) => p.replace(/^.*-(split_\w+|chunk_\d+)-[0-9a-f]{16}\.wasm$/, '$1')));
  await page.goto(`${BASE}/`);
  // The frame in which the first screen is complete (the Markdown table
  // rendered, the panel's JSON painted): which split modules were asked for by then.
  const atComplete = await (await page.waitForFunction(() => {
    const j = document.querySelector('[data-testid=protocol-json]');
    if (!(document.querySelector('[data-message-id] table') && j && j.innerText.includes('messages'))) return false;
    return performance.getEntriesByType('resource').map((e) => e.name).filter((n) => /-(?:split_\w+|chunk_\d+)-[0-9a-f]{16}\.wasm$/.test(n));
  }, null, { polling: 'raf' })).jsonValue();
  assert.deepEqual(atComplete, [], 'no split module before the first screen is complete');
  // Then the demo's semantic pass (src/recheck.rs) and the secret detector (src/secrets.rs).
  await page.waitForFunction(() => ['split_recheck', 'split_secrets'].every((m) => performance.getEntriesByType('resource').some((e) => e.name.includes(m))));
  await page.waitForTimeout(300);
  const first = await split();
  assert.deepEqual(first.filter((n) => !['split_recheck', 'split_secrets'].includes(n) && !n.startsWith('chunk_')), [], `demo A loads no other split module: ${first}`);
  // The search's code comes with the first query.
  await page.getByTestId('search').fill('sam PATEL');
  await page.waitForFunction(() => /^1 of \d+$/.test(document.querySelector('[data-testid=search-count]').textContent));
  // (with any chunk of code it shares with other split modules)
  assert.deepEqual((await split()).slice(first.length).filter((n) => n.startsWith('split_')), ['split_search']);
  await page.getByTestId('search').fill('');
  // A module whose bytes are not the build's (a valid module with one more
  // custom section, which would run as before) is refused by its integrity
  // digest; a failed fetch too: the tab says so; Retry loads it.
  let fail = 'tampered';
  const consoleText = [];
  page.on('console', (m) => consoleText.push(m.text()));
  await page.route(/split_budget-[0-9a-f]{16}\.wasm$/, async (route) => {
    if (fail === 'tampered') {
      const real = await route.fetch();
      const body = Buffer.concat([await real.body(), Buffer.from([0, 2, 1, 0x78])]);
      return route.fulfill({ status: 200, headers: { 'content-type': 'application/wasm' }, body });
    }
    return fail === 'down' ? route.fulfill({ status: 503, body: 'down' }) : route.continue();
  });
  await page.getByTestId('tab-budget').click();
  await page.getByTestId('split-failed').waitFor();
  assert.ok((await page.getByTestId('split-failed').textContent()).includes('Budget tab could not be loaded'));
  assert.ok(consoleText.some((m) => /integrity/i.test(m)), `the integrity check refused the module: ${consoleText.join(' | ')}`);
  fail = 'down';
  await page.getByTestId('split-failed').getByRole('button', { name: 'Retry' }).click();
  await page.getByTestId('split-failed').waitFor();
  fail = false;
  await page.getByTestId('split-failed').getByRole('button', { name: 'Retry' }).click();
  await page.getByTestId('budget-summary').waitFor({ timeout: 60000 });
  assert.ok((await split()).includes('split_budget'));
  assert.ok(!(await split()).includes('split_checks'), 'the Checks tab only when it is opened');
  await page.getByTestId('tab-checks').click();
  await page.waitForFunction(() => performance.getEntriesByType('resource').some((e) => /split_checks/.test(e.name)));
  await page.getByTestId('edit-toggle').click();
  await page.getByTestId('edit-bar').waitFor();
  assert.ok((await split()).includes('split_edit'));
  await page.locator('[data-edit=true]').first().waitFor();
  await page.getByTestId('edit-toggle').click();
  await page.locator('a', { hasText: 'Compare' }).first().click();
  await page.waitForURL(`${BASE}/diff`);
  await page.waitForFunction(() => performance.getEntriesByType('resource').some((e) => /split_compare/.test(e.name)));
  await page.locator('a', { hasText: 'Template' }).first().click();
  await page.waitForURL(`${BASE}/template`);
  await page.waitForFunction(() => performance.getEntriesByType('resource').some((e) => /split_template/.test(e.name)));
  // Opening a document: its code comes with the first open; a failed
  // fetch is a load error, and opening again opens it.
  assert.ok(!(await split()).includes('split_opening'), 'no open yet, no opening module');
  let failOpen = true;
  let releaseOpen;
  const held = new Promise((r) => { releaseOpen = r; });
  await page.route(/split_opening-[0-9a-f]{16}\.wasm$/, async (route) => {
    if (!failOpen) return route.continue();
    await held;
    return route.fulfill({ status: 503, body: 'down' });
  });
  const mine = readFileSync(join(root, 'demos/c.json'), 'utf8').replace('"c-u1"', '"mine-u1"');
  const file = { name: 'mine.json', mimeType: 'application/json', buffer: Buffer.from(mine) };
  await page.getByTestId('open-file').setInputFiles(file);
  // While the code comes: the progress line says so.
  await page.getByTestId('load-step').filter({ hasText: "fetching the page's code that opens documents" }).waitFor({ state: 'attached' });
  releaseOpen();
  await page.locator('.notices [data-testid=load-errors]').filter({ hasText: 'could not be fetched' }).waitFor();
  assert.equal(await page.getByTestId('load-step').count(), 0, 'the progress line is gone');
  // "Paste…" (its form is code of the same module): the dialog opens at
  // once and says that the form could not be fetched; Retry brings it.
  await page.getByRole('button', { name: 'Paste…' }).click();
  const pasteFailed = page.locator('dialog[open] [data-testid=split-failed]');
  await pasteFailed.waitFor();
  assert.ok((await pasteFailed.textContent()).includes('paste form could not be loaded'));
  failOpen = false;
  await pasteFailed.getByRole('button', { name: 'Retry' }).click();
  await page.getByTestId('paste-json').waitFor();
  assert.equal(await page.evaluate(() => document.activeElement.id), 'paste-area', 'the text area has the focus when it arrives');
  await paste(page, mine, { loads: true });
  await page.locator('[data-message-id="mine-u1"]').waitFor();
  assert.ok((await split()).includes('split_opening'));
  // Each module once: back on the Budget tab, nothing is fetched again.
  await page.locator('a.demo-link', { hasText: 'B' }).click();
  await page.getByTestId('tab-budget').click();
  await page.getByTestId('budget-summary').waitFor({ timeout: 60000 });
  const names = await split();
  assert.ok(names.includes('split_budget'), `the Budget module: ${names}`);
  const good = names.filter((n) => n !== 'split_budget' && n !== 'split_opening');
  assert.equal(new Set(good).size, good.length, `no module fetched twice: ${names}`);
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('split: the protocol panel is in the app\'s module: a demo\'s panel is in the conversation\'s first frame (D183), with no fetch and no Loading…, and its tabs work', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  await context.addInitScript(() => {
    window.__t = {};
    new MutationObserver(() => {
      if (!window.__t.seg && document.querySelector('[data-message-id]')) {
        window.__t.seg = true;
        // The first frame that has the conversation: is the panel's JSON in it?
        requestAnimationFrame(() => { window.__t.jsonInFrame = !!document.querySelector('[data-testid=protocol-json]'); });
      }
      if (document.querySelector('[data-testid=split-loading]')) window.__t.loading = true;
    }).observe(document, { childList: true, subtree: true });
  });
  await page.goto(`${BASE}/demo/d`);
  await page.getByTestId('protocol-json').waitFor({ timeout: 60000 });
  const t = await (await page.waitForFunction(() => 'jsonInFrame' in window.__t && window.__t)).jsonValue();
  assert.ok(t.jsonInFrame, 'the panel\'s JSON is in the first frame that shows the conversation');
  assert.ok(!t.loading, 'the pane never said Loading…');
  const fetched = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name).filter((n) => /split_protocol/.test(n)));
  assert.deepEqual(fetched, [], 'no module of its own');
  // Tabs work: Raw shows the document.
  await page.getByTestId('tab-raw').click();
  await page.waitForFunction(() => document.querySelector('[data-testid=protocol-json]')?.textContent.includes('"messages"'));
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('the first screen\'s JSON: the rows a screen holds, the rest (below the fold) once the screen is complete, in about the height they take; the same text as the export; a message chosen meanwhile is scrolled to (D181)', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  // The complete first screen's frame (as bench/complete-screen.mjs sees it),
  // recorded by the page itself: it can come before page.goto returns.
  await context.addInitScript(() => {
    requestAnimationFrame(function look() {
      const j = document.querySelector('[data-testid=protocol-json]');
      if (!(j && j.innerText.includes('messages'))) return requestAnimationFrame(look);
      const region = j.closest('.json-region').getBoundingClientRect();
      const rows = [...j.querySelectorAll('.jrow')];
      window.__first = { partial: j.hasAttribute('data-partial'), rows: rows.length, last: rows.at(-1).getBoundingClientRect().bottom,
        bottom: region.bottom, scroll: j.closest('.json-region').scrollHeight };
    });
  });
  await page.goto(`${BASE}/demo/f`);
  const first = await (await page.waitForFunction(() => window.__first)).jsonValue();
  assert.ok(first.partial, 'demo F\'s JSON is longer than a screen: the rows below the fold wait');
  assert.ok(first.last >= first.bottom, `the rows fill the pane (last row ends at ${first.last}, the pane at ${first.bottom})`);
  const json = await wholeJson(page);
  const all = await page.locator('[data-testid=protocol-json] .jrow').count();
  const expected = pep('export', '--format', 'openai', 'demos/f.json');
  assert.equal(all, expected.split('\n').length - (expected.endsWith('\n') ? 1 : 0), 'then every line is a row');
  assert.ok(first.rows < all / 2, `${first.rows} of ${all} rows on the first screen`);
  assert.equal(await json.textContent(), expected.endsWith('\n') ? expected : `${expected}\n`, 'the text of the export');
  assert.equal(await page.locator('.jrows-later').count(), 0, 'the spacer is gone');
  const whole = await page.evaluate(() => document.querySelector('[data-testid=protocol-json]').closest('.json-region').scrollHeight);
  assert.ok(first.scroll > whole * 0.6 && first.scroll < whole * 1.4, `the scroll height about the same before (${first.scroll}) and after (${whole})`);
  assert.deepEqual(page.errors, []);
  await context.close();
  // A message chosen (the address) before the rows below the fold are there:
  // the pane scrolls to its entry once they are.
  {
    const { context, page } = await newPage(browser);
    await page.goto(`${BASE}/demo/f#m=${JSON.parse(readFileSync(join(root, 'demos/f.json'), 'utf8')).messages.at(-1).id}`);
    await wholeJson(page);
    await page.waitForFunction(() => document.querySelector('[data-testid=protocol-json]').closest('.json-region').scrollTop > 100);
    assert.deepEqual(page.errors, []);
    await context.close();
  }
});

test('the conversation\'s first screen: the messages the window shows and none below them, the window filled on every demo and two sizes; the overscan comes after the paint (D197)', async ({ browser }) => {
  for (const viewport of [{ width: 1400, height: 900 }, { width: 390, height: 844 }]) {
    for (const demo of ['a', 'b', 'c', 'd', 'e', 'f']) {
      const { context, page } = await newPage(browser, { viewport });
      // The first screen as the app paints it (TrunkApplicationStarted: after
      // the first render and its layout; the bench's complete screen).
      await context.addInitScript(() => addEventListener('TrunkApplicationStarted', () => {
        const ms = [...document.querySelectorAll('.messages > li.msg')];
        const last = ms.at(-1);
        window.__first = { count: ms.length, bottom: last.getBoundingClientRect().bottom, end: last.getAttribute('aria-posinset') === last.getAttribute('aria-setsize'),
          below: ms.filter((m) => m.getBoundingClientRect().top >= innerHeight).length };
      }));
      await page.goto(`${BASE}/demo/${demo}`);
      const first = await (await page.waitForFunction(() => window.__first)).jsonValue();
      const where = `demo ${demo} at ${viewport.width}×${viewport.height}`;
      assert.ok(first.end || first.bottom >= viewport.height, `${where}: the messages fill the window (the last ends at ${first.bottom})`);
      assert.ok(first.below <= 1, `${where}: ${first.below} messages wholly below the window on the first screen`);
      if (demo === 'f' && viewport.width > 1000) {
        // The overscan, after the paint.
        await page.waitForFunction((n) => document.querySelectorAll('.messages > li.msg').length > n, first.count);
      }
      assert.deepEqual(page.errors, []);
      await context.close();
    }
  }
});

test('split: the modules\' names and digests come in a manifest with the first split module, not with the first load; a failed or altered manifest says so and Retry recovers', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  const manifest = /_split-[0-9a-f]{16}\.json$/;
  let fail = 'down';
  const seen = [];
  page.on('console', (m) => seen.push(m.text()));
  await page.route(manifest, async (route) => {
    if (fail === 'down') return route.fulfill({ status: 503, body: 'down' });
    if (fail === 'altered') {
      const real = await route.fetch();
      const table = JSON.parse(await real.text());
      return route.fulfill({ status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...table, extra: ['x.wasm', 'sha256-AAAA'] }) });
    }
    return route.continue();
  });
  await page.goto(`${BASE}/demo/a`);
  await page.locator('[data-message-id]').first().waitFor();
  // The loader preloaded from index.html names no module and no digest.
  const loader = await page.evaluate(async () => {
    const href = document.querySelector('link[rel=modulepreload][href*="_split.js"]').href;
    return (await fetch(href)).text();
  });
  assert.ok(!/\.wasm"/.test(loader) && !/sha256-/.test(loader.replace(/integrity:"sha256-[^"]+"/, '')), 'the loader carries the manifest\'s digest only');
  // The panel is the app's own: it shows whatever the manifest does.
  await page.getByTestId('protocol-json').waitFor({ timeout: 60000 });
  // The Budget tab's module needs the manifest: it says it could not be loaded.
  await page.getByTestId('tab-budget').click();
  const failed = page.getByTestId('split-failed');
  await failed.waitFor();
  assert.ok((await failed.textContent()).includes('Budget tab could not be loaded'));
  fail = 'altered';
  await failed.getByRole('button', { name: 'Retry' }).click();
  // Refused: the console names the integrity check, and the tab says it failed again.
  for (let i = 0; i < 100 && !seen.some((m) => /integrity/i.test(m)); i++) await page.waitForTimeout(100);
  await failed.waitFor();
  assert.equal(await page.getByTestId('budget-summary').count(), 0, 'a manifest that is not the build\'s is refused');
  assert.ok(seen.some((m) => /integrity/i.test(m)), `the integrity check refused the manifest: ${seen.join(' | ')}`);
  fail = false;
  await page.getByTestId('split-failed').getByRole('button', { name: 'Retry' }).click();
  await page.getByTestId('budget-summary').waitFor({ timeout: 60000 });
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('split: the reports (load errors, warnings) and the paste form come with their first use; a report or form that cannot be fetched says so and Retry shows it', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  const split = () => page.evaluate(() => performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname)
    .filter((p) => /-split_\w+-[0-9a-f]{16}\.wasm$/.test(p)).map((p) => p.replace(/^.*-(split_\w+)-[0-9a-f]{16}\.wasm$/, '$1')));
  let down = new Set(['split_opening', 'split_reports']);
  await page.route(/-(split_opening|split_reports)-[0-9a-f]{16}\.wasm$/, (route) => {
    const name = route.request().url().match(/-(split_\w+)-[0-9a-f]{16}\.wasm$/)[1];
    return down.has(name) ? route.fulfill({ status: 503, body: 'down' }) : route.continue();
  });
  await page.goto(`${BASE}/demo/a`);
  await page.locator('[data-message-id]').first().waitFor();
  await page.getByTestId('protocol-json').waitFor({ timeout: 60000 });
  assert.ok(!(await split()).includes('split_reports') && !(await split()).includes('split_opening'), 'neither on the first screen');
  // "Paste…" opens the dialog at once; its form comes with the opening
  // module: "Loading…", or when that cannot be fetched, Retry.
  await page.getByTestId('paste-open').click();
  await page.locator('dialog[open] [data-testid=split-failed]').waitFor();
  down.delete('split_opening');
  await page.locator('dialog[open] [data-testid=split-failed]').getByRole('button', { name: 'Retry' }).click();
  await page.getByTestId('paste-json').waitFor();
  assert.equal(await page.evaluate(() => document.activeElement.id), 'paste-area', 'the text area has the focus');
  // Escape closes it; opened again, the form is there at once.
  await page.keyboard.press('Escape');
  assert.equal(await page.locator('dialog[open]').count(), 0);
  await page.getByTestId('paste-open').click();
  await page.getByTestId('paste-json').waitFor();
  assert.equal(await page.getByTestId('split-loading').count(), 0);
  // A broken paste: its errors are a report, whose module is down: the place says so.
  await page.getByTestId('paste-json').fill('{"version": "1.0", "messages": 3}');
  await page.getByTestId('paste-load').click();
  const failed = page.locator('dialog[open] [data-testid=split-failed]');
  await failed.waitFor();
  assert.ok((await failed.textContent()).includes('report could not be loaded'));
  assert.equal(await page.getByTestId('load-errors').count(), 0);
  down = new Set();
  await failed.getByRole('button', { name: 'Retry' }).click();
  await page.locator('dialog[open] [data-testid=load-errors]').waitFor();
  assert.ok((await page.locator('dialog[open] [data-testid=load-errors]').textContent()).includes('messages'));
  assert.ok((await split()).includes('split_reports'));
  assert.deepEqual(page.errors, []);
  await context.close();
});

// Accessibility, phone layout, the paste dialog, warnings and the JSON pane
// (issue 10).
//
// axe-core (pinned in .tools/package.json) runs in the page with the WCAG 2.1
// A and AA rules; every finding is a failure.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test, BASE, root, shotDir, DEMOS, newPage, axe, settle, wholeJson } from './helpers.mjs';

/** Runs axe at each viewport step of the conversation (its window renders only what is near). */
async function axeScrolling(page, where) {
  const out = [];
  const steps = await page.evaluate(() => {
    const p = document.querySelector('.pane.left');
    const sc = p && p.scrollHeight > p.clientHeight + 1 ? p : document.scrollingElement;
    window.__axeScroller = sc;
    sc.scrollTop = 0;
    return Math.ceil(sc.scrollHeight / Math.max(1, sc.clientHeight));
  });
  for (let i = 0; i < Math.min(steps + 1, 40); i++) {
    await settle(page);
    out.push(...(await axe(page, `${where} @${i}`)));
    const end = await page.evaluate(() => { const s = window.__axeScroller; const e = s.scrollTop + s.clientHeight >= s.scrollHeight - 1; s.scrollTop += s.clientHeight * 0.9; return e; });
    if (end) break;
  }
  return out;
}

/** One entry per rule and first node (the same finding at each scroll step counts once). */
function dedupe(violations) {
  const seen = new Map();
  for (const v of violations) {
    const key = `${v.where.replace(/ @\d+$/, '')}|${v.id}|${v.nodes[0]}`;
    if (!seen.has(key)) seen.set(key, v);
  }
  return [...seen.values()];
}

function report(violations) {
  // One line per rule and place, the first nodes under it.
  return violations.map((v) => `${v.where}: ${v.id} ×${v.count}\n        ${v.nodes.join('\n        ')}`).join('\n');
}


/** Demo A with 8 undeclared variables (warnings, grouped) and a 12,000-character data: image. */
function warnDoc(root) {
  const doc = JSON.parse(readFileSync(join(root, 'demos/a.json'), 'utf8'));
  const names = Array.from({ length: 8 }, (_, i) => `missing${i}`);
  doc.messages[1].segments.push({ kind: 'text', content: names.map((n) => `{{ ${n} }}`).join(' ') });
  doc.messages[1].segments.push({ kind: 'media', mediaType: 'image', url: `data:image/png;base64,iVBORw0KGgo${'A'.repeat(12000)}`, altText: 'a test pattern' });
  const file = join(root, 'target/e2e/a11y-warnings.envelope.json');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(doc, null, 2));
  return { file, doc };
}

/** Where focus is: a short description (tag, test id or id, class). */
const focused = (page) => page.evaluate(() => {
  const a = document.activeElement;
  return a ? `${a.tagName.toLowerCase()}${a.dataset.testid ? `[${a.dataset.testid}]` : ''}${a.id ? `#${a.id}` : ''}` : 'none';
});
const focusInDialog = (page) => page.evaluate(() => !!document.activeElement?.closest('dialog[open]'));

test('axe-core: 0 WCAG 2.1 A/AA violations on every demo, both themes, all toggles open, Budget tab open', async ({ browser }) => {
  test.slow(); // every demo in two themes, axe at each scroll step: three times the config's timeout
  const all = [];
  for (const scheme of ['light', 'dark']) {
    const { context, page } = await newPage(browser, { colorScheme: scheme });
    for (const d of DEMOS) {
      await page.goto(`${BASE}/demo/${d}`);
      await page.locator('[data-message-id]').first().waitFor();
      await page.getByRole('button', { name: 'Expand all' }).first().click();
      await settle(page);
      all.push(...(await axeScrolling(page, `${scheme} /demo/${d} expanded`)));
      await page.getByTestId('tab-raw').click();
      await page.getByTestId('protocol-json').waitFor();
      all.push(...(await axe(page, `${scheme} /demo/${d} raw`)));
      await page.getByTestId('tab-budget').click();
      await page.locator('.budget-summary').waitFor({ timeout: 30000 });
      await settle(page);
      all.push(...(await axe(page, `${scheme} /demo/${d} budget`)));
      await page.getByTestId('tab-openai').click();
    }
    assert.deepEqual(page.errors, []);
    await context.close();
  }
  if (all.length) console.log(report(dedupe(all)));
  assert.equal(all.length, 0, `${all.length} axe violations (listed above)`);
});

test('/doc: warnings listed with links, the paste dialog a modal, axe 0 with banner, warnings and dialog open', async ({ browser }) => {
  const { file, doc } = warnDoc(root);
  const all = [];
  for (const scheme of ['light', 'dark']) {
    const { context, page } = await newPage(browser, { colorScheme: scheme });
    await page.goto(`${BASE}/`);
    await page.locator('[data-message-id]').first().waitFor();
    await page.getByTestId('open-file').setInputFiles(file);
    await page.waitForURL(`${BASE}/doc`);
    await page.locator('[data-testid=warnings]').waitFor();
    // Listed at once (no disclosure), grouped by rule, each path a link.
    const group = page.locator('[data-testid=warnings] .warn-group[data-rule="undeclared-variable"]');
    await group.waitFor();
    assert.match(await group.locator('.warn-rule').textContent(), /undeclared-variable · 8 warnings/);
    assert.equal(await group.locator('li').count(), 5, 'five, then "show all"');
    await group.getByRole('button', { name: 'show all 8' }).click();
    assert.equal(await group.locator('li').count(), 8);
    // A path link reveals its segment: the address names it.
    const link = group.locator('button.path').first();
    assert.match(await link.textContent(), /^messages\[1\]\.segments\[1\]/);
    await link.click();
    await page.waitForFunction(() => location.hash.includes('m=a-u1'));
    // The JSON pane shows the data: URL abbreviated; Download keeps it whole.
    await page.getByTestId('tab-raw').click();
    const shown = await (await wholeJson(page)).textContent();
    assert.ok(shown.includes('"data:image/png;base64,iVBORw0K… (12,033 chars)"'), 'abbreviated in the view');
    assert.ok(!shown.includes('A'.repeat(200)));
    const [dl] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-json').click()]);
    assert.deepEqual(JSON.parse(readFileSync(await dl.path(), 'utf8')), doc, 'the download is the document, whole');
    // An error banner: a file that does not load.
    await page.getByTestId('open-file').setInputFiles({ name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from('{"version": "1.0", "messages": [') });
    await page.locator('.notices [data-testid=load-errors]').waitFor();
    // The paste dialog: focus in the text area, Escape closes, focus back on "Paste…".
    const opener = page.getByTestId('paste-open');
    await opener.click();
    await page.locator('dialog[open]').waitFor();
    // (The form is code of the opening module, here already: it arrives
    // within a few tasks of the dialog, and takes the focus.)
    await page.getByTestId('paste-json').waitFor();
    assert.equal(await focused(page), 'textarea[paste-json]#paste-area');
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press('Tab');
      assert.ok(await focusInDialog(page), `Tab ${i + 1} stays in the dialog (${await focused(page)})`);
    }
    await page.keyboard.press('Escape');
    await page.locator('dialog[open]').waitFor({ state: 'detached' }).catch(() => {});
    assert.equal(await page.locator('dialog[open]').count(), 0, 'Escape closes it');
    assert.equal(await focused(page), 'button[paste-open]');
    // Open with the banner up: the errors show inside the dialog, nothing hidden behind it.
    await opener.click();
    await page.getByTestId('paste-json').fill('{"version": "1.0"');
    await page.getByTestId('paste-load').click();
    await page.locator('dialog[open] [data-testid=load-errors]').waitFor();
    await settle(page);
    all.push(...(await axe(page, `${scheme} /doc warnings + errors + paste dialog`)));
    // Cancel: closed, focus back, the banner reachable and dismissible.
    await page.getByTestId('paste-cancel').click();
    assert.equal(await page.locator('dialog[open]').count(), 0);
    assert.equal(await focused(page), 'button[paste-open]');
    await page.locator('.notices [data-testid=load-errors]').getByRole('button', { name: 'Dismiss' }).click();
    assert.equal(await page.locator('[data-testid=load-errors]').count(), 0);
    // Load: the document opens, focus back on "Paste…".
    await opener.click();
    await page.getByTestId('paste-json').fill(readFileSync(join(root, 'demos/b.json'), 'utf8'));
    await page.getByTestId('paste-load').click();
    await page.locator('[data-message-id="b-sys"]').waitFor();
    assert.equal(await page.locator('dialog[open]').count(), 0);
    assert.equal(await focused(page), 'button[paste-open]');
    assert.match(await page.title(), /^Your document · /);
    assert.deepEqual(page.errors, []);
    await context.close();
  }
  if (all.length) console.log(report(dedupe(all)));
  assert.equal(all.length, 0, `${all.length} axe violations (listed above)`);
});

test('tabs follow the WAI-ARIA pattern: one tab stop, arrows, Home and End, a tab panel', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  await page.goto(`${BASE}/demo/d`);
  await page.locator('[data-message-id]').first().waitFor();
  assert.equal(await page.title(), 'Demo D · Prompt Envelope');
  const state = () => page.evaluate(() => {
    const tabs = [...document.querySelectorAll('.protocol-bar [role=tab]')];
    const panel = document.querySelector('[role=tabpanel]#protocol-tabpanel');
    return {
      selected: tabs.filter((t) => t.getAttribute('aria-selected') === 'true').map((t) => t.id),
      stops: tabs.filter((t) => t.tabIndex === 0).map((t) => t.id),
      controls: [...new Set(tabs.map((t) => t.getAttribute('aria-controls')))],
      labelledby: panel && panel.getAttribute('aria-labelledby'),
      focus: document.activeElement.id,
    };
  });
  await page.getByTestId('tab-openai').focus();
  const expect = async (id) => {
    const s = await state();
    assert.deepEqual(s, { selected: [id], stops: [id], controls: ['protocol-tabpanel'], labelledby: id, focus: id });
  };
  await expect('tab-openai');
  await page.keyboard.press('ArrowRight');
  await expect('tab-raw');
  await page.getByTestId('protocol-json').waitFor();
  await page.keyboard.press('End');
  await expect('tab-checks');
  await page.keyboard.press('Home');
  await expect('tab-openai');
  await page.keyboard.press('ArrowLeft');
  await expect('tab-checks');
  await page.keyboard.press('ArrowRight');
  await expect('tab-openai');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('JSON pane: objects and arrays fold, by mouse and keyboard', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  await page.goto(`${BASE}/demo/d`);
  await page.locator('[data-message-id]').first().waitFor();
  // All its rows (the first screen holds back those below the fold: D181).
  const json = await wholeJson(page);
  const whole = await json.textContent();
  const rows = () => page.locator('[data-testid=protocol-json] .jrow').count();
  const all = await rows();
  const folds = page.locator('[data-testid=protocol-json] button.fold');
  // The "messages" array (the second fold: the first is the root).
  const label = await page.locator('[data-testid=protocol-json] .jrow').filter({ hasText: /^\s*"messages": \[\s*$/ }).locator('button.fold').getAttribute('aria-label');
  assert.equal(await folds.nth(1).getAttribute('aria-label'), label);
  const messages = page.locator(`[data-testid=protocol-json] button.fold[aria-label="${label}"]`);
  assert.equal(await messages.getAttribute('aria-expanded'), 'true');
  await messages.click();
  assert.equal(await messages.getAttribute('aria-expanded'), 'false');
  const [a, b] = label.match(/(\d+)–(\d+)/).slice(1).map(Number);
  assert.equal(await rows(), all - (b - a - 1), `folded: lines ${a + 1} to ${b - 1} hidden`);
  assert.match(await json.textContent(), /"messages": \[ … \d+ lines \n  \],/);
  // Keyboard: one tab stop among the fold buttons; arrows move; Enter toggles.
  await folds.first().focus();
  await page.keyboard.press('ArrowDown');
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-label')), await messages.getAttribute('aria-label'));
  await page.keyboard.press('Enter');
  assert.equal(await messages.getAttribute('aria-expanded'), 'true');
  assert.equal(await json.textContent(), whole, 'unfolded: the text as before');
  // Each fold button is beside its row, 18 px to its left, and stays there when
  // the pane scrolls (D197: placed by its static position, inside the <pre> that
  // scrolls with the rows, not by a positioned row).
  const offsets = () => page.evaluate(() => [...document.querySelectorAll('[data-testid=protocol-json] button.fold')].map((f) => {
    const r = f.getBoundingClientRect();
    const row = f.closest('.jrow').getClientRects()[0];
    return [Math.round(r.left - row.left), Math.round(r.top - row.top)];
  }));
  const placed = await offsets();
  assert.ok(placed.length > 3 && placed.every(([x, y]) => x === -18 && y === 1), JSON.stringify(placed.slice(0, 4)));
  const scrolled = await page.evaluate(() => { const pane = document.querySelector('[data-testid=protocol-json]').closest('.json-region'); pane.scrollTop = 300; return pane.scrollTop; });
  assert.ok(scrolled > 100, `the pane scrolled (${scrolled} px)`);
  assert.deepEqual(await offsets(), placed, 'after the pane scrolled');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('keyboard only: skip link first, every stop shows a focus ring, "Open…" included', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  await page.goto(`${BASE}/demo/c`);
  await page.locator('[data-message-id]').first().waitFor();
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.className), 'skip-link');
  assert.ok(await page.evaluate(() => document.activeElement.getBoundingClientRect().top >= 0), 'visible when focused');
  const ring = () => page.evaluate(() => {
    const a = document.activeElement;
    const own = getComputedStyle(a);
    const label = a.closest('label.btn');
    const host = label ? getComputedStyle(label) : own;
    return { what: `${a.tagName} ${a.className || a.id || a.textContent.slice(0, 20)}`, ring: host.outlineStyle !== 'none' && parseFloat(host.outlineWidth) >= 2 };
  });
  const seen = [];
  // To the end of the page (focus leaves the document: <body>).
  for (let i = 0; i < 200; i++) {
    await page.keyboard.press('Tab');
    const r = await ring();
    if (r.what.startsWith('BODY')) break;
    seen.push(r.what);
    assert.ok(r.ring, `no focus ring on ${r.what} after ${seen.join(" | ")}`);
  }
  assert.ok(seen.some((w) => w.startsWith('INPUT')), `the file input ("Open…") is a stop: ${seen.join(' | ')}`);
  assert.ok(seen.some((w) => w.includes('json-region')) && seen.some((w) => w.includes('fold')), 'the JSON pane and its folds are reached');
  console.log(`     keyboard walk, demo C: ${seen.length} stops`);
  // The skip link goes to the main region.
  await page.keyboard.press('Shift+Tab');
  await page.goto(`${BASE}/demo/c`);
  await page.locator('[data-message-id]').first().waitFor();
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'main');
  assert.equal(page.url(), `${BASE}/demo/c`);
  // The theme toggle says its state.
  const theme = page.getByTestId('theme-toggle');
  const before = await theme.getAttribute('aria-pressed');
  await theme.click();
  assert.notEqual(await theme.getAttribute('aria-pressed'), before);
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('phone 390×844: one header row, panes switched by a bottom bar, nothing wider than the screen', async ({ browser }) => {
  mkdirSync(shotDir, { recursive: true });
  const W = 390;
  for (const scheme of ['light', 'dark']) {
    const { context, page } = await newPage(browser, { viewport: { width: W, height: 844 }, colorScheme: scheme, isMobile: true, hasTouch: true });
    const overflow = () => page.evaluate((W) => {
      const bad = [];
      for (const el of document.querySelectorAll('.app *')) {
        const st = getComputedStyle(el);
        if (st.visibility === 'hidden' || st.display === 'none' || el.closest('.visually-hidden, [hidden]')) continue;
        const r = el.getBoundingClientRect();
        if (r.width === 0 || r.height === 0) continue;
        // Inside a box that scrolls sideways on purpose (code, JSON), the box counts, not its lines.
        let clipped = false;
        for (let p = el.parentElement; p && !p.classList.contains('app'); p = p.parentElement) {
          const ox = getComputedStyle(p).overflowX;
          if (ox === 'auto' || ox === 'scroll' || ox === 'hidden') { clipped = true; break; }
        }
        if (!clipped && (r.right > W + 0.5 || r.left < -0.5)) bad.push(`${el.tagName}.${el.className} ${Math.round(r.left)}..${Math.round(r.right)}`);
        // A header row that cuts its own content off (call id, badges).
        if (el.matches('.call-head, .result-head, .msg-head, .budget-summary > div, .top') && el.scrollWidth > el.clientWidth + 1) bad.push(`clipped ${el.className}`);
      }
      return { bad: bad.slice(0, 10), docWidth: document.documentElement.scrollWidth };
    }, W);
    for (const d of ['d', 'f']) {
      await page.goto(`${BASE}/demo/${d}`);
      await page.locator('[data-message-id]').first().waitFor();
      // One header row.
      const top = await page.locator('header.top').boundingBox();
      assert.ok(top.height <= 56, `header ${top.height}px high`);
      await page.getByRole('button', { name: 'Expand all' }).first().click();
      await settle(page);
      let o = await overflow();
      assert.deepEqual(o, { bad: [], docWidth: W }, `demo ${d} conversation`);
      await page.screenshot({ path: join(shotDir, `phone-${d}-conversation-${scheme}.png`) });
      // The bottom bar shows the protocol panel instead.
      await page.getByTestId('show-protocol').click();
      assert.ok(await page.getByTestId('protocol-json').isVisible());
      assert.ok(!(await page.locator('.pane.left').isVisible()), 'the conversation is hidden meanwhile');
      o = await overflow();
      assert.deepEqual(o, { bad: [], docWidth: W }, `demo ${d} protocol`);
      await page.screenshot({ path: join(shotDir, `phone-${d}-protocol-${scheme}.png`) });
      await page.getByTestId('tab-budget').click();
      await page.locator('.budget-summary').waitFor({ timeout: 30000 });
      await settle(page);
      o = await overflow();
      assert.deepEqual(o, { bad: [], docWidth: W }, `demo ${d} budget`);
      await page.screenshot({ path: join(shotDir, `phone-${d}-budget-${scheme}.png`) });
      await page.getByTestId('tab-openai').click();
      await page.getByTestId('show-conversation').click();
      assert.ok(await page.locator('.pane.left [data-message-id]').first().isVisible());
    }
    // The demos are in a menu.
    assert.ok(!(await page.locator('#demo-nav').isVisible()));
    await page.getByTestId('demo-menu').click();
    await page.screenshot({ path: join(shotDir, `phone-menu-${scheme}.png`) });
    await page.locator('#demo-nav a', { hasText: 'B' }).click();
    await page.waitForURL(`${BASE}/demo/b`);
    assert.ok(!(await page.locator('#demo-nav').isVisible()), 'the menu closes on a pick');
    // The user's own document: the menu's longer label ("Your document")
    // gives way; the header's buttons stay on the screen.
    await page.getByTestId('paste-open').click();
    await page.getByTestId('paste-json').fill(readFileSync(join(root, 'demos/b.json'), 'utf8'));
    await page.getByTestId('paste-load').click();
    await page.waitForURL(`${BASE}/doc`);
    await page.locator('[data-message-id="b-sys"]').waitFor();
    await settle(page);
    assert.deepEqual(await overflow(), { bad: [], docWidth: W }, '/doc header');
    assert.ok(await page.getByTestId('theme-toggle').isVisible());
    await page.screenshot({ path: join(shotDir, `phone-doc-${scheme}.png`) });
    assert.deepEqual(page.errors, []);
    await context.close();
  }
});

// Finding and navigation: #m= addresses, search, keyboard shortcuts, tool
// call ↔ result links, the outline, the JSON following the selection,
// filters (and issue 21's Outline / Filter / cache breakpoints).
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test, BASE, shotDir, newPage, paste, inView, waitPainted, painted, reveal } from './helpers.mjs';

test('#m= in the address opens the demo at that message', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  for (const [d, id] of [['f', 'f-u15'], ['f', 'f-a21'], ['d', 'd-a4']]) {
    await page.goto(`${BASE}/demo/${d}#m=${id}`);
    await page.locator(`[data-message-id="${id}"].flash`).waitFor();
    await page.waitForTimeout(300);
    assert.ok(await inView(page, `[data-message-id="${id}"]`), `${id} in view`);
    // At the top of the pane, unless the pane is scrolled to its end.
    const { top, end } = await page.evaluate((id) => {
      const p = document.querySelector('.pane.left');
      return { top: document.querySelector(`[data-message-id="${id}"]`).getBoundingClientRect().top - p.getBoundingClientRect().top, end: p.scrollTop + p.clientHeight >= p.scrollHeight - 1 };
    }, id);
    assert.ok(top < 120 || end, `${id} near the top of the pane (${top} px) or the pane at its end`);
    if (id === 'f-u15') assert.ok(top < 120, `${id} at the top (${top} px)`);
  }
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('search: / focuses it; a match in a collapsed segment is opened, scrolled to and painted; Enter / Shift+Enter step; Escape clears', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  await page.goto(`${BASE}/demo/a`);
  await page.locator('[data-message-id]').first().waitFor();
  assert.equal(await page.title(), 'Demo A · Prompt Envelope');
  await page.keyboard.press('/');
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'search', '/ focuses the search');
  // A variable's value: in its static_var, and substituted in the system prompt (collapsed by the document).
  await page.keyboard.type('sam PATEL');
  await page.waitForFunction(() => /^1 of \d+$/.test(document.querySelector('[data-testid=search-count]').textContent));
  const total = Number((await page.getByTestId('search-count').textContent()).split(' of ')[1]);
  assert.ok(total >= 2, `${total} matches`);
  await waitPainted(page);
  let p = await painted(page);
  assert.equal(p.text, 'Sam Patel', 'the match is painted (case-insensitive)');
  assert.equal(p.message, 'a-sys');
  assert.equal(p.seg, 0, 'the static_var value first');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelector('[data-testid=search-count]').textContent.startsWith('2 of'));
  await page.waitForFunction(() => { const h = CSS.highlights.get('pep-match'); return h && [...h][0].startContainer.parentElement.closest('.seg-slot')?.dataset.seg === '4'; });
  p = await painted(page);
  assert.equal(p.text, 'Sam Patel');
  assert.equal(p.expanded, 'true', 'the collapsed system prompt was opened');
  assert.ok(p.visible, 'the match is in view');
  await page.keyboard.press('Shift+Enter');
  await page.waitForFunction(() => document.querySelector('[data-testid=search-count]').textContent.startsWith('1 of'));
  await page.getByTestId('search-next').click();
  await page.waitForFunction(() => document.querySelector('[data-testid=search-count]').textContent.startsWith('2 of'));
  await page.getByTestId('search').fill('no such words anywhere');
  await page.waitForFunction(() => document.querySelector('[data-testid=search-count]').textContent === 'No matches');
  assert.equal(await page.evaluate(() => CSS.highlights.get('pep-match')?.size ?? 0), 0);
  await page.getByTestId('search').fill('sam');
  await page.waitForFunction(() => / of /.test(document.querySelector('[data-testid=search-count]').textContent));
  await page.getByTestId('search').press('Escape');
  assert.equal(await page.getByTestId('search').inputValue(), '');
  assert.equal(await page.getByTestId('search-count').textContent(), '');
  // Ctrl+K from anywhere.
  await page.locator('.conversation').click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('Control+k');
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'search');
  // A match deep in a collapsed tool result (demo D): opened and painted.
  await page.goto(`${BASE}/demo/d`);
  await page.locator('[data-message-id]').first().waitFor();
  await page.getByTestId('search').fill('Chafariz de Dentro');
  await page.waitForFunction(() => /^1 of \d+$/.test(document.querySelector('[data-testid=search-count]').textContent));
  await waitPainted(page);
  p = await painted(page);
  assert.equal(p.text, 'Chafariz de Dentro');
  assert.equal(p.message, 'd-t4');
  assert.equal(p.expanded, 'true', 'the collapsed result was opened');
  assert.ok(p.visible, 'scrolled to the match');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('keyboard: j/k move the focus between messages, o toggles, ? lists the shortcuts (Escape closes, focus returns); keys in the search box are text', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  await page.goto(`${BASE}/demo/d`);
  await page.locator('[data-message-id]').first().waitFor();
  const focused = () => page.evaluate(() => document.activeElement?.closest('[data-message-id]')?.dataset.messageId ?? document.activeElement?.tagName);
  await page.keyboard.press('j');
  await page.waitForFunction(() => document.activeElement?.dataset.messageId === 'd-sys');
  await page.keyboard.press('j');
  await page.waitForFunction(() => document.activeElement?.dataset.messageId === 'd-u1');
  await page.keyboard.press('j');
  await page.keyboard.press('j');
  await page.waitForFunction(() => document.activeElement?.dataset.messageId === 'd-t1');
  assert.ok(await inView(page, '[data-message-id="d-t1"]'));
  // o: the focused message's first panel (the collapsed result) opens, and closes.
  const toggle = '[data-message-id="d-t1"] .seg-slot[data-seg="0"] [aria-expanded]';
  assert.equal(await page.locator(toggle).getAttribute('aria-expanded'), 'false');
  await page.keyboard.press('o');
  await page.waitForFunction((t) => document.querySelector(t).getAttribute('aria-expanded') === 'true', toggle);
  await page.keyboard.press('o');
  await page.waitForFunction((t) => document.querySelector(t).getAttribute('aria-expanded') === 'false', toggle);
  await page.keyboard.press('k');
  await page.waitForFunction(() => document.activeElement?.dataset.messageId === 'd-a1');
  // Far: 12 more j's reach the last message, typed back to back...
  await page.keyboard.type('j'.repeat(14));
  await page.waitForFunction(() => document.activeElement?.dataset.messageId === 'd-a5');
  await page.waitForTimeout(300);
  assert.ok(await inView(page, '[data-message-id="d-a5"] .msg-head'));
  // ...and back up and down again at a person's pace (30–150 ms apart): a
  // jump's late second focus must not take the focus back to an older
  // target, out of view (the bug this pace found).
  for (const [i, key] of [...'kkkkkkkkkkkk', ...'jjjjjjjjjjjj'].entries()) {
    await page.keyboard.press(key);
    await page.waitForTimeout(30 + ((i * 37) % 121));
  }
  await page.waitForTimeout(400);
  assert.equal(await focused(), 'd-a5', 'the focus ends on the last message');
  assert.ok(await inView(page, '[data-message-id="d-a5"] .msg-head'), 'and it is in view');
  // ?: the dialog; Escape closes it and the focus goes back.
  await page.keyboard.press('?');
  await page.getByTestId('shortcuts').waitFor({ state: 'visible' });
  assert.match(await page.getByTestId('shortcuts').textContent(), /Next message/);
  await page.keyboard.press('j');
  assert.ok(await page.getByTestId('shortcuts').isVisible(), 'keys do not act behind the dialog');
  await page.keyboard.press('Escape');
  await page.getByTestId('shortcuts').waitFor({ state: 'hidden' });
  assert.equal(await focused(), 'd-a5', 'focus returns to where it was');
  // In the search box, j is text.
  await page.getByTestId('search').click();
  await page.keyboard.type('jk');
  assert.equal(await page.getByTestId('search').inputValue(), 'jk');
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'search');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('a tool call links to its result and back; the outline jumps; page titles per route', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  await page.goto(`${BASE}/demo/d`);
  await page.locator('[data-message-id]').first().waitFor();
  assert.equal(await page.title(), 'Demo D · Prompt Envelope');
  await page.locator('[data-message-id="d-a3"] .seg-slot[data-seg="2"] [data-testid=to-result]').click();
  await page.locator('[data-message-id="d-t4"] .seg-slot[data-seg="0"].flash').waitFor();
  await page.waitForTimeout(300);
  assert.ok(await inView(page, '[data-message-id="d-t4"] .seg-slot[data-seg="0"]'));
  await page.waitForFunction(() => location.hash === '#m=d-t4&s=0');
  await page.locator('[data-message-id="d-t4"] [data-testid=to-call]').click();
  await page.locator('[data-message-id="d-a3"] .seg-slot[data-seg="2"].flash').waitFor();
  await page.waitForTimeout(300);
  assert.ok(await inView(page, '[data-message-id="d-a3"] .seg-slot[data-seg="2"]'));
  // Outline: every message with role and first words; a click jumps and focuses.
  await page.locator('[data-testid=outline] summary').click();
  const items = page.locator('[data-testid=outline-list] button');
  assert.equal(await items.count(), 14);
  assert.match(await items.nth(1).textContent(), /user.*Thinking of a spontaneous weekend/);
  await items.nth(12).click();
  await page.waitForFunction(() => document.activeElement?.dataset.messageId === 'd-t6');
  assert.ok(await inView(page, '[data-message-id="d-t6"]'));
  await page.goto(`${BASE}/demo/zz`);
  await page.getByTestId('not-found').waitFor();
  assert.equal(await page.title(), 'Page not found · Prompt Envelope');
  await page.goto(`${BASE}/doc`);
  await page.waitForFunction(() => document.title.includes('·'));
  assert.equal(await page.title(), 'Your document · Prompt Envelope');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('a selected message scrolls the OpenAI JSON to its entry; a click in an entry goes to its message', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  await page.goto(`${BASE}/demo/d`);
  await page.locator('[data-message-id]').first().waitFor();
  await page.getByTestId('protocol-json').locator('.jrow').first().waitFor();
  /** The JSON lines at the top of the pane (first 3 visible). */
  const topLines = () => page.evaluate(() => {
    const pre = document.querySelector('[data-testid=protocol-json]');
    const box = (pre.closest('.json-region') || pre).getBoundingClientRect();
    const lines = [...pre.querySelectorAll('.jrow')].filter((l) => { const r = l.getBoundingClientRect(); return r.bottom > box.top + 2 && r.top < box.bottom; });
    return lines.slice(0, 4).map((l) => l.textContent.trim());
  });
  assert.equal((await topLines())[0], '{', 'the pane starts at the top');
  // A jump (here the address) selects the message.
  await page.evaluate(() => { location.hash = 'm=d-a4'; });
  // The scrolling box: the JSON region around the <pre> (or the <pre> itself).
  await page.waitForFunction(() => { const pre = document.querySelector('[data-testid=protocol-json]'); return (pre.closest('.json-region') || pre).scrollTop > 100; });
  let top = await topLines();
  const open = top.indexOf('{');
  assert.ok(open === 0 || open === 1, `an entry opens the pane: ${top}`);
  assert.match(top[open + 1], /"role": "assistant"/);
  assert.match(top.join(' '), /The calendar rejected the time zone/);
  // A click in a message selects it (scrolled into the window first: it may lie below it).
  await (await reveal(page, '[data-message-id="d-t6"] .msg-head time')).click();
  await page.waitForFunction(() => { const pre = document.querySelector('[data-testid=protocol-json]'); const box = (pre.closest('.json-region') || pre).getBoundingClientRect(); const ls = [...pre.querySelectorAll('.jrow')].filter((l) => l.getBoundingClientRect().bottom > box.top + 2).slice(0, 6).map((l) => l.textContent).join(' '); return ls.includes('"role": "tool"') && ls.includes('evt_01JV3K8Q9M2ZT6'); });
  // k moves the selection (the click focused d-t6), and the JSON follows.
  await page.keyboard.press('k');
  await page.waitForFunction(() => document.activeElement?.dataset.messageId === 'd-a4');
  await page.waitForFunction(() => { const pre = document.querySelector('[data-testid=protocol-json]'); const box = (pre.closest('.json-region') || pre).getBoundingClientRect(); const ls = [...pre.querySelectorAll('.jrow')].filter((l) => l.getBoundingClientRect().bottom > box.top + 2).slice(0, 5).map((l) => l.textContent).join(' '); return ls.includes('"role": "assistant"') && ls.includes('The calendar rejected'); });
  // The other way: a line of the flights result → its tool message.
  await page.getByTestId('protocol-json').locator('.jrow', { hasText: 'Largo do Chafariz' }).first().click();
  await page.locator('[data-message-id="d-t4"].flash').waitFor();
  assert.ok(await inView(page, '[data-message-id="d-t4"]'));
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('filter by role and kind: hides the rest, says so, resets; search follows it', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  await page.goto(`${BASE}/demo/d`);
  await page.locator('[data-message-id]').first().waitFor();
  const shown = () => page.evaluate(() => [...document.querySelectorAll('.messages > li.msg')].filter((li) => li.getBoundingClientRect().height > 0).map((li) => li.dataset.messageId));
  await page.locator('[data-testid=filter] summary').click();
  await page.getByTestId('filter-role-tool').check();
  await page.getByTestId('filter-status').waitFor();
  assert.match(await page.getByTestId('filter-status').textContent(), /Filtered \(tool\): 6 of 14 messages shown/);
  await page.waitForTimeout(200);
  assert.deepEqual(await shown(), ['d-t1', 'd-t2', 'd-t3', 'd-t4', 'd-t5', 'd-t6']);
  // Search counts only what shows.
  await page.getByTestId('search').fill('Alfama');
  await page.waitForFunction(() => / of /.test(document.querySelector('[data-testid=search-count]').textContent));
  const inTools = Number((await page.getByTestId('search-count').textContent()).split(' of ')[1]);
  /** Steps through every match: where each one is painted. */
  const everyMatch = async (n) => {
    const at = [];
    const countText = () => page.getByTestId('search-count').textContent();
    for (let i = 0; i < n; i++) {
      await page.waitForFunction(() => / of /.test(document.querySelector('[data-testid=search-count]').textContent));
      await page.waitForTimeout(150);
      await waitPainted(page);
      at.push((await painted(page)).message);
      const before = await countText();
      await page.getByTestId('search-next').click();
      if (n > 1) await page.waitForFunction((b) => document.querySelector('[data-testid=search-count]').textContent !== b, before);
    }
    return at;
  };
  const toolHits = await everyMatch(inTools);
  assert.ok(toolHits.every((m) => /^d-t/.test(m)), `${toolHits}`);
  // Kinds: tool_call_request only (tool role still ticked → nothing of a tool message is a request: all hidden).
  await page.getByTestId('filter-role-tool').uncheck();
  await page.getByTestId('filter-kind-tool_call_request').check();
  await page.waitForTimeout(200);
  const withCalls = await shown();
  assert.deepEqual(withCalls, ['d-a1', 'd-a3', 'd-a4']);
  assert.equal(await page.locator('[data-message-id="d-a1"] .seg-slot[data-seg="0"]').evaluate((el) => getComputedStyle(el).display), 'none', 'the text segment beside the calls is hidden');
  await page.waitForFunction(() => / of /.test(document.querySelector('[data-testid=search-count]').textContent));
  const inCalls = Number((await page.getByTestId('search-count').textContent()).split(' of ')[1]);
  assert.ok(inTools > 0 && inCalls > 0, `${inTools} and ${inCalls}`);
  const callHits = await everyMatch(inCalls);
  assert.ok(callHits.every((m) => ['d-a1', 'd-a3', 'd-a4'].includes(m)), `${callHits}`);
  // "Show all": the user's text and the final answer count too.
  await page.locator('[data-testid=filter] summary').click();
  await page.getByTestId('filter-reset').click();
  await page.getByTestId('filter-status').waitFor({ state: 'detached' });
  await page.waitForFunction((n) => { const t = document.querySelector('[data-testid=search-count]').textContent; return / of /.test(t) && Number(t.split(' of ')[1]) > n; }, inTools + inCalls);
  await page.waitForTimeout(200);
  assert.equal(await page.locator('.conversation .filtered').count(), 0, 'nothing hidden');
  assert.ok((await shown()).length >= 10);
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('issue 21: a one-line system prompt shows open; Outline and Filter one at a time, Escape closes them; the Budget tab lists the cache breakpoints', async ({ browser }) => {
  mkdirSync(shotDir, { recursive: true });
  const { context, page } = await newPage(browser);
  const long = Array.from({ length: 40 }, (_, i) => `Paragraph ${i + 1} of the shared context, cached once and reused by every turn.`).join('\n\n');
  const envelope = { version: '1.0', messages: [
    { id: 'sys', role: 'system', timestamp: 0, segments: [
      { kind: 'system_prompt', content: 'You are a terse assistant.', collapsed: true, cacheControl: { type: 'ephemeral', ttl: '1h' } },
      { kind: 'system_prompt', content: 'Rules:\n- cite sources\n- no guesses', collapsed: true },
      { kind: 'tool_overview', collapsed: true, items: [{ name: 'search', description: 'Search the web', cacheControl: { type: 'ephemeral' } }] }] },
    { id: 'u1', role: 'user', timestamp: 1, segments: [{ kind: 'text', content: long, cacheControl: { type: 'ephemeral' } }] },
    { id: 'a1', role: 'assistant', timestamp: 2, segments: [{ kind: 'text', content: 'Understood.' }] },
    { id: 'u2', role: 'user', timestamp: 3, segments: [{ kind: 'text', content: 'Summarise paragraph 3.' }] },
  ] };
  await page.goto(`${BASE}/`);
  await page.locator('[data-message-id]').first().waitFor();
  await paste(page, JSON.stringify(envelope, null, 2), { loads: true });
  const prompts = page.locator('[data-message-id=sys] [data-kind=system_prompt]');
  await prompts.first().waitFor();
  // One short line: open, though `collapsed`; three lines: folded as written.
  assert.equal(await prompts.nth(0).locator('[aria-expanded]').first().getAttribute('aria-expanded'), 'true');
  assert.ok((await prompts.nth(0).textContent()).includes('You are a terse assistant.'));
  assert.equal(await prompts.nth(1).locator('[aria-expanded]').first().getAttribute('aria-expanded'), 'false');
  await page.screenshot({ path: join(shotDir, 'one-line-system-prompt.png') });

  // Outline and Filter: one open at a time; Escape closes it and the focus
  // is back on its button.
  const outline = page.getByTestId('outline');
  const filter = page.getByTestId('filter');
  const isOpen = (l) => l.evaluate((d) => d.open);
  await outline.locator('summary').click();
  await page.getByTestId('outline-list').waitFor();
  await filter.locator('summary').click();
  await page.waitForFunction(() => document.querySelector('[data-testid=filter]').open && !document.querySelector('[data-testid=outline]').open);
  await page.screenshot({ path: join(shotDir, 'filter-open.png') });
  await page.getByTestId('filter-role-user').focus();
  await page.keyboard.press('Escape');
  assert.equal(await isOpen(filter), false, 'Escape closes the filter');
  assert.equal(await page.evaluate(() => document.activeElement === document.querySelector('[data-testid=filter] > summary')), true);
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelector('[data-testid=filter]').open);
  await outline.locator('summary').click();
  await page.getByTestId('outline-list').waitFor();
  assert.equal(await isOpen(filter), false, 'opening the outline closed the filter');
  await page.keyboard.press('Escape');
  assert.equal(await isOpen(outline), false, 'Escape closes the outline');
  assert.equal(await page.evaluate(() => document.activeElement === document.querySelector('[data-testid=outline] > summary')), true);

  // The Budget tab: one row per breakpoint, in the order the provider caches
  // the request (tools, system, messages), tokens growing.
  await page.getByTestId('tab-budget').click();
  const section = page.getByTestId('cache-breakpoints');
  await section.waitFor({ timeout: 60000 });
  const rows = await section.locator('[data-testid=breakpoint]').evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
  assert.deepEqual(rows.map((r) => r.slice(0, 2)), [['tool search', '5m (default)'], ['message sys · segment 1', '1h'], ['message u1 · segment 1', '5m (default)']]);
  const tokens = rows.map((r) => Number(r[2].replace(/[^0-9]/g, '')));
  assert.ok(tokens[0] > 0 && tokens[0] < tokens[1] && tokens[1] < tokens[2], JSON.stringify(rows));
  assert.ok(rows.every((r) => !r[2].includes('≈')), 'nothing estimated here');
  await section.scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(shotDir, 'budget-breakpoints.png') });
  assert.deepEqual(page.errors, []);
  await context.close();
});

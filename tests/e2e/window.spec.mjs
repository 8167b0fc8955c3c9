// The window: only what is near the viewport is rendered. Reveal, toggles
// kept across unmounting, 100,000 segments, a 20 MB JSON view, search on
// 20,000 segments without blocking the page.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { bigEnvelope, oneMessageEnvelope } from '../../bench/gen.mjs';
import { test, newPage, input, openFile, inView, midDoc } from './helpers.mjs';

test('reveal: a far segment is rendered, opened, scrolled to and highlighted; the address names it without history entries', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  const file = midDoc();
  const doc = JSON.parse(readFileSync(file, 'utf8'));
  await openFile(page, file);
  // A collapsed tool result far down.
  let target = null;
  doc.messages.forEach((m, i) => m.segments.forEach((s, j) => { if (!target && i > 300 && s.kind === 'tool_call_result' && s.collapsed) target = { id: m.id, j }; }));
  const sel = `[data-message-id="${target.id}"] .seg-slot[data-seg="${target.j}"]`;
  assert.equal(await page.locator(sel).count(), 0, 'not rendered before');
  assert.ok((await page.locator('.conversation [data-message-id]').count()) < 120, 'only a window of the 400 messages is in the DOM');
  await page.evaluate((h) => { location.hash = h; }, `m=${target.id}&s=${target.j}`);
  await page.locator(`${sel}.flash`).waitFor({ timeout: 5000 });
  assert.equal(await page.locator(`${sel} [data-kind=tool_call_result] [aria-expanded]`).getAttribute('aria-expanded'), 'true', 'opened');
  assert.ok(await inView(page, sel), 'scrolled into view');
  await page.locator(`${sel}.flash`).waitFor({ state: 'detached', timeout: 5000 }).catch(() => {});
  assert.equal(await page.locator(`${sel}.flash`).count(), 0, 'the highlight ends');
  // The id in a message's header is its link: the jump replaces the address's fragment.
  const before = await page.evaluate(() => history.length);
  const other = doc.messages[Math.max(0, doc.messages.findIndex((m) => m.id === target.id) - 1)].id;
  await page.locator(`[data-message-id="${other}"] a.msg-id`).click();
  await page.waitForFunction((id) => location.hash === `#m=${id}`, other);
  assert.equal(await page.evaluate(() => history.length), before, 'no new history entry');
  await page.locator(`[data-message-id="${other}"].flash`).waitFor();
  assert.ok(await inView(page, `[data-message-id="${other}"]`));
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('a toggle survives its segment scrolling out of the window and back', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  await openFile(page, midDoc());
  // The first tool result: a little way down (held remote media come first).
  await page.mouse.move(300, 600);
  for (let i = 0; i < 30 && !(await page.locator('.conversation [data-kind=tool_call_result]').count()); i++) {
    await page.mouse.wheel(0, 600);
    await page.waitForTimeout(100);
  }
  const first = page.locator('.conversation [data-kind=tool_call_result]').first();
  const seg = await first.evaluate((el) => ({ id: el.closest('[data-message-id]').dataset.messageId, j: el.closest('.seg-slot').dataset.seg }));
  const sel = `[data-message-id="${seg.id}"] .seg-slot[data-seg="${seg.j}"] [aria-expanded]`;
  const was = await page.locator(sel).getAttribute('aria-expanded');
  await page.locator(sel).click();
  assert.notEqual(await page.locator(sel).getAttribute('aria-expanded'), was);
  // Whichever box scrolls the conversation (the pane, or the page on a narrow layout).
  const back = await page.evaluate(() => {
    const p = document.querySelector('.pane.left');
    window.__sc = p && p.scrollHeight > p.clientHeight + 1 && getComputedStyle(p).overflowY !== 'visible' ? p : document.scrollingElement;
    const at = window.__sc.scrollTop;
    window.__sc.scrollTop = window.__sc.scrollHeight;
    return at;
  });
  await page.locator('[data-message-id="big-0399"]').waitFor();
  assert.equal(await page.locator(sel).count(), 0, 'unmounted far away');
  await page.evaluate((at) => { window.__sc.scrollTop = at; }, back);
  await page.locator(sel).waitFor();
  assert.notEqual(await page.locator(sel).getAttribute('aria-expanded'), was, 'still toggled after coming back');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('100,000 segments (10,000 messages, and all in one message) open, scroll and toggle within loose limits', async ({ browser }) => {
  test.slow(); // two 100,000-segment documents: three times the config's timeout
  const big = input('big100k.envelope.json', () => bigEnvelope({ messages: 10_000, segments: 100_000, seed: 43 }));
  const one = input('one-message-100k.envelope.json', () => oneMessageEnvelope());
  for (const [file, last] of [[big, 'big-9999'], [one, 'one']]) {
    const { context, page } = await newPage(browser);
    const ms = await openFile(page, file, 120000);
    console.log(`     ${file.split('/').pop()}: file set → first segment in ${ms} ms (node-side)`);
    assert.ok(ms < 30000, `${file}: first segment after ${ms} ms`);
    const rendered = await page.locator('.conversation .seg-slot').count();
    assert.ok(rendered < 600, `${rendered} segments in the DOM`);
    // The end of the document, at once.
    await page.evaluate(() => { const p = document.querySelector('.pane.left'); p.scrollTop = p.scrollHeight; });
    await page.locator(`[data-message-id="${last}"] [data-kind]`).last().waitFor({ timeout: 10000 });
    if (last === 'one') {
      await page.waitForFunction(() => [...document.querySelectorAll('.seg-slot')].some((s) => Number(s.dataset.seg) > 99000), null, { timeout: 10000 });
    }
    const toggle = page.locator('.conversation .seg-slot [aria-expanded]').last();
    const was = await toggle.getAttribute('aria-expanded');
    await toggle.click({ timeout: 5000 });
    assert.notEqual(await toggle.getAttribute('aria-expanded'), was);
    assert.ok(await page.locator('.conversation .seg-slot').count() < 600);
    assert.deepEqual(page.errors, []);
    await context.close();
  }
});

test('the JSON view of a 20 MB document: prepared a slice at a time (the page answers meanwhile), lines on screen only, Download whole', async ({ browser }) => {
  test.slow(); // a 20 MB document: three times the config's timeout
  const file = input('json-view-20mb.envelope.json', () => ({
    version: '1.0',
    messages: Array.from({ length: 4000 }, (_, i) => ({ id: `j${i}`, role: i % 2 ? 'assistant' : 'user', timestamp: i, segments: [{ kind: 'text', content: `message ${i} `.repeat(400) }] })),
  }));
  const { context, page } = await newPage(browser);
  await openFile(page, file, 120000);
  // The raw text itself is made a few messages per task, with its progress
  // (a MutationObserver notes the status line, however briefly it shows).
  await page.evaluate(() => {
    window.__rawSteps = { seen: false, copyDisabled: false };
    new MutationObserver(() => {
      if (document.querySelector('[data-testid=raw-preparing]')) {
        window.__rawSteps.seen = true;
        window.__rawSteps.copyDisabled ||= document.querySelector('[data-testid=copy-json]')?.disabled === true;
      }
    }).observe(document.body, { childList: true, subtree: true, characterData: true });
  });
  await page.getByTestId('tab-raw').click();
  // While the view prepares, the page still handles input and paints.
  const answered = await page.evaluate(() => new Promise((ok) => { const t = performance.now(); requestAnimationFrame(() => ok(performance.now() - t)); }));
  assert.ok(answered < 2000, `a frame ${answered} ms after the tab click`);
  await page.locator('[data-testid=protocol-json] .jrow').first().waitFor({ timeout: 60000 });
  const lines = Number(await page.getByTestId('protocol-json').getAttribute('data-lines'));
  assert.deepEqual(await page.evaluate(() => window.__rawSteps), { seen: true, copyDisabled: true }, 'the raw text was made in steps; Copy waited for it');
  assert.ok(await page.locator('[data-testid=protocol-json] .jrow').count() < 300, 'only the lines on screen are in the DOM');
  const [dl] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-json').click()]);
  const text = readFileSync(await dl.path(), 'utf8');
  assert.ok(text.length > 20_000_000, `the download is the whole text (${text.length} chars)`);
  assert.equal(lines, text.split('\n').length - 1, 'the view indexes every line of the text');
  assert.deepEqual(JSON.parse(text), JSON.parse(readFileSync(file, 'utf8')));
  // The last line is reachable.
  await page.evaluate(() => { const r = document.querySelector('[data-testid=protocol-json]'); r.scrollTop = r.scrollHeight; });
  await page.locator(`[data-testid=protocol-json] .vline[data-line="${lines - 1}"]`).waitFor({ timeout: 5000 });
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('search on the 20,000-segment envelope does not block the page (longest task measured)', async ({ browser }) => {
  test.slow(); // the 20,000-segment envelope: three times the config's timeout
  const file = input('big.envelope.json', () => bigEnvelope());
  const { context, page } = await newPage(browser);
  await openFile(page, file, 120000);
  await page.evaluate(() => {
    window.__long = [];
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push(e.duration); }).observe({ type: 'longtask', buffered: false });
  });
  const t0 = Date.now();
  await page.getByTestId('search').fill('the');
  // A frame counter runs while the search does: paints keep coming.
  await page.evaluate(() => { window.__frames = 0; const f = () => { window.__frames++; if (!window.__stop) requestAnimationFrame(f); }; requestAnimationFrame(f); });
  await page.waitForFunction(() => / of |No matches/.test(document.querySelector('[data-testid=search-count]').textContent), null, { timeout: 60000, polling: 50 });
  const ms = Date.now() - t0;
  const count = await page.getByTestId('search-count').textContent();
  await page.getByTestId('search').fill('zq-not-there-xx');
  await page.waitForFunction(() => document.querySelector('[data-testid=search-count]').textContent === 'No matches', null, { timeout: 60000, polling: 50 });
  const second = Date.now() - t0 - ms;
  const { long, frames } = await page.evaluate(() => { window.__stop = true; return { long: window.__long, frames: window.__frames }; });
  const longest = Math.max(0, ...long);
  console.log(`     20k: "${count}" in ${ms} ms (index + scan), a second query in ${second} ms; longest task ${longest.toFixed(0)} ms, ${long.length} long tasks, ${frames} frames`);
  assert.match(count, /^1 of \d+/);
  assert.ok(longest < 200, `longest task ${longest} ms`);
  assert.ok(frames > 5, 'frames were painted during the search');
  assert.deepEqual(page.errors, []);
  await context.close();
});

// End-to-end tests: the release build (dist/) served on 127.0.0.1, driven in
// the system's headless Chromium through playwright-core. Every check here is
// something a person would do: open a route, click, copy, download, reload.
//
// Usage: node tests/e2e/run.mjs [--only NAME] [--screenshots DIR]
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from './serve.mjs';
import { hostileEnvelope } from './hostile.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const { chromium } = await import(join(root, '.tools/node_modules/playwright-core/index.mjs'));

const args = process.argv.slice(2);
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : null;
const shotDir = resolve(root, args.includes('--screenshots') ? args[args.indexOf('--screenshots') + 1] : 'target/screenshots');
const PORT = 8790;
const BASE = `http://127.0.0.1:${PORT}`;
const DEMOS = ['a', 'b', 'c', 'd', 'e', 'f'];

/** `pep` from the workspace (built by cargo before this runs). */
function pep(...cliArgs) {
  return execFileSync('cargo', ['run', '-q', '--locked', '-p', 'pep', '--', ...cliArgs], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'pipe'] });
}

export function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--no-first-run', '--disable-sync', '--disable-dev-shm-usage'],
  });
}

/** A fresh context and page that fail the test on any page error. */
async function newPage(browser, opts = {}) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, acceptDownloads: true, ...opts });
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  page.on('dialog', (d) => { page.errors.push(`dialog opened: ${d.message()}`); d.dismiss(); });
  return { context, page };
}

/** Renders every batch of a long conversation. */
async function renderAll(page) {
  for (let i = 0; i < 100; i++) {
    const more = page.locator('.sentinel button');
    if (await more.count() === 0) return;
    // The background batches may render the rest (and remove the button)
    // between the count and the click: then the loop looks again.
    await more.click({ timeout: 2000 }).catch(() => {});
  }
  throw new Error('"Show more" still there after 100 clicks');
}

function expectedKinds(file) {
  const doc = JSON.parse(readFileSync(file, 'utf8'));
  const counts = {};
  for (const m of doc.messages) for (const s of m.segments) counts[s.kind] = (counts[s.kind] || 0) + 1;
  return { counts, messages: doc.messages.length };
}

async function kindCounts(page) {
  return page.evaluate(() => {
    const counts = {};
    for (const el of document.querySelectorAll('.conversation [data-kind]')) counts[el.dataset.kind] = (counts[el.dataset.kind] || 0) + 1;
    return counts;
  });
}

const tests = [];
const test = (name, fn) => tests.push({ name, fn });

test('every demo route renders each segment of its file', async (browser) => {
  const { context, page } = await newPage(browser);
  for (const d of DEMOS) {
    await page.goto(`${BASE}/demo/${d}`);
    const want = expectedKinds(join(root, 'demos', `${d}.json`));
    await page.locator('[data-message-id]').first().waitFor();
    await renderAll(page);
    assert.equal(await page.locator('[data-message-id]').count(), want.messages, `demo ${d}: messages`);
    assert.deepEqual(await kindCounts(page), want.counts, `demo ${d}: [data-kind] counts`);
  }
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('a demo shows whether its prefetch from index.html is ready, late, failed or not used', async (browser) => {
  const { context, page } = await newPage(browser);
  // Late: the app starts before the demo's text arrives, and shows it when it does.
  await page.route('**/demos/b.json', async (route) => {
    const response = await route.fetch();
    await new Promise((r) => setTimeout(r, 1500));
    await route.fulfill({ response });
  });
  await page.goto(`${BASE}/demo/b`);
  await page.locator('.pane.left').getByText('Loading…').waitFor();
  await page.locator('[data-message-id]').first().waitFor();
  assert.equal(await page.locator('[data-message-id]').count(), expectedKinds(join(root, 'demos', 'b.json')).messages);
  // Failed: the error names the file and the status; the page stays usable.
  await page.route('**/demos/c.json', (route) => route.fulfill({ status: 503, body: 'down' }));
  await page.goto(`${BASE}/demo/c`);
  await page.getByText('Demo c could not be fetched: /demos/c.json: HTTP 503').waitFor();
  // Not used: the header's demo links switch demos in the page (the prefetch is for the address loaded).
  await page.unroute('**/demos/c.json');
  await page.goto(`${BASE}/demo/d`);
  await page.locator('[data-message-id]').first().waitFor();
  await page.locator('a.demo-link', { hasText: 'C' }).click();
  await page.waitForURL(`${BASE}/demo/c`);
  await page.locator('.conversation [data-kind="skills"]').first().waitFor();
  const prefetchLeft = await page.evaluate(() => window.__pepPrefetch);
  assert.equal(prefetchLeft, undefined, 'the prefetch is taken once');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('/ shows demo A; unknown paths show a not-found view with a link home', async (browser) => {
  const { context, page } = await newPage(browser);
  await page.goto(`${BASE}/`);
  await page.locator('[data-message-id="a-sys"]').waitFor();
  await page.goto(`${BASE}/no/such/page`);
  await page.locator('[data-testid=not-found]').waitFor();
  await page.locator('[data-testid=not-found] a').click();
  await page.locator('[data-message-id="a-sys"]').waitFor();
  await page.goto(`${BASE}/demo/z`);
  await page.locator('[data-testid=not-found]').waitFor();
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('links navigate in the page (no reload); back and forward follow; modifier clicks are the browser\'s', async (browser) => {
  const { context, page } = await newPage(browser);
  await page.goto(`${BASE}/demo/a`);
  await page.locator('[data-message-id="a-sys"]').waitFor();
  await page.evaluate(() => { window.__samePage = 1; });
  const current = () => page.evaluate(() => [...document.querySelectorAll('a.demo-link[aria-current=page]')].map((a) => a.textContent.trim()));
  assert.deepEqual(await current(), ['A']);
  await page.locator('a.demo-link', { hasText: 'C' }).click();
  await page.waitForURL(`${BASE}/demo/c`);
  await page.locator('[data-message-id="c-sys"]').waitFor();
  assert.deepEqual(await current(), ['C']);
  await page.locator('a.brand').click();
  await page.waitForURL(`${BASE}/`);
  await page.locator('[data-message-id="a-sys"]').waitFor();
  // Back and forward (popstate) show the page of each address.
  await page.goBack();
  await page.waitForURL(`${BASE}/demo/c`);
  await page.locator('[data-message-id="c-sys"]').waitFor();
  assert.equal(await page.locator('[data-message-id="a-sys"]').count(), 0);
  await page.goBack();
  await page.waitForURL(`${BASE}/demo/a`);
  await page.locator('[data-message-id="a-sys"]').waitFor();
  await page.goForward();
  await page.waitForURL(`${BASE}/demo/c`);
  await page.locator('[data-message-id="c-sys"]').waitFor();
  assert.deepEqual(await current(), ['C']);
  assert.equal(await page.evaluate(() => window.__samePage), 1, 'no page load: the router handled every step');
  // A click with a modifier is the browser's: a new tab, this page unchanged.
  const [tab] = await Promise.all([context.waitForEvent('page'), page.locator('a.demo-link', { hasText: 'D' }).click({ modifiers: ['Control'] })]);
  await tab.waitForURL(`${BASE}/demo/d`);
  await tab.locator('[data-message-id="d-sys"]').waitFor();
  assert.equal(page.url(), `${BASE}/demo/c`);
  assert.equal(await page.evaluate(() => window.__samePage), 1);
  // A link to a file of the site (not a page of the app) is loaded by the browser.
  await page.evaluate(() => { const a = document.createElement('a'); a.href = '/demos/b.json'; a.id = 'file-link'; a.textContent = 'file'; document.querySelector('.notices').append(a); });
  await page.locator('#file-link').click();
  await page.waitForURL(`${BASE}/demos/b.json`);
  assert.ok((await page.textContent('body')).includes('"b-sys"'), 'the JSON file itself');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('under a base path (trunk --public-url /sub/) routes, links and demos stay under it', async (browser) => {
  const { context, page } = await newPage(browser);
  // What `trunk build --public-url /sub/` changes in index.html: <base href> and
  // every asset address. Everything under /sub/ is served from dist/.
  const html = readFileSync(join(root, 'dist', 'index.html'), 'utf8')
    .replace(/(href|src)="\/(?!\/)/g, '$1="/sub/')
    .replace(/(from |module_or_path: )'\//g, "$1'/sub/");
  assert.ok(html.includes('<base href="/sub/"'), 'index.html has a <base> Trunk fills in');
  const requested = [];
  await page.route(`${BASE}/**`, async (route) => {
    const url = new URL(route.request().url());
    requested.push(url.pathname);
    if (!url.pathname.startsWith('/sub/')) return route.fulfill({ status: 404, body: 'outside the base' });
    const rest = url.pathname.slice(4);
    const response = await route.fetch({ url: `${BASE}${rest}` });
    const isFile = /\.[a-z0-9]+$/.test(rest);
    if (isFile) return route.fulfill({ response });
    return route.fulfill({ response, body: html, headers: { ...response.headers(), 'content-type': 'text/html; charset=utf-8', 'content-encoding': 'identity' } });
  });
  await page.goto(`${BASE}/sub/demo/b`);
  await page.locator('[data-message-id="b-sys"]').waitFor();
  assert.equal(await page.locator('a.demo-link', { hasText: 'C' }).getAttribute('href'), '/sub/demo/c');
  await page.locator('a.demo-link', { hasText: 'C' }).click();
  await page.waitForURL(`${BASE}/sub/demo/c`);
  await page.locator('[data-message-id="c-sys"]').waitFor();
  await page.goBack();
  await page.waitForURL(`${BASE}/sub/demo/b`);
  await page.locator('[data-message-id="b-sys"]').waitFor();
  await page.goto(`${BASE}/sub/`);
  await page.locator('[data-message-id="a-sys"]').waitFor();
  await page.goto(`${BASE}/sub/nothing/here`);
  await page.locator('[data-testid=not-found]').waitFor();
  await page.locator('[data-testid=not-found] a').click();
  await page.waitForURL(`${BASE}/sub/`);
  await page.locator('[data-message-id="a-sys"]').waitFor();
  const outside = requested.filter((p) => !p.startsWith('/sub/'));
  assert.deepEqual(outside, [], 'nothing requested outside the base');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('Markdown: plain text first, the module requested only after the first segment is painted, then rendered', async (browser) => {
  const { context, page } = await newPage(browser);
  // When the first segment enters the DOM, and the frame that paints it.
  await context.addInitScript(() => {
    new MutationObserver((_, obs) => {
      if (!document.querySelector('[data-message-id]')) return;
      obs.disconnect();
      window.__seg = { inserted: performance.now(), resources: performance.getEntriesByType('resource').map((e) => e.name) };
      requestAnimationFrame(() => { window.__seg.frame = performance.now(); });
    }).observe(document, { childList: true, subtree: true });
  });
  let release;
  const held = new Promise((r) => { release = r; });
  await page.route('**/pep-markdown.js', async (route) => { await held; await route.continue(); });
  await page.goto(`${BASE}/demo/c`);
  await page.locator('[data-message-id="c-a1"]').waitFor();
  // Until the module is there: the text as written, variables highlighted.
  const a1 = page.locator('[data-message-id="c-a1"] .md');
  assert.equal(await a1.getAttribute('class'), 'md md-plain');
  assert.ok((await a1.textContent()).includes('**release-notes-writer**'));
  assert.equal(await page.locator('.conversation .md strong').count(), 0);
  release();
  await page.locator('[data-message-id="c-a1"] .md:not(.md-plain) strong', { hasText: 'release-notes-writer' }).waitFor();
  assert.equal(await page.locator('.conversation .md-plain').count(), 0, 'every text switched');
  await page.locator('.conversation .md h2', { hasText: 'Lumen 4.2.0' }).waitFor();
  const t = await page.evaluate(() => ({
    seg: window.__seg,
    md: performance.getEntriesByType('resource').filter((e) => /pep-markdown/.test(e.name)).map((e) => ({ name: e.name.replace(location.origin, ''), start: e.startTime })),
  }));
  assert.ok(!t.seg.resources.some((n) => /pep-markdown/.test(n)), 'nothing of the module before the first segment');
  assert.deepEqual(t.md.map((m) => m.name.replace(/-[0-9a-f]{16}/, '')).sort(), ['/pep-markdown.js', '/pep-markdown_bg.wasm']);
  for (const m of t.md) assert.ok(m.start >= t.seg.frame, `${m.name} requested at ${m.start} ms, before the frame painting the first segment (${t.seg.frame} ms)`);
  // Demo A: a table. Client-side navigation does not load the module again.
  await page.locator('a.demo-link', { hasText: 'A' }).click();
  await page.locator('[data-message-id="a-a1"] .md table').waitFor();
  assert.equal(await page.evaluate(() => performance.getEntriesByType('resource').filter((e) => /pep-markdown\.js/.test(e.name)).length), 1);
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('Markdown: when its module cannot load, texts stay plain and the app says so once', async (browser) => {
  const { context, page } = await newPage(browser);
  await page.route('**/pep-markdown_bg.wasm', (route) => route.fulfill({ status: 404, body: 'gone' }));
  await page.goto(`${BASE}/demo/a`);
  await page.locator('[data-message-id="a-a1"]').waitFor();
  const notice = page.getByTestId('notice').filter({ hasText: 'Markdown is shown as plain text' });
  await notice.waitFor();
  await page.locator('a.demo-link', { hasText: 'C' }).click();
  await page.locator('[data-message-id="c-a1"]').waitFor();
  await page.waitForTimeout(500);
  assert.equal(await notice.count(), 1, 'said once');
  assert.ok(await page.locator('.conversation .md-plain').count() > 0);
  assert.equal(await page.locator('.conversation .md:not(.md-plain)').count(), 0);
  assert.ok((await page.locator('[data-message-id="c-a1"] .md').textContent()).includes('**release-notes-writer**'));
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('Copy puts exactly `pep export` on the clipboard, for both tabs', async (browser) => {
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

test('Download saves exactly the export under the demo name', async (browser) => {
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

test('a hostile envelope runs nothing', async (browser) => {
  const { context, page } = await newPage(browser);
  const file = join(root, 'target', 'hostile.envelope.json');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(hostileEnvelope(), null, 2));
  pep('validate', file); // the hostile document is valid (warnings allowed): it must load
  await page.goto(`${BASE}/`);
  await page.locator('[data-message-id]').first().waitFor();
  await page.getByTestId('open-file').setInputFiles(file);
  await page.waitForURL(`${BASE}/doc`);
  await page.locator('[data-message-id="h-user"]').waitFor();
  // Open everything, render everything, look at every tab.
  await page.getByRole('button', { name: 'Expand all', exact: true }).click();
  for (const b of await page.locator('.skill-name, .tool-head, .doc-toggle, button.more').all()) await b.click();
  await page.getByTestId('tab-raw').click();
  await page.getByTestId('tab-openai').click();
  // The Markdown module has rendered every text (its HTML is what is checked).
  await page.locator('.conversation .md:not(.md-plain)').first().waitFor();
  await page.waitForTimeout(500);
  assert.equal(await page.locator('.conversation .md-plain').count(), 0, 'every Markdown text rendered');
  assert.ok(await page.locator('.conversation .md .blocked-link').count() > 0, 'rendered by the module: javascript: links blocked');
  const report = await page.evaluate(() => {
    const bad = [];
    for (const el of document.querySelectorAll('.conversation *, .protocol *')) {
      for (const a of el.attributes) {
        if (/^on/i.test(a.name)) bad.push(`${el.tagName} ${a.name}`);
        if (['href', 'src', 'xlink:href', 'action', 'formaction'].includes(a.name) && /^\s*(javascript|vbscript|data:text)/i.test(a.value)) bad.push(`${el.tagName} ${a.name}=${a.value}`);
      }
      if (['SCRIPT', 'IFRAME', 'OBJECT', 'EMBED', 'FORM', 'BASE', 'META', 'LINK', 'STYLE'].includes(el.tagName)) bad.push(el.tagName);
    }
    return { bad, pwned: window.__pwned || null };
  });
  assert.deepEqual(report.bad, [], 'no handler attributes, script URLs or active elements');
  assert.equal(report.pwned, null, 'no payload ran');
  // Payloads are visible as text.
  assert.ok((await page.locator('.conversation').textContent()).includes('<script>'));
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('a loaded document survives a reload; corrupt storage is reported, not fatal', async (browser) => {
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
  await page.getByRole('button', { name: 'Toggle theme' }).click();
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
  const notices = await page.getByTestId('notice').allTextContents();
  assert.ok(notices.some((n) => n.includes('saved document could not be read')), notices.join('|'));
  assert.ok(notices.some((n) => n.includes('preferences were unreadable')), notices.join('|'));
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('a document over the storage quota still opens and the failed save is reported', async (browser) => {
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

test('the Budget tab counts each document it is shown, and leaving mid-count breaks nothing', async (browser) => {
  const { context, page } = await newPage(browser);
  // Hold the worker's module back, so that the first count is still running when we leave.
  let release;
  const held = new Promise((r) => { release = r; });
  await page.route('**/token-worker_bg.wasm', async (route) => { await held; await route.continue(); });
  await page.goto(`${BASE}/demo/f`);
  await page.locator('[data-message-id]').first().waitFor();
  await page.getByTestId('tab-budget').click();
  await page.getByTestId('budget-loading').waitFor();
  // Leave for another route while counting, then let the worker load.
  await page.locator('a.demo-link', { hasText: 'B' }).click();
  await page.locator('[data-message-id^="b-"]').first().waitFor();
  release();
  // The Budget tab is still the open tab: demo B, which arrived after the panel was built, gets counted.
  await page.getByTestId('budget-summary').waitFor({ timeout: 30000 });
  assert.equal(await page.locator('[data-testid=crash]').count(), 0, 'no crash screen');
  // And again after a reload, where the tab is a saved preference.
  await page.goto(`${BASE}/demo/c`);
  await page.getByTestId('budget-summary').waitFor({ timeout: 30000 });
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('storage the browser refuses is reported, and the app works without it', async (browser) => {
  const { context, page } = await newPage(browser);
  await context.addInitScript(() => {
    Object.defineProperty(window, 'localStorage', { get() { throw new DOMException('blocked', 'SecurityError'); } });
  });
  await page.goto(`${BASE}/demo/d`);
  await page.locator('[data-message-id]').first().waitFor();
  await page.getByText('Preferences could not be saved: this browser does not let the page store data').waitFor();
  await page.getByTestId('tab-raw').click();
  await page.getByRole('button', { name: 'Toggle theme' }).click();
  await page.getByRole('button', { name: 'Toggle theme' }).click();
  assert.equal(await page.getByText('Preferences could not be saved').count(), 1, 'one notice, not one per change');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('the Budget tab drops exactly the parts `pep truncate` drops (demo F, two limits)', async (browser) => {
  const { context, page } = await newPage(browser);
  await page.goto(`${BASE}/demo/f`);
  await page.locator('[data-message-id]').first().waitFor();
  const before = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name));
  assert.ok(!before.some((n) => n.includes('token-worker')), 'the worker is not loaded before the preview opens');
  await page.getByTestId('tab-budget').click();
  await page.getByTestId('budget-summary').waitFor({ timeout: 30000 });
  await renderAll(page);
  for (const [limit, step] of [[5000, 1], [2500, 250]]) {
    await page.getByTestId('step-input').fill(String(step));
    await page.getByTestId('step-input').press('Enter');
    await page.getByTestId('limit-input').fill(String(limit));
    await page.getByTestId('limit-input').press('Enter');
    const cli = JSON.parse(pep('truncate', '--limit', String(limit), '--step', String(step), 'demos/f.json'));
    const wantDropped = cli.parts.filter((p) => !p.kept).map((p) => p.name);
    assert.ok(wantDropped.length > 0, `limit ${limit} drops something`);
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid=dropped]').length === n, wantDropped.length);
    const uiDropped = await page.evaluate(() => [...document.querySelectorAll('[data-testid=dropped]')].map((d) => d.closest('[data-message-id]').dataset.messageId));
    assert.deepEqual(uiDropped, wantDropped, `limit ${limit} step ${step}: conversation`);
    const tableDropped = await page.evaluate(() => [...document.querySelectorAll('[data-testid=parts-table] tr.dropped')].map((r) => r.dataset.part));
    assert.deepEqual(tableDropped, wantDropped, `limit ${limit} step ${step}: parts table`);
    assert.equal(await page.getByTestId('kept-tokens').textContent(), cli.keptTokens.toLocaleString('en-US'));
  }
  // Token counts per part equal the CLI's (no limit).
  const all = JSON.parse(pep('truncate', '--limit', '-1', 'demos/f.json'));
  const uiTokens = await page.evaluate(() => [...document.querySelectorAll('[data-testid=parts-table] tbody tr')].map((r) => Number(r.children[3].textContent.replace(/[^0-9]/g, ''))));
  assert.deepEqual(uiTokens, all.parts.map((p) => p.tokens));
  await page.screenshot({ path: join(shotDir, 'budget-f-light.png') });
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('screenshots of demos A–F, light and dark', async (browser) => {
  mkdirSync(shotDir, { recursive: true });
  for (const scheme of ['light', 'dark']) {
    const { context, page } = await newPage(browser, { colorScheme: scheme });
    for (const d of DEMOS) {
      await page.goto(`${BASE}/demo/${d}`);
      await page.locator('[data-message-id]').first().waitFor();
      await page.waitForTimeout(300);
      await page.screenshot({ path: join(shotDir, `demo-${d}-${scheme}.png`) });
    }
    assert.deepEqual(page.errors, []);
    await context.close();
  }
});

// ---- runner ----
const server = await startServer(join(root, 'dist'), PORT);
const browser = await launch();
let failed = 0;
for (const t of tests) {
  if (only && !t.name.includes(only)) continue;
  const start = Date.now();
  try {
    await t.fn(browser);
    console.log(`ok   ${t.name} (${Date.now() - start} ms)`);
  } catch (e) {
    failed++;
    console.log(`FAIL ${t.name}\n     ${String(e.stack || e).split('\n').slice(0, 8).join('\n     ')}`);
  }
}
await browser.close();
server.close();
console.log(failed ? `${failed} failed` : 'all end-to-end tests passed');
process.exit(failed ? 1 : 0);

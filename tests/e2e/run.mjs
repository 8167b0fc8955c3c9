// End-to-end tests: the release build (dist/) served on 127.0.0.1, driven in
// the system's headless Chromium through playwright-core. Every check here is
// something a person would do: open a route, click, copy, download, reload.
//
// Usage: node tests/e2e/run.mjs [--only NAME] [--screenshots DIR]
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from './serve.mjs';
import { hostileEnvelope } from './hostile.mjs';
import { bigEnvelope, oneMessageEnvelope } from '../../bench/gen.mjs';
import { registerA11y } from './a11y.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const { chromium } = await import(join(root, '.tools/node_modules/playwright-core/index.mjs'));

const args = process.argv.slice(2);
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : null;
const shotDir = resolve(root, args.includes('--screenshots') ? args[args.indexOf('--screenshots') + 1] : 'target/screenshots');
const PORT = Number(process.env.PEP_E2E_PORT || 8790);
const BASE = `http://127.0.0.1:${PORT}`;
const DEMOS = ['a', 'b', 'c', 'd', 'e', 'f'];

/** `pep` from the workspace (built by cargo before this runs). */
function pep(...cliArgs) {
  return execFileSync('cargo', ['run', '-q', '--locked', '-p', 'pep', '--', ...cliArgs], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** `pep` with its exit status and stderr (for notes and errors). */
function pepFull(...cliArgs) {
  const r = spawnSync('cargo', ['run', '-q', '--locked', '-p', 'pep', '--', ...cliArgs], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
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

/**
 * Scrolls the conversation from top to bottom (a step is `step` of its
 * visible height, two frames each) and collects what the window renders on
 * the way: every segment by message id and index, every message in order,
 * and which messages are marked dropped. `each(page)` (optional) runs at
 * every step, before the next scroll.
 */
async function scan(page, { step = 0.8, each = null } = {}) {
  const seen = { kinds: new Map(), messages: new Map() };
  await page.evaluate(() => {
    const list = document.querySelector('.conversation .messages');
    let sc = list.parentElement;
    while (sc && sc !== document.documentElement) {
      const oy = getComputedStyle(sc).overflowY;
      if ((oy === 'auto' || oy === 'scroll') && sc.scrollHeight > sc.clientHeight) break;
      sc = sc.parentElement;
    }
    window.__scroller = !sc || sc === document.documentElement ? document.scrollingElement : sc;
    window.__scroller.scrollTop = 0;
  });
  for (let i = 0; i < 5000; i++) {
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r)))));
    if (each) await each(page);
    const { kinds, messages, end } = await page.evaluate(() => {
      const kinds = [];
      const messages = [];
      for (const li of document.querySelectorAll('.conversation .messages > [data-message-id]')) {
        messages.push([li.dataset.messageId, { role: li.dataset.role, dropped: !!li.querySelector(':scope > .msg-head [data-testid=dropped]') }]);
        for (const k of li.querySelectorAll('[data-kind]')) kinds.push([`${li.dataset.messageId}/${k.closest('.seg-slot').dataset.seg}`, k.dataset.kind]);
      }
      const sc = window.__scroller;
      return { kinds, messages, end: sc.scrollTop + sc.clientHeight >= sc.scrollHeight - 1 };
    });
    for (const [k, v] of kinds) seen.kinds.set(k, v);
    for (const [k, v] of messages) seen.messages.set(k, v);
    if (end) break;
    await page.evaluate((step) => { window.__scroller.scrollTop += window.__scroller.clientHeight * step; }, step);
  }
  const counts = {};
  for (const k of seen.kinds.values()) counts[k] = (counts[k] || 0) + 1;
  return { counts, ids: [...seen.messages.keys()], dropped: [...seen.messages].filter(([, m]) => m.dropped).map(([id]) => id), segments: seen.kinds.size };
}

function expectedKinds(file) {
  const doc = JSON.parse(readFileSync(file, 'utf8'));
  const counts = {};
  for (const m of doc.messages) for (const s of m.segments) counts[s.kind] = (counts[s.kind] || 0) + 1;
  return { counts, messages: doc.messages.length, ids: doc.messages.map((m) => m.id) };
}

const tests = [];
const test = (name, fn) => tests.push({ name, fn });

test('every demo route renders each segment of its file', async (browser) => {
  const { context, page } = await newPage(browser);
  for (const d of DEMOS) {
    await page.goto(`${BASE}/demo/${d}`);
    const want = expectedKinds(join(root, 'demos', `${d}.json`));
    await page.locator('[data-message-id]').first().waitFor();
    const got = await scan(page);
    assert.equal(got.ids.length, want.messages, `demo ${d}: messages`);
    assert.deepEqual(got.ids, want.ids, `demo ${d}: messages in order`);
    assert.deepEqual(got.counts, want.counts, `demo ${d}: [data-kind] counts`);
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
  assert.equal((await scan(page)).ids.length, expectedKinds(join(root, 'demos', 'b.json')).messages);
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
  // A module still in flight (the Markdown module after the last paint) must not outlive the context.
  await page.unrouteAll({ behavior: 'ignoreErrors' });
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
  await page.locator('[data-message-id="h-sys"]').waitFor();
  // Open everything, look at every tab, then go through the whole
  // conversation (the window renders it piece by piece), opening every
  // item on the way and checking what is rendered at each step.
  await page.getByRole('button', { name: 'Expand all', exact: true }).click();
  await page.getByTestId('tab-raw').click();
  await page.getByTestId('tab-openai').click();
  // The Markdown module has rendered every text (its HTML is what is checked).
  await page.locator('.conversation .md:not(.md-plain)').first().waitFor();
  await page.waitForTimeout(500);
  const inspect = () => page.evaluate(() => {
    const bad = [];
    for (const el of document.querySelectorAll('.conversation *, .protocol *')) {
      for (const a of el.attributes) {
        if (/^on/i.test(a.name)) bad.push(`${el.tagName} ${a.name}`);
        if (['href', 'src', 'xlink:href', 'action', 'formaction'].includes(a.name) && /^\s*(javascript|vbscript|data:text)/i.test(a.value)) bad.push(`${el.tagName} ${a.name}=${a.value}`);
      }
      if (['SCRIPT', 'IFRAME', 'OBJECT', 'EMBED', 'FORM', 'BASE', 'META', 'LINK', 'STYLE'].includes(el.tagName)) bad.push(el.tagName);
    }
    return {
      bad,
      pwned: window.__pwned || null,
      plain: document.querySelectorAll('.conversation .md-plain').length,
      blocked: document.querySelectorAll('.conversation .md .blocked-link').length,
    };
  });
  const bad = new Set();
  let pwned = null;
  let plain = 0;
  let blocked = 0;
  let opened = 0;
  const seen = await scan(page, {
    step: 0.5,
    each: async () => {
      for (const b of await page.locator('.conversation :is(.skill-name, .tool-head, .doc-toggle, button.more)[aria-expanded=false]:not([disabled])').all()) {
        await b.click();
        opened++;
      }
      const report = await inspect();
      report.bad.forEach((x) => bad.add(x));
      pwned ??= report.pwned;
      plain += report.plain;
      blocked += report.blocked;
    },
  });
  const items = await page.locator('.conversation :is(.skill-name, .tool-head, .doc-toggle, button.more)').count();
  assert.ok(opened + items > 0, 'items were there to open');
  assert.equal(seen.ids.length, hostileEnvelope().messages.length, 'every message was rendered');
  assert.deepEqual([...bad], [], 'no handler attributes, script URLs or active elements');
  assert.equal(pwned, null, 'no payload ran');
  assert.equal(plain, 0, 'every Markdown text rendered by the module');
  assert.ok(blocked > 0, 'rendered by the module: javascript: links blocked');
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
  await page.getByTestId('theme-toggle').click();
  await page.getByTestId('theme-toggle').click();
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
  for (const [limit, step] of [[5000, 1], [2500, 250]]) {
    await page.getByTestId('step-input').fill(String(step));
    await page.getByTestId('step-input').press('Enter');
    await page.getByTestId('limit-input').fill(String(limit));
    await page.getByTestId('limit-input').press('Enter');
    const cli = JSON.parse(pep('truncate', '--limit', String(limit), '--step', String(step), 'demos/f.json'));
    const wantDropped = cli.parts.filter((p) => !p.kept).map((p) => p.name);
    assert.ok(wantDropped.length > 0, `limit ${limit} drops something`);
    // The conversation marks them (seen through the window, top to bottom).
    await page.locator('[data-testid=parts-table] tr.dropped').first().waitFor();
    let uiDropped = [];
    for (let i = 0; i < 20 && uiDropped.join() !== wantDropped.join(); i++) uiDropped = (await scan(page)).dropped;
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

// ---- requests in, any provider out -------------------------------------------

const REQUESTS = join(root, 'crates/envelope/tests/fixtures/requests');
const LABELS = { openai: 'OpenAI Chat', responses: 'OpenAI Responses', anthropic: 'Anthropic Messages' };
const FORMATS = [
  ['openai', 'json'], ['responses', 'json'], ['anthropic', 'json'], ['curl-openai', 'sh'], ['curl-anthropic', 'sh'],
];
/** Download names: `stem.openai.json`, `stem.responses.json`, `stem.anthropic.json`, `stem.openai.sh`, `stem.anthropic.sh`. */
const fileName = (stem, code) => code.startsWith('curl-') ? `${stem}.${code.slice(5)}.sh` : `${stem}.${code}.json`;

function requestFiles() {
  const out = [];
  for (const dir of ['openai', 'responses', 'anthropic']) {
    for (const f of readdirSync(join(REQUESTS, dir)).filter((f) => f.endsWith('.json')).sort()) out.push({ dir, rel: `crates/envelope/tests/fixtures/requests/${dir}/${f}` });
  }
  return out;
}

/** Pastes `text` through "Paste…" and clicks Load; with `loads`, waits
 * until it has loaded (the dialog closes only then). */
async function paste(page, text, { loads = false } = {}) {
  if (await page.locator('dialog[open]').count() === 0) await page.getByRole('button', { name: 'Paste…' }).click();
  await page.getByTestId('paste-json').fill(text);
  await page.getByTestId('paste-load').click();
  if (loads) {
    await page.locator('dialog[open]').waitFor({ state: 'detached' });
    await page.waitForURL(`${BASE}/doc`);
  }
}

/** The items of a path list as pep writes them: `PATH: message` (`message` for the whole). */
async function pathLines(items) {
  return items.evaluateAll((lis) => lis.map((li) => {
    const path = li.querySelector('code.path').textContent;
    const message = li.textContent.slice(path.length + 1);
    return path.startsWith('(') ? message : `${path}: ${message}`;
  }));
}

/** `FILE: note: PATH: message` lines of pep's stderr. */
const noteLines = (stderr) => stderr.split('\n').filter((l) => l.includes(': note: '));

test('pasted OpenAI Chat, Responses and Anthropic requests render the segments `pep import` makes, say where they came from, and survive a reload', async (browser) => {
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
      await renderAll(page);
      await page.waitForFunction((n) => document.querySelectorAll('[data-message-id]').length === n, envelope.messages.length)
        .catch(() => {});
      assert.equal(await page.locator('[data-message-id]').count(), envelope.messages.length, `${rel} ${when}: messages`);
      assert.deepEqual(await kindCounts(page), counts, `${rel} ${when}: [data-kind] counts`);
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
    assert.deepEqual(JSON.parse(await page.getByTestId('protocol-json').textContent()), envelope, `${rel}: raw tab`);
    await page.getByTestId('tab-openai').click();
    await page.reload();
    await check('reloaded');
  }
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('a body of no format names the formats tried; a malformed request lists every error with its path', async (browser) => {
  const { context, page } = await newPage(browser);
  await page.goto(`${BASE}/demo/b`);
  await page.locator('[data-message-id]').first().waitFor();
  const shown = await page.locator('[data-message-id]').count();
  await paste(page, '{"prompt": "Summarise this"}');
  await page.getByTestId('load-errors').waitFor();
  const text = await page.getByTestId('load-errors').textContent();
  for (const f of ['Prompt Envelope', 'OpenAI Chat', 'OpenAI Responses', 'Anthropic Messages']) assert.ok(text.includes(f), `names ${f}: ${text}`);
  assert.equal(page.url(), `${BASE}/demo/b`);
  assert.equal(await page.locator('[data-message-id]').count(), shown, 'the demo stays');
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
  assert.equal(await page.locator('[data-message-id]').count(), shown, 'the demo stays');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('every export format: Copy and Download equal `pep export --format X`, for demos and imported requests', async (browser) => {
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
      // What the target cannot express: pep's notes, listed under the export.
      const all = noteLines(cli.stderr);
      assert.deepEqual(all.slice(0, importNotes.length), importNotes, `${file} ${code}: import notes first`);
      const notes = all.slice(importNotes.length);
      const listed = page.getByTestId('export-notices');
      if (notes.length) {
        await listed.locator('button').click();
        assert.deepEqual(await pathLines(listed.locator('li')), notes.map((l) => l.slice(l.indexOf(': note: ') + 8)), `${file} ${code}: notices`);
      } else {
        assert.equal(await listed.count(), 0, `${file} ${code}: no notices`);
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
  assert.ok((await page.getByTestId('protocol-json').textContent()).startsWith('curl '));
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('an engine that fails to load is an error with "Try again", for an import and an export, never a hang', async (browser) => {
  const { context, page } = await newPage(browser);
  await page.route('**/token-worker_bg.wasm', (route) => route.fulfill({ status: 404, body: 'gone' }));
  await page.goto(`${BASE}/demo/c`);
  await page.locator('[data-message-id]').first().waitFor();
  const shown = await page.locator('[data-message-id]').count();
  const rel = 'crates/envelope/tests/fixtures/requests/openai/forms.json';
  await paste(page, readFileSync(join(root, rel), 'utf8'));
  await page.getByTestId('engine-error').waitFor({ timeout: 20000 });
  assert.equal(await page.locator('[data-message-id]').count(), shown, 'the demo stays');
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
  assert.equal(await page.getByTestId('protocol-json').textContent(), pep('export', '--format', 'anthropic', 'demos/c.json'));
  await page.getByTestId('load-retry').click();
  await page.waitForURL(`${BASE}/doc`);
  await page.getByTestId('imported-from').waitFor();
  assert.equal(await page.locator('[data-message-id]').count(), JSON.parse(pep('import', rel)).messages.length);
  assert.deepEqual(page.errors, []);
  await context.close();
});

// ---- the window: only what is near the viewport is rendered ----

/** Writes `make()` as JSON to target/e2e/`name` unless it is there (inputs are deterministic). */
function input(name, make) {
  const file = join(root, 'target', 'e2e', name);
  mkdirSync(dirname(file), { recursive: true });
  try { readFileSync(file, { flag: 'r' }).subarray(0, 1); } catch { writeFileSync(file, JSON.stringify(make())); }
  return file;
}

/** Opens `file` through the file input; resolves with ms from setting the file to the first segment. */
async function openFile(page, file, timeout = 60000) {
  await page.goto(`${BASE}/`);
  await page.locator('[data-message-id]').first().waitFor();
  const t = Date.now();
  await page.getByTestId('open-file').setInputFiles(file);
  // (Polled: a client-side navigation while the page is busy reading.)
  await page.waitForFunction(() => location.pathname === '/doc' && document.querySelector('.conversation [data-kind]'), null, { timeout, polling: 100 });
  return Date.now() - t;
}

/** Whether `selector`'s box is inside the left pane's visible box. */
function inView(page, selector) {
  return page.evaluate((sel) => {
    const el = document.querySelector(sel);
    if (!el) return false;
    const r = el.getBoundingClientRect();
    const p = document.querySelector('.pane.left').getBoundingClientRect();
    return r.top >= p.top - 1 && r.top < p.bottom && r.bottom > p.top;
  }, selector);
}

const midDoc = () => input('window-400.envelope.json', () => bigEnvelope({ messages: 400, segments: 4000, seed: 3 }));

test('reveal: a far segment is rendered, opened, scrolled to and highlighted; the address names it without history entries', async (browser) => {
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

test('a toggle survives its segment scrolling out of the window and back', async (browser) => {
  const { context, page } = await newPage(browser);
  await openFile(page, midDoc());
  const first = page.locator('.conversation [data-kind=tool_call_result]').first();
  const seg = await first.evaluate((el) => ({ id: el.closest('[data-message-id]').dataset.messageId, j: el.closest('.seg-slot').dataset.seg }));
  const sel = `[data-message-id="${seg.id}"] .seg-slot[data-seg="${seg.j}"] [aria-expanded]`;
  const was = await page.locator(sel).getAttribute('aria-expanded');
  await page.locator(sel).click();
  assert.notEqual(await page.locator(sel).getAttribute('aria-expanded'), was);
  await page.evaluate(() => { const p = document.querySelector('.pane.left'); p.scrollTop = p.scrollHeight; });
  await page.locator('[data-message-id="big-0399"]').waitFor();
  assert.equal(await page.locator(sel).count(), 0, 'unmounted far away');
  await page.evaluate(() => { document.querySelector('.pane.left').scrollTop = 0; });
  await page.locator(sel).waitFor();
  assert.notEqual(await page.locator(sel).getAttribute('aria-expanded'), was, 'still toggled after coming back');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('#m= in the address opens the demo at that message', async (browser) => {
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

test('100,000 segments (10,000 messages, and all in one message) open, scroll and toggle within loose limits', async (browser) => {
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

registerA11y({ test, newPage, BASE, DEMOS, root, shotDir });

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

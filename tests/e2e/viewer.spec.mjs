// The viewer: every demo rendered, routes and links, the Markdown module
// arriving after the first paint, the app module's early compile, a hostile
// document, the crash screen, screenshots of the demos.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { hostileEnvelope } from './hostile.mjs';
import { test, BASE, root, shotDir, DEMOS, pep, newPage, scan, expectedKinds } from './helpers.mjs';

test('every demo route renders each segment of its file', async ({ browser }) => {
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

test('a demo shows whether its prefetch from index.html is ready, late, failed or not used', async ({ browser }) => {
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

test('/ shows demo A; unknown paths show a not-found view with a link home', async ({ browser }) => {
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

test('links navigate in the page (no reload); back and forward follow; modifier clicks are the browser\'s', async ({ browser }) => {
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

test('Markdown: rendered when its message first enters the page, by the app\'s own module (no module of its own fetched)', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  // The moment the message enters the DOM (the observer runs after the
  // task that built it): is its Markdown HTML already?
  await context.addInitScript(() => {
    new MutationObserver((_, obs) => {
      const seg = document.querySelector('[data-message-id="c-a1"]');
      if (!seg) return;
      obs.disconnect();
      window.__first = { plain: !!seg.querySelector('.md-plain'), strong: !!seg.querySelector('.md strong') };
    }).observe(document, { childList: true, subtree: true });
  });
  await page.goto(`${BASE}/demo/c`);
  await page.locator('[data-message-id="c-a1"] .md strong', { hasText: 'release-notes-writer' }).waitFor();
  assert.deepEqual(await page.evaluate(() => window.__first), { plain: false, strong: true }, 'rendered when it first enters the page');
  assert.equal(await page.locator('.conversation .md-plain').count(), 0, 'no text waits as plain text');
  await page.locator('.conversation .md h2', { hasText: 'Lumen 4.2.0' }).waitFor();
  // One WebAssembly module for the page (split modules and the cold split's
  // module come later, with other work; Trunk's digest in the name has up to
  // 16 hex digits).
  const wasm = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname)
    .filter((p) => p.endsWith('.wasm') && !/(?:-split_\w+|-chunk_\d+|_cold)-[0-9a-f]{16}\.wasm$/.test(p)));
  assert.deepEqual(wasm.map((p) => p.replace(/-[0-9a-f]{1,16}_bg/, '_bg')), ['/pep-app_bg.wasm']);
  // Demo A: a table, after a client-side navigation.
  await page.locator('a.demo-link', { hasText: 'A' }).click();
  await page.locator('[data-message-id="a-a1"] .md table').waitFor();
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('the app module compiles from <head>: downloaded once, handed to the loader, the app started after the load event (D184); a module the early compile cannot take still starts the app', async ({ browser }) => {
  const main = /\/pep-app-[0-9a-f]+_bg\.wasm$/;
  {
    const { context, page } = await newPage(browser);
    await context.addInitScript(() => {
      window.__order = [];
      addEventListener('load', () => window.__order.push('load'));
      addEventListener('TrunkApplicationStarted', () => window.__order.push('started'));
      new MutationObserver((_, o) => {
        if (document.querySelector('[data-kind]')) { window.__order.push('segment'); o.disconnect(); }
      }).observe(document, { childList: true, subtree: true });
    });
    await page.goto(`${BASE}/`);
    await page.locator('[data-kind]').first().waitFor();
    await page.waitForFunction(() => window.__order.includes('started'));
    assert.deepEqual(await page.evaluate(() => window.__order), ['load', 'segment', 'started'], 'the load event does not wait for the app');
    assert.equal(await page.evaluate(async () => (await window.__pepWasm) instanceof WebAssembly.Module), true, 'the early compile made the module');
    // Resource timing has an entry per request the page made (the preload
    // and any fetch it did not serve), from the network or the cache.
    const fetched = await page.evaluate((re) => performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname).filter((p) => new RegExp(re).test(p)), main.source);
    assert.equal(fetched.length, 1, `one request for the app module: ${fetched.join(', ')}`);
    assert.deepEqual(page.errors, []);
    await context.close();
  }
  {
    // Served as text/plain, compileStreaming refuses it; the loader then gets
    // a plain response and wasm-bindgen compiles it from its bytes.
    const { context, page } = await newPage(browser);
    await page.route(main, async (route) => {
      const real = await route.fetch();
      return route.fulfill({ status: 200, headers: { 'content-type': 'text/plain' }, body: await real.body() });
    });
    await page.goto(`${BASE}/demo/b`);
    await page.locator('[data-kind]').first().waitFor();
    assert.equal(await page.evaluate(async () => (await window.__pepWasm) instanceof Response), true, 'the fallback: a plain fetch');
    assert.deepEqual(page.errors, []);
    await context.close();
  }
});

test('a hostile envelope runs nothing', async ({ browser }) => {
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

test('a trap in WebAssembly (a panic\'s abort) shows the error screen, its message as text; other script errors do not', async ({ browser }) => {
  // (module (func (export "f") unreachable)): the trap a Rust panic ends in.
  const trap = () => {
    const bytes = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 96, 0, 0, 3, 2, 1, 0, 7, 5, 1, 1, 102, 0, 0, 10, 5, 1, 3, 0, 0, 11]);
    return new WebAssembly.Instance(new WebAssembly.Module(bytes)).exports.f;
  };
  const { context, page } = await newPage(browser);
  await page.goto(`${BASE}/`);
  await page.locator('[data-message-id]').first().waitFor();
  // A script error that is not a trap leaves the page as it is.
  await page.evaluate(() => { setTimeout(() => { throw new Error('not a trap'); }); });
  await page.waitForTimeout(200);
  assert.equal(await page.getByTestId('crash').count(), 0, 'a plain error is not a crash');
  assert.ok(await page.locator('[data-message-id]').count() > 0);
  // A trap in a task, as a release build's panic is (no hook ran: the trap is named).
  await page.evaluate(`void setTimeout((${trap})())`);
  await page.getByTestId('crash').waitFor();
  assert.match(await page.getByTestId('crash').innerText(), /Something went wrong/);
  assert.match(await page.locator('#crash-message').innerText(), /RuntimeError.*unreachable/);
  assert.equal(await page.locator('[data-message-id]').count(), 0, 'the app is replaced');
  assert.equal(await page.getByRole('alert').count(), 1);
  // A debug build's hook leaves the panic's message; hostile text stays text. Here from a rejected promise.
  await page.goto(`${BASE}/demo/b`);
  await page.locator('[data-message-id]').first().waitFor();
  await page.evaluate(`window.__pepPanic = 'panicked at <img src=x onerror=alert(1)>'; void Promise.resolve().then((${trap})())`);
  await page.getByTestId('crash').waitFor();
  assert.equal(await page.locator('#crash-message').innerText(), 'panicked at <img src=x onerror=alert(1)>');
  assert.equal(await page.locator('.crash img').count(), 0);
  assert.ok(page.errors.some((e) => /unreachable/.test(e)), `the trap was uncaught: ${page.errors}`);
  await context.close();
});

test('screenshots of demos A–F, light and dark', async ({ browser }) => {
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

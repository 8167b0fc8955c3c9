// End-to-end tests of shipping (issue 13) and remote media by consent
// (issue 12): a sub-path build on a host without rewrites, the strict CSP,
// privacy (no request to another origin without consent), offline use
// through the service worker, and a new deployment picked up safely.
// The /sub/ build is target/dist-sub (scripts/test.sh builds it).
import assert from 'node:assert/strict';
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer } from './serve.mjs';
import { test, BASE, PORT, root, DEMOS, pep, newPage } from './helpers.mjs';

/**
 * Polls `fn` in the page until it answers true. (`page.waitForFunction` takes
 * a promise for a truthy answer: an async predicate passed at once, and the
 * install of a new service worker, longer with the split modules in its
 * shell, could still be running.)
 */
async function until(page, fn, timeout) {
  const end = Date.now() + timeout;
  while (!(await page.evaluate(fn))) {
    if (Date.now() > end) throw new Error(`timed out after ${timeout} ms: ${fn}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Records CSP violations (an init script runs before the page's own). */
const watchCsp = (page) =>
  page.addInitScript(() => {
    window.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sample || ''}`));
  });
const cspReport = (page) => page.evaluate(() => window.__csp);

test('ship: index.html carries a strict CSP whose hashes match its inline scripts; manifest and 404.html are built', async () => {
  const html = readFileSync(join(root, 'dist/index.html'), 'utf8');
  const meta = html.match(/<meta http-equiv="Content-Security-Policy" content="([^"]+)"/);
  assert.ok(meta, 'a CSP meta');
  const csp = meta[1];
  for (const d of ["default-src 'self'", "object-src 'none'", "base-uri 'self'", "form-action 'none'", "connect-src 'self'", "style-src 'self'"]) {
    assert.ok(csp.includes(d), `CSP has ${d}`);
  }
  assert.ok(/script-src 'self' 'wasm-unsafe-eval'( 'sha256-[A-Za-z0-9+/=]+')+;/.test(csp), csp);
  assert.ok(!/script-src[^;]*'unsafe-inline'/.test(csp), 'no unsafe-inline scripts');
  assert.equal(readFileSync(join(root, 'dist/404.html'), 'utf8'), html, '404.html is index.html');
  const manifest = JSON.parse(readFileSync(join(root, 'dist/manifest.webmanifest'), 'utf8'));
  assert.equal(manifest.start_url, './');
  assert.ok(manifest.icons.length >= 1 && manifest.icons.every((i) => existsSync(join(root, 'dist', i.src))));
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  assert.ok(readme.includes("frame-ancestors 'none'"), 'the README gives the header form');
  for (const f of ['index.html', 'sw.js', 'manifest.webmanifest']) {
    assert.ok(existsSync(join(root, 'dist', `${f}.br`)) && existsSync(join(root, 'dist', `${f}.gz`)), `${f}: .br and .gz`);
  }
});

test('ship: no CSP violation on any demo, /doc or the Budget tab; an injected inline script is blocked', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  await watchCsp(page);
  for (const d of DEMOS) {
    await page.goto(`${BASE}/demo/${d}`);
    await page.locator('[data-message-id]').first().waitFor();
    await page.getByRole('button', { name: 'Expand all', exact: true }).click();
    await page.locator('.conversation .md:not(.md-plain)').first().waitFor();
  }
  await page.getByTestId('tab-budget').click();
  await page.getByTestId('budget-summary').waitFor({ timeout: 60000 });
  await page.getByTestId('open-file').setInputFiles(join(root, 'demos/c.json'));
  await page.waitForURL(`${BASE}/doc`);
  await page.locator('[data-message-id="c-sys"]').waitFor();
  if ((await page.locator('a[href="/template"]').count()) > 0) {
    await page.goto(`${BASE}/template`);
    await page.waitForTimeout(1000);
  }
  assert.deepEqual(await cspReport(page), [], 'no violation while using the app');
  await page.evaluate(() => {
    const s = document.createElement('script');
    s.textContent = 'window.__injected = true';
    document.body.append(s);
  });
  await page.waitForTimeout(100);
  assert.equal(await page.evaluate(() => window.__injected), undefined, 'the injected script did not run');
  const report = await cspReport(page);
  assert.ok(report.some((r) => r.startsWith('script-src')), `the browser reported it: ${report}`);
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('privacy: using the app on a demo requests nothing from another origin; remote media waits for consent', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: BASE });
  const requests = [];
  context.on('request', (r) => requests.push(r.url()));
  const foreign = () => requests.filter((u) => !u.startsWith(`${BASE}/`) && !u.startsWith('data:') && !u.startsWith('blob:'));
  await page.goto(`${BASE}/demo/e`);
  await page.locator('[data-message-id]').first().waitFor();
  // Everything a user does, without allowing remote media.
  await page.getByRole('button', { name: 'Expand all', exact: true }).click();
  const bar = page.getByTestId('remote-media');
  await bar.waitFor();
  assert.match(await bar.textContent(), /2 remote media files \(picsum\.photos\)/);
  assert.equal(await page.locator('[data-testid=media-held]').count(), 2, 'both images held, with their host');
  assert.equal(await page.locator('.conversation img[src^="http"]').count(), 0, 'no remote src in the page');
  for (const tab of ['tab-raw', 'tab-openai', 'tab-budget']) await page.getByTestId(tab).click();
  await page.getByTestId('budget-summary').waitFor({ timeout: 60000 });
  await page.getByTestId('tab-openai').click();
  await page.getByTestId('copy-json').click();
  await page.getByTestId('copy-status').filter({ hasText: 'Copied' }).waitFor();
  await Promise.all([page.waitForEvent('download'), page.getByTestId('download-json').click()]);
  await page.getByTestId('theme-toggle').click();
  await page.getByTestId('privacy').locator('summary').click();
  assert.match(await page.getByTestId('privacy').textContent(), /stay in this browser/);
  await page.goto(`${BASE}/demo/f`);
  await page.locator('[data-message-id]').first().waitFor();
  await page.getByTestId('open-file').setInputFiles(join(root, 'demos/d.json'));
  await page.waitForURL(`${BASE}/doc`);
  await page.locator('[data-message-id="d-sys"]').waitFor();
  await page.waitForTimeout(500);
  assert.deepEqual(foreign(), [], 'no request to another origin');
  assert.ok(requests.length > 5, 'requests were recorded');
  // Consent: this document only.
  await page.goto(`${BASE}/demo/e`);
  await page.getByTestId('remote-allow').click();
  // Requested now (whether it arrives depends on the network: without one the card comes back as "image-off").
  const deadline = Date.now() + 30000;
  while (!foreign().length && Date.now() < deadline) await page.waitForTimeout(100);
  assert.ok(foreign().some((u) => u.startsWith('https://picsum.photos/')), 'requested after consent');
  assert.equal(await page.getByTestId('remote-media').count(), 0, 'the question is answered');
  assert.equal(await page.locator('[data-testid=media-held]').count(), 0, 'no card waits any more');
  const policies = await page.locator('.conversation img[src^="https://picsum.photos/"]').evaluateAll((els) => els.map((e) => e.getAttribute('referrerpolicy')));
  assert.ok(policies.every((p) => p === 'no-referrer'), `every remote image: no-referrer (${policies})`);
  assert.ok(foreign().every((u) => u.startsWith('https://picsum.photos/')), `only the allowed media: ${foreign()}`);
  // Another document asks again; "Always" is remembered across a reload.
  await page.goto(`${BASE}/demo/f`);
  await page.getByTestId('remote-media').waitFor();
  await page.getByTestId('remote-always').click();
  await page.reload();
  await page.locator('[data-message-id]').first().waitFor();
  assert.equal(await page.getByTestId('remote-media').count(), 0, 'always: no question after a reload');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('safe start: a saved document whose last opening did not finish is opened only when asked', async ({ browser }) => {
  const { context, page } = await newPage(browser);
  await page.goto(`${BASE}/demo/a`);
  await page.getByTestId('open-file').setInputFiles(join(root, 'demos/c.json'));
  await page.waitForURL(`${BASE}/doc`);
  await page.locator('[data-message-id="c-sys"]').waitFor();
  await page.waitForFunction(() => localStorage.getItem('pep/v1/opening') === null);
  // As if the tab had frozen while opening it at the last start.
  await page.evaluate(() => localStorage.setItem('pep/v1/opening', '28026'));
  await page.reload();
  await page.getByTestId('safe-start').waitFor();
  assert.match(await page.getByTestId('safe-start').textContent(), /did not finish opening/);
  assert.equal(await page.locator('[data-message-id="c-sys"]').count(), 0, 'not opened before the user says so');
  await page.getByTestId('safe-start-open').click();
  await page.locator('[data-message-id="c-sys"]').waitFor();
  await page.waitForFunction(() => localStorage.getItem('pep/v1/opening') === null);
  await page.reload();
  await page.locator('[data-message-id="c-sys"]').waitFor();
  assert.equal(await page.getByTestId('safe-start').count(), 0, 'a finished opening asks nothing');
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('offline: after one visit the app (Budget tab and local files included) works with the network off', async ({ browser }) => {
  const { context, page } = await newPage(browser, { serviceWorkers: 'allow' });
  await page.goto(`${BASE}/demo/a`);
  await page.locator('[data-message-id]').first().waitFor();
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 60000 });
  await page.getByTestId('tab-budget').click();
  await page.getByTestId('budget-summary').waitFor({ timeout: 60000 });
  const cached = await page.evaluate(async () => {
    const out = [];
    for (const k of await caches.keys()) for (const r of await (await caches.open(k)).keys()) out.push(new URL(r.url).pathname);
    return out;
  });
  for (const f of ['/index.html', '/demos/d.json', '/token-worker_bg.wasm']) {
    assert.ok(cached.includes(f), `${f} cached: ${cached}`);
  }
  // The app's module (its name carries Trunk's digest, up to 16 hex digits:
  // a leading zero is not written), with the Markdown renderer in it, and in
  // a release build the cold split's module (D174).
  assert.ok(cached.some((p) => /^\/pep-app-[0-9a-f]{1,16}_bg\.wasm$/.test(p)), `the app module cached: ${cached}`);
  assert.ok(cached.some((p) => /^\/pep-app-[0-9a-f]{1,16}_cold-[0-9a-f]{16}\.wasm$/.test(p)), `the cold module cached: ${cached}`);
  await context.setOffline(true);
  await page.reload();
  await page.locator('[data-message-id]').first().waitFor();
  await page.locator('a.demo-link', { hasText: 'D' }).click();
  await page.locator('[data-message-id="d-sys"]').waitFor();
  await page.goto(`${BASE}/demo/f`);
  await page.locator('[data-message-id]').first().waitFor();
  await page.getByTestId('tab-budget').click();
  await page.getByTestId('budget-summary').waitFor({ timeout: 60000 });
  await page.getByTestId('open-file').setInputFiles(join(root, 'demos/c.json'));
  await page.waitForURL(`${BASE}/doc`);
  await page.locator('[data-message-id="c-sys"]').waitFor();
  await page.locator('.conversation .md:not(.md-plain)').first().waitFor();
  assert.deepEqual(page.errors, []);
  await context.close();
});

test('ship: a new deployment is offered ("A new version is available — Reload"), never mixed in', async ({ browser }) => {
  const dir = join(root, 'target', 'e2e-deploy');
  rmSync(dir, { recursive: true, force: true });
  cpSync(join(root, 'dist'), dir, { recursive: true });
  const port = PORT + 2;
  const base = `http://127.0.0.1:${port}`;
  const server = await startServer(dir, port);
  try {
    const { context, page } = await newPage(browser, { serviceWorkers: 'allow' });
    await page.goto(`${base}/demo/b`);
    await page.locator('[data-message-id]').first().waitFor();
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 60000 });
    const version = () => page.evaluate(async () => (await caches.keys()).filter((k) => k.startsWith('pep-shell-')).sort());
    const before = await version();
    // Deploy: a tokenizer of another build. This version's worker refuses it.
    writeFileSync(join(dir, 'token-worker.js'), `${readFileSync(join(dir, 'token-worker.js'), 'utf8')}\n// another build\n`);
    await page.getByTestId('tab-budget').click();
    await page.getByTestId('update-available').waitFor({ timeout: 60000 });
    // Deploy: a new service worker (any change of the build is a new VERSION).
    const sw = readFileSync(join(dir, 'sw.js'), 'utf8').replace(/^const VERSION = "[0-9a-f]+";/, 'const VERSION = "feedfacefeedface";');
    writeFileSync(join(dir, 'sw.js'), sw);
    await page.evaluate(async () => (await navigator.serviceWorker.getRegistration()).update());
    await until(page, async () => Boolean((await navigator.serviceWorker.getRegistration()).waiting), 60000);
    assert.deepEqual(await version(), [...before, 'pep-shell-feedfacefeedface'].sort(), 'installed beside the running one');
    // The running page keeps its version until the user chooses.
    await page.locator('a.demo-link', { hasText: 'C' }).click();
    await page.locator('[data-message-id="c-sys"]').waitFor();
    await Promise.all([page.waitForEvent('load'), page.getByTestId('update-available').getByRole('button', { name: 'Reload' }).click()]);
    await page.locator('[data-message-id]').first().waitFor();
    await until(page, async () => (await caches.keys()).filter((k) => k.startsWith('pep-shell-')).length === 1, 30000);
    assert.deepEqual(await version(), ['pep-shell-feedfacefeedface'], 'the old version is gone after the switch');
    assert.deepEqual(page.errors, []);
    await context.close();
  } finally {
    server.close();
  }
});

test('ship: a --public-url /sub/ build on a host without rewrites (404.html, precompressed files): deep links, demo, copy, download, Budget', async ({ browser }) => {
  const dir = join(root, 'target', 'dist-sub');
  assert.ok(existsSync(join(dir, 'index.html')), 'target/dist-sub: scripts/test.sh builds it (scripts/trunk.sh build --release --public-url /sub/ --dist target/dist-sub)');
  const port = PORT + 1;
  const base = `http://127.0.0.1:${port}`;
  const server = await startServer(dir, port, { prefix: '/sub/', pages: true, precompressed: true });
  try {
    const { context, page } = await newPage(browser);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    const requested = [];
    const encodings = new Map();
    context.on('request', (r) => requested.push(new URL(r.url()).pathname));
    // (A response can still arrive while the context closes: its headers are then gone.)
    page.on('response', (r) => r.allHeaders().then((h) => encodings.set(new URL(r.url()).pathname, h['content-encoding']), () => {}));
    // A deep link on first load: the host answers 404 with 404.html, the app routes.
    await page.goto(`${base}/sub/demo/d`);
    await page.locator('[data-message-id="d-sys"]').waitFor();
    assert.equal(await page.locator('a.demo-link', { hasText: 'C' }).getAttribute('href'), '/sub/demo/c');
    await page.locator('a.demo-link', { hasText: 'C' }).click();
    await page.waitForURL(`${base}/sub/demo/c`);
    await page.locator('[data-message-id="c-sys"]').waitFor();
    await page.goBack();
    await page.locator('[data-message-id="d-sys"]').waitFor();
    await page.getByTestId('tab-openai').click();
    await page.getByTestId('copy-json').click();
    await page.getByTestId('copy-status').filter({ hasText: 'Copied' }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), pep('export', 'demos/d.json'), 'copy = pep export');
    const [dl] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-json').click()]);
    assert.equal(dl.suggestedFilename(), 'demo-d.openai.json');
    assert.equal(readFileSync(await dl.path(), 'utf8'), pep('export', 'demos/d.json'));
    await page.getByTestId('tab-budget').click();
    await page.getByTestId('budget-summary').waitFor({ timeout: 60000 });
    await page.goto(`${base}/sub/nothing/here`);
    await page.locator('[data-testid=not-found]').waitFor();
    await page.locator('[data-testid=not-found] a').click();
    await page.waitForURL(`${base}/sub/`);
    await page.locator('[data-message-id="a-sys"]').waitFor();
    const outside = requested.filter((p) => !p.startsWith('/sub/'));
    assert.deepEqual(outside, [], 'nothing requested outside the base');
    const wasm = [...encodings].find(([p]) => p.endsWith('_bg.wasm'));
    assert.equal(wasm?.[1], 'br', `the wasm came precompressed (brotli): ${wasm}`);
    assert.deepEqual(page.errors, []);
    await context.close();
  } finally {
    server.close();
  }
});

// Helpers of the end-to-end tests (they were run.mjs's): the test function
// with its fixtures, a page that fails the test on any page error, the
// conversation's scan, `pep` from the workspace, pasting, opening files,
// and the small waits the specs share. Every spec imports `test` from here.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
// (.tools/ holds the npm packages: imported by path, as the old runner did with playwright-core.)
import { test as base } from '../../.tools/node_modules/@playwright/test/index.mjs';
import { bigEnvelope } from '../../bench/gen.mjs';
import { BASE, root } from './env.mjs';

export { BASE, DIST, PORT, root, shotDir } from './env.mjs';
export const DEMOS = ['a', 'b', 'c', 'd', 'e', 'f'];

/**
 * `test` with Playwright's `browser` (Debian's Chromium, launched as the
 * config says). A test that fails before its `context.close()` leaves its
 * contexts open: they are closed after it (their traces kept on a failure),
 * so the next test starts with none.
 */
export const test = base.extend({
  closeLeftContexts: [async ({ browser }, use) => {
    await use();
    for (const context of browser.contexts()) await context.close().catch(() => {});
  }, { auto: true }],
});

/** `pep` from the workspace (built by cargo before this runs). */
export function pep(...cliArgs) {
  return execFileSync('cargo', ['run', '-q', '--locked', '-p', 'pep', '--', ...cliArgs], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** `pep` with its exit status and stderr (for notes and errors). */
export function pepFull(...cliArgs) {
  const r = spawnSync('cargo', ['run', '-q', '--locked', '-p', 'pep', '--', ...cliArgs], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A fresh context and page that fail the test on any page error. */
export async function newPage(browser, opts = {}) {
  // The service worker only where a test asks for it (`serviceWorkers: 'allow'`):
  // it would answer requests that tests route themselves (page.route).
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, acceptDownloads: true, serviceWorkers: 'block', ...opts });
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
export async function scan(page, { step = 0.8, each = null } = {}) {
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

export function expectedKinds(file) {
  const doc = JSON.parse(readFileSync(file, 'utf8'));
  const counts = {};
  for (const m of doc.messages) for (const s of m.segments) counts[s.kind] = (counts[s.kind] || 0) + 1;
  return { counts, messages: doc.messages.length, ids: doc.messages.map((m) => m.id) };
}

const WCAG = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/** Runs axe-core on the page; answers its violations, each with up to 4 nodes. */
export async function axe(page, where) {
  if (!(await page.evaluate(() => !!window.axe))) {
    // Evaluated through the DevTools protocol: the page's CSP (rightly) refuses
    // an injected inline <script>, which is what addScriptTag would add.
    await page.evaluate(readFileSync(join(root, '.tools/node_modules/axe-core/axe.min.js'), 'utf8'));
  }
  const found = await page.evaluate(async (tags) => {
    const r = await window.axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
    return r.violations.map((v) => ({
      id: v.id, count: v.nodes.length,
      nodes: v.nodes.slice(0, 4).map((n) => `${n.target.join(' ')} :: ${(n.failureSummary || '').replace(/\s+/g, ' ').slice(0, 220)}`),
    }));
  }, WCAG);
  return found.map((v) => ({ where, ...v }));
}

/** Waits two frames and a task (a render and its effects). */
export const settle = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 30)))));

// ---- requests in, any provider out ----

export const REQUESTS = join(root, 'crates/envelope/tests/fixtures/requests');
export const LABELS = { openai: 'OpenAI Chat', responses: 'OpenAI Responses', anthropic: 'Anthropic Messages' };
export const FORMATS = [
  ['openai', 'json'], ['responses', 'json'], ['anthropic', 'json'], ['gemini', 'json'], ['bedrock', 'json'],
  ['curl-openai', 'sh'], ['curl-anthropic', 'sh'], ['curl-gemini', 'sh'],
];
/** Download names: `stem.openai.json`, `stem.responses.json`, `stem.anthropic.json`, `stem.gemini.json`,
 * `stem.bedrock.json`, `stem.openai.sh`, `stem.anthropic.sh`, `stem.gemini.sh`. */
export const fileName = (stem, code) => code.startsWith('curl-') ? `${stem}.${code.slice(5)}.sh` : `${stem}.${code}.json`;

export function requestFiles() {
  const out = [];
  for (const dir of ['openai', 'responses', 'anthropic']) {
    for (const f of readdirSync(join(REQUESTS, dir)).filter((f) => f.endsWith('.json')).sort()) out.push({ dir, rel: `crates/envelope/tests/fixtures/requests/${dir}/${f}` });
  }
  return out;
}

/** Pastes `text` through "Paste…" and clicks Load; with `loads`, waits
 * until it has loaded (the dialog closes only then). */
export async function paste(page, text, { loads = false } = {}) {
  if (await page.locator('dialog[open]').count() === 0) await page.getByRole('button', { name: 'Paste…' }).click();
  await page.getByTestId('paste-json').fill(text);
  await page.getByTestId('paste-load').click();
  if (loads) {
    await page.locator('dialog[open]').waitFor({ state: 'detached' });
    await page.waitForURL(`${BASE}/doc`);
  }
}

/** The items of a path list as pep writes them: `PATH: message` (`message` for the whole). */
export async function pathLines(items) {
  return items.evaluateAll((lis) => lis.map((li) => {
    const path = li.querySelector('code.path').textContent;
    const message = li.textContent.slice(path.length + 1);
    return path.startsWith('(') ? message : `${path}: ${message}`;
  }));
}

/** `FILE: note: PATH: message` lines of pep's stderr. */
export const noteLines = (stderr) => stderr.split('\n').filter((l) => l.includes(': note: '));

/** What the Export tab says beside its picker: "3 items not carried". */
export const notCarried = (n) => `${n} item${n === 1 ? '' : 's'} not carried`;

/** An Anthropic request of published examples (real/SOURCES.md): thinking
 * with its signature and a tool round trip (thinking-tool-use-round-trip),
 * a cache breakpoint on a system block (system-blocks-cache-control), a
 * base64 PDF (document-pdf-base64-cache-control) and the web_search server
 * tool (web-search-allowed-domains). No one example has all four. */
export function richAnthropic() {
  const real = (f) => JSON.parse(readFileSync(join(REQUESTS, 'real/anthropic', f), 'utf8'));
  const body = real('thinking-tool-use-round-trip.json');
  body.system = real('system-blocks-cache-control.json').system;
  const pdf = real('document-pdf-base64-cache-control.json').messages[0].content[0];
  body.messages[0].content = [pdf, { type: 'text', text: body.messages[0].content }];
  body.tools.push(real('web-search-allowed-domains.json').tools[0]);
  return body;
}


// ---- the window: only what is near the viewport is rendered ----

/** Writes `make()` as JSON to target/e2e/`name` unless it is there (inputs are deterministic). */
export function input(name, make) {
  const file = join(root, 'target', 'e2e', name);
  mkdirSync(dirname(file), { recursive: true });
  try { readFileSync(file, { flag: 'r' }).subarray(0, 1); } catch { writeFileSync(file, JSON.stringify(make())); }
  return file;
}

/** Opens `file` through the file input; resolves with ms from setting the file to the first segment. */
export async function openFile(page, file, timeout = 60000) {
  await page.goto(`${BASE}/`);
  await page.locator('[data-message-id]').first().waitFor();
  const t = Date.now();
  await page.getByTestId('open-file').setInputFiles(file);
  // (Polled: a client-side navigation while the page is busy reading.)
  await page.waitForFunction(() => location.pathname === '/doc' && document.querySelector('.conversation [data-kind]'), null, { timeout, polling: 100 });
  return Date.now() - t;
}

/** Whether `selector`'s box is inside the left pane's visible box. */
export function inView(page, selector) {
  return page.evaluate((sel) => {
    const el = document.querySelector(sel);
    if (!el) return false;
    const r = el.getBoundingClientRect();
    const p = document.querySelector('.pane.left').getBoundingClientRect();
    return r.top >= p.top - 1 && r.top < p.bottom && r.bottom > p.top;
  }, selector);
}

export const midDoc = () => input('window-400.envelope.json', () => bigEnvelope({ messages: 400, segments: 4000, seed: 3 }));

// ---- Checks ----

/** Opens the Checks tab and waits for the engine's findings. */
export async function openChecks(page, timeout = 60000) {
  await page.getByTestId('tab-checks').click();
  await page.getByTestId('checks-summary').waitFor({ timeout });
}

/** The engine's time for the checks, from the tab ("Checked in N ms"). */
export async function checksMs(page) {
  const t = await page.getByTestId('checks-time').textContent();
  return Number(/Checked in (\d+) ms/.exec(t)[1]);
}

// ---- finding and navigation ----

/** The painted search match: its text and where it is. */
// One match painted, on text that is still on the page: Markdown renders a
// segment's text again when its module arrives, which collapses the range
// painted on the old text until the search paints the new one (a frame or
// so later), so the highlight's size alone says too little.
export function waitPainted(page) {
  return page.waitForFunction(() => {
    const h = globalThis.CSS?.highlights?.get('pep-match');
    if (h?.size !== 1) return false;
    const r = [...h][0];
    return !r.collapsed && r.startContainer.isConnected;
  });
}

export function painted(page) {
  return page.evaluate(() => {
    const h = globalThis.CSS && CSS.highlights && CSS.highlights.get('pep-match');
    if (!h || h.size === 0) return null;
    const r = [...h][0];
    const el = r.startContainer.parentElement;
    const slot = el.closest('.seg-slot');
    const rect = r.getBoundingClientRect();
    const pane = document.querySelector('.pane.left').getBoundingClientRect();
    return {
      text: r.toString(),
      message: el.closest('[data-message-id]')?.dataset.messageId,
      seg: slot ? Number(slot.dataset.seg) : null,
      expanded: slot?.querySelector('[aria-expanded]')?.getAttribute('aria-expanded') ?? null,
      visible: rect.top >= pane.top - 1 && rect.bottom <= pane.bottom + 1 && rect.height > 0,
    };
  });
}

// ---- editing, sharing, export after truncation (issue 10) ----

/** The JSON view once it holds all its rows (on the first screen it holds
 * back the rows below the fold, with `data-partial`: D181). */
export async function wholeJson(page) {
  await page.locator('[data-testid=protocol-json]:not([data-partial])').waitFor({ state: 'attached' });
  return page.getByTestId('protocol-json');
}
/** The export tab's JSON as text (all its rows). */
export const exportText = async (page) => (await wholeJson(page)).textContent();
/** Waits until the export tab's JSON does (or does not) contain `text`. */
export async function exportHas(page, text, yes = true) {
  await page.waitForFunction(([t, y]) => {
    const el = document.querySelector('[data-testid=protocol-json]');
    return el && el.textContent.includes(t) === y;
  }, [text, yes], { timeout: 10000 });
}
/** Scrolls the conversation down until `selector` is rendered (it is windowed). */
export async function reveal(page, selector) {
  for (let i = 0; i < 200; i++) {
    if (await page.locator(selector).count() > 0) return page.locator(selector);
    await page.evaluate(() => { const sc = document.scrollingElement; sc.scrollTop += sc.clientHeight * 0.7;
      for (const el of document.querySelectorAll('.pane.left')) el.scrollTop += el.clientHeight * 0.7; });
    await page.waitForTimeout(60);
  }
  throw new Error(`${selector} never rendered`);
}
/** Opens a demo with Edit mode on and the Export tab showing. */
export async function editDemo(page, d) {
  await page.goto(`${BASE}/demo/${d}`);
  await page.locator('[data-message-id]').first().waitFor();
  // (On a phone the protocol pane is behind the bottom bar: the Export tab is the default.)
  if (await page.getByTestId('tab-openai').isVisible()) await page.getByTestId('tab-openai').click();
  await page.getByTestId('protocol-json').waitFor({ state: 'attached' });
  await page.getByTestId('edit-toggle').click();
  assert.equal(await page.getByTestId('edit-toggle').getAttribute('aria-pressed'), 'true');
  await page.getByTestId('edit-bar').waitFor();
}

// ---- secrets (issue 21) ----

/** What `envelope::secrets::mask` shows for `key` (`pub` bytes public). */
export const maskOf = (key, pub) => `${key.slice(0, pub)}****${key.slice(-4)}`;

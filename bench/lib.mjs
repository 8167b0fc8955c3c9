// Shared pieces of the benchmarks: the browser, statistics, and the results
// table (one figure per line against its budget).
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** The server's port: BENCH_PORT, or 0 for any free one (so two runs never collide). */
export const PORT = Number(process.env.BENCH_PORT || 0);
/** The server's origin, set by `useServer` once it listens (a live binding). */
export let BASE = 'http://127.0.0.1:0';
export const DATA = join(root, 'target/bench');
/** Set by `useServer`: `state.server.log` lists every path the server was asked for. */
export const state = { server: null };

/** Makes `server` the one every bench talks to. */
export function useServer(server) {
  state.server = server;
  BASE = `http://127.0.0.1:${server.address().port}`;
}

const { chromium } = await import(join(root, '.tools/node_modules/playwright-core/index.mjs'));

export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
  '--no-first-run', '--disable-sync', '--disable-dev-shm-usage',
  // A guard: no host name resolves except the loopback server's address, so
  // media URLs in the documents (https://media.example.com/...) never leave
  // the machine even if a request escaped the routing in freshPage.
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'];

/** A 1×1 PNG that stands in for every remote image of the documents. */
const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

/**
 * The rounds of an interleaved run: `items` in each of `runs` rounds, in
 * reverse order every other round, so that none always goes first while the
 * machine drifts.
 */
export function* interleaved(items, runs) {
  for (let i = 0; i < runs; i++) yield i % 2 ? [...items].reverse() : items;
}

/** Headless Chromium with the bench's flags, and `extra` flags after them (e.g. `--js-flags=…`). */
export function launch(extra = []) {
  return chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: [...CHROMIUM_ARGS, ...extra] });
}

/** A fresh context (empty cache and storage) and a page that collects page errors. */
export async function freshPage(browser, opts = {}) {
  const { route = true, ...contextOpts } = opts;
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, ...contextOpts });
  context.remoteRequests = [];
  // `route: false`: no request interception. Playwright's routing sends every
  // request of the page through Node and back (a few ms each, more under load),
  // which a real visitor never pays; timing benches turn it off and rely on
  // the host-resolver guard above (remote hosts fail at once).
  // Otherwise only the loopback server is reached: remote images get a local
  // pixel, other remote media a 404, at once (no DNS, no waiting on the network).
  if (route) await context.route((url) => !url.href.startsWith(BASE), (route) => {
    const u = route.request().url();
    context.remoteRequests.push(u);
    if (/\.(png|jpe?g|webp|gif)([?#]|$)/i.test(u)) return route.fulfill({ status: 200, contentType: 'image/png', body: PIXEL });
    return route.fulfill({ status: 404, contentType: 'text/plain', body: '' });
  });
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') page.errors.push(`console: ${m.text()}`); });
  return { context, page };
}

/**
 * A fresh page on `/`, its first segment shown and `settle` ms more, with a
 * CDP session whose sampling profiler is enabled at `interval` µs (not
 * started): for the ad hoc profiles of opening a file.
 */
export async function profiledPage(browser, { interval, settle }) {
  const { context, page } = await freshPage(browser);
  const cdp = await context.newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval });
  await page.goto(`${BASE}/`);
  await page.locator('[data-kind]').first().waitFor();
  await page.waitForTimeout(settle);
  return { context, page, cdp };
}

/** Takes `--name value` out of `args` (a command line's arguments): the value, or `dflt`. */
export function takeOption(args, name, dflt) {
  const i = args.indexOf(name);
  if (i < 0) return dflt;
  const v = args[i + 1];
  args.splice(i, 2);
  return v;
}

/** `p`, or a rejection after `ms` (so one stuck step does not eat the whole bench). */
export function within(ms, what, p) {
  let timer;
  return Promise.race([p, new Promise((_, fail) => { timer = setTimeout(() => fail(new Error(`${what}: over ${ms / 1000} s`)), ms); })]).finally(() => clearTimeout(timer));
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n === 0 ? NaN : n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/**
 * How far one run's ratio of medians, `median(a) / median(b)`, can be trusted:
 * its 95 % bootstrap interval. Returns [low, high].
 */
export function ratioInterval(a, b, rounds = 2000) {
  return bootstrapInterval((resample) => median(resample(a)) / median(resample(b)), rounds);
}

/** The 95 % bootstrap interval of `median(xs)`. Returns [low, high]. */
export function medianInterval(xs, rounds = 2000) {
  return bootstrapInterval((resample) => median(resample(xs)), rounds);
}

/**
 * The 95 % interval of `statistic` by bootstrap: `rounds` times, the
 * statistic of sample sets resampled with replacement (`statistic` gets the
 * resampling function), from a fixed seed, so the same samples give the same
 * interval. Returns [low, high].
 */
function bootstrapInterval(statistic, rounds) {
  let seed = 0x2545f491;
  const next = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 2 ** 32;
  };
  const resample = (xs) => xs.map(() => xs[Math.floor(next() * xs.length)]);
  const values = [];
  for (let i = 0; i < rounds; i++) values.push(statistic(resample));
  return [percentile(values, 2.5), percentile(values, 97.5)];
}

/** Nearest-rank percentile. */
export function percentile(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

export const round = (x, d = 1) => (Number.isFinite(x) ? Math.round(x * 10 ** d) / 10 ** d : x);

/**
 * The results: `add({id, budget: 1..7, name, value, unit, limit, cmp, note, samples})`.
 * `cmp` is '<=' | '<' | '>=' (pass when `value cmp limit`); no `limit` means
 * an informational figure (INFO); `value` null means it could not be measured.
 */
export class Results {
  constructor() { this.rows = []; this.notes = []; }

  add(row) {
    const { value, limit, cmp = '<=' } = row;
    let status = 'INFO';
    if (value === null || value === undefined || Number.isNaN(value)) status = limit === undefined ? 'INFO' : 'ERROR';
    else if (limit !== undefined) {
      const ok = cmp === '<=' ? value <= limit : cmp === '<' ? value < limit : cmp === '>=' ? value >= limit : value > limit;
      status = ok ? 'PASS' : 'FAIL';
    }
    const r = { ...row, cmp: limit === undefined ? undefined : cmp, status };
    this.rows.push(r);
    const budget = limit === undefined ? '' : ` (budget ${cmp} ${fmt(limit)} ${row.unit || ''})`;
    console.log(`  ${status.padEnd(5)} ${row.name}: ${fmt(value)} ${row.unit || ''}${budget}${row.note ? ` — ${row.note}` : ''}`);
    return r;
  }

  error(budget, name, e) {
    const msg = String(e?.message || e).split('\n')[0];
    this.add({ id: `error-${budget}-${this.rows.length}`, budget, name, value: null, limit: 0, unit: '', note: `failed: ${msg}` });
  }

  note(text) { this.notes.push(text); console.log(`  note: ${text}`); }

  table() {
    const head = ['#', 'figure', 'measured', 'budget', 'status'];
    const lines = this.rows.map((r) => [
      String(r.budget ?? ''),
      r.name,
      r.value === null || r.value === undefined ? 'n/a' : `${fmt(r.value)} ${r.unit || ''}`.trim(),
      r.limit === undefined ? '—' : `${r.cmp} ${fmt(r.limit)} ${r.unit || ''}`.trim(),
      r.status,
    ]);
    const w = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
    const row = (l) => l.map((c, i) => (i === 2 || i === 3 ? c.padStart(w[i]) : c.padEnd(w[i]))).join('  ');
    return [row(head), w.map((n) => '-'.repeat(n)).join('  '), ...lines.map(row)].join('\n');
  }
}

export function fmt(v) {
  if (v === null || v === undefined) return 'n/a';
  if (typeof v !== 'number') return String(v);
  if (Number.isInteger(v)) return v.toLocaleString('en-US');
  const a = Math.abs(v);
  return v.toLocaleString('en-US', { maximumFractionDigits: a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3 });
}

/** In-page helper source: resolves after the next frame has been produced. */
export const NEXT_FRAME = 'new Promise((r) => requestAnimationFrame(() => setTimeout(r)))';

/** Trace events that run script (JavaScript and WebAssembly) on the main thread. */
export const SCRIPT_EVENT = /^(FunctionCall|EvaluateScript|EventDispatch|TimerFire|FireAnimationFrame|FireIdleCallback|RunMicrotasks|v8\.evaluateModule|v8\.callFunction)$/;

/**
 * A load's trace (with `blink.user_timing`, for `navigationStart`), from the
 * navigation on: the renderer's main-thread complete events (sorted by start,
 * the longer first), the navigation's start, and the end of the complete
 * first screen: the end of the first `Paint` after the
 * load's longest script task (our app's first task, the stand-in's render;
 * both paint their complete first screen there: bench/LOG.md, session 27).
 */
export function firstScreen(events) {
  const main = events.find((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  const nav = events.find((e) => e.name === 'navigationStart' && e.pid === main.pid && /^http/.test(e.args?.data?.documentLoaderURL ?? ''));
  const on = events.filter((e) => e.ph === 'X' && e.pid === main.pid && e.tid === main.tid && e.ts >= nav.ts)
    .sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const big = on.filter((e) => SCRIPT_EVENT.test(e.name)).sort((a, b) => b.dur - a.dur)[0];
  const paint = on.find((e) => e.name === 'Paint' && e.ts >= big.ts + big.dur);
  return { on, start: nav.ts, end: paint.ts + paint.dur };
}

/**
 * Runs `fn` under a Chromium trace (devtools.timeline) and sums the
 * durations of complete events by name: where a frame's time goes (Layout,
 * Paint, HitTest, IntersectionObserver, GC, ...). Returns the top `n`.
 */
export async function traceTop(context, page, fn, n = 8) {
  const cdp = await context.newCDPSession(page);
  const events = [];
  cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
  const done = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
  await cdp.send('Tracing.start', { categories: 'devtools.timeline,disabled-by-default-devtools.timeline', transferMode: 'ReportEvents' });
  const t = Date.now();
  await fn();
  const wall = Date.now() - t;
  await cdp.send('Tracing.end');
  await done;
  await cdp.detach();
  const sum = {};
  const skip = new Set(['RunTask', 'ThreadControllerImpl::RunTask', 'RunMicrotasks']);
  for (const e of events) if (e.ph === 'X' && e.dur && !skip.has(e.name) && !e.name.startsWith('V8.GC_')) sum[e.name] = (sum[e.name] || 0) + e.dur / 1000;
  return { wall, top: Object.entries(sum).sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => [k, Math.round(v * 10) / 10]) };
}

/**
 * Adds a CPU profile's samples to `self` and `total` (Maps of µs by function
 * label): self time of the sampled frame, inclusive time of every distinct
 * frame on its stack. Labels drop Rust's `::h<hash>` suffix.
 */
export function addProfile(profile, self, total, width = 120) {
  const byId = new Map(profile.nodes.map((x) => [x.id, x]));
  const parent = new Map();
  for (const x of profile.nodes) for (const c of x.children || []) parent.set(c, x.id);
  const label = (x) => (x.callFrame.functionName || '(anon)').replace(/::h[0-9a-f]{16}$/, '').slice(0, width);
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] || 0;
    const l0 = label(byId.get(id));
    self.set(l0, (self.get(l0) || 0) + dt);
    const seen = new Set();
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
      const l = label(byId.get(cur));
      if (!seen.has(l)) { total.set(l, (total.get(l) || 0) + dt); seen.add(l); }
    }
  });
}

// Optional (scripts/bench.sh --profile): where the main thread's time goes,
// by Rust function, when the big envelope is opened and when the Budget
// tab's limit changes. dist/'s WASM has no function names (wasm-opt strips
// them), so this serves a copy of dist/ whose pep-app WASM is a plain
// `cargo build --release` of the work tree passed through wasm-bindgen
// (names kept, no wasm-opt): same code and opt-level, somewhat larger.
//
// Usage: node bench/profile.mjs PROF_DIST   (scripts/bench.sh --profile makes it)
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DATA, PORT, addProfile, launch, profiledPage, useServer } from './lib.mjs';
import { startServer } from './serve.mjs';

const dist = resolve(process.argv[2] || join(DATA, 'prof-dist'));
const lines = [];
const say = (s) => { lines.push(s); console.log(s); };

/** Self and inclusive time by function (Rust frames for the inclusive list). */
function named(profile) {
  return profile.nodes.some((x) => (x.callFrame.functionName || '').includes('::'));
}

function summarize(profile, title, n = 20) {
  const self = new Map(), total = new Map();
  addProfile(profile, self, total);
  const ms = (us) => (us / 1000).toFixed(1).padStart(8);
  say(`\n### ${title}\nself time (ms):`);
  for (const [k, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, n)) say(`${ms(us)}  ${k}`);
  say('inclusive time of Rust functions (ms):');
  for (const [k, us] of [...total].filter(([k]) => k.includes('::') && !/^(js-to-wasm|wasm_bindgen::convert|js_sys::futures|<core::pin)/.test(k)).sort((a, b) => b[1] - a[1]).slice(0, n + 10)) say(`${ms(us)}  ${k}`);
}

const server = await startServer(dist, PORT, {});
useServer(server);
const browser = await launch();

/** One profiling session; false when V8 gave no function names (seen once under load): then it is run again. */
async function session(last) {
  const { context, page, cdp } = await profiledPage(browser, { interval: 100, settle: 500 });
  await cdp.send('Profiler.start');
  await page.getByTestId('open-file').setInputFiles(join(DATA, 'big.envelope.json'));
  await page.locator('[data-message-id="big-0000"] [data-kind]').first().waitFor({ timeout: 120000 });
  await page.waitForTimeout(300);
  const open = (await cdp.send('Profiler.stop')).profile;
  if (!named(open) && !last) {
    console.log('(no function names in the profile: once more)');
    await context.close();
    return false;
  }
  summarize(open, 'opening the big envelope (file input → first screen)');

  await page.getByTestId('tab-budget').click();
  await page.locator('[data-testid=limit-input]').waitFor({ timeout: 120000 });
  await page.waitForTimeout(1000);
  await cdp.send('Profiler.start');
  const t = await page.evaluate(async () => {
    const input = document.querySelector('[data-testid=limit-input]');
    const out = [];
    for (const v of [2000000, 1800000, 2200000]) {
      const s = performance.now();
      input.value = String(v);
      input.dispatchEvent(new Event('change', { bubbles: true }));
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r)));
      out.push(Math.round(performance.now() - s));
      await new Promise((r) => setTimeout(r, 400));
    }
    return out;
  });
  say(`\nlimit changes, ms to the next frame: ${t.join(', ')}`);
  summarize((await cdp.send('Profiler.stop')).profile, 'three limit changes on the Budget tab (and their debounced views)');
  await context.close();
  return true;
}

if (!(await session(false))) await session(true);
await browser.close();
server.close();
writeFileSync(join(DATA, 'profile.txt'), lines.join('\n') + '\n');
console.log(`\nwrote ${join(DATA, 'profile.txt')}`);

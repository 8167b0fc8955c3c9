// Ad hoc: CPU profile by Rust function of opening FILE through the file input
// (from the file set until the page is quiet for 2 s), on a dist whose app
// WASM keeps names (see scripts/bench.sh --profile). BUDGET=1: then the
// Budget tab click, profiled on its own.
// Usage: node bench/profile-open.mjs PROF_DIST FILE [N]
import { resolve } from 'node:path';
import { addProfile, launch, profiledPage, useServer } from './lib.mjs';
import { startServer } from './serve.mjs';
const [dist, file, n = '40'] = process.argv.slice(2);
const server = await startServer(resolve(dist), 0, {});
useServer(server);
const browser = await launch();
const { context, page, cdp } = await profiledPage(browser, { interval: 200, settle: 800 });
function show(profile, title) {
  const self = new Map(), total = new Map();
  addProfile(profile, self, total, 110);
  const ms = (us) => (us / 1000).toFixed(1).padStart(8);
  console.log(`\n### ${title}\nself:`);
  for (const [k, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(n))) console.log(`${ms(us)}  ${k}`);
  console.log('inclusive:');
  for (const [k, us] of [...total].sort((a, b) => b[1] - a[1]).slice(0, Number(n) * 2)) console.log(`${ms(us)}  ${k}`);
}
await cdp.send('Profiler.start');
const t0 = Date.now();
await page.getByTestId('open-file').setInputFiles(file);
await page.waitForFunction(() => location.pathname.endsWith('/doc'), null, { timeout: 120000 });
await page.waitForTimeout(3000);
console.log(`opened in ${Date.now() - t0} ms (incl. 3 s wait)`);
show((await cdp.send('Profiler.stop')).profile, `opening ${file}`);
if (process.env.BUDGET) {
  await cdp.send('Profiler.start');
  await page.getByTestId('tab-budget').click();
  await page.locator('[data-testid=budget-summary]').waitFor({ timeout: 120000 });
  await page.waitForTimeout(1500);
  show((await cdp.send('Profiler.stop')).profile, 'Budget tab');
}
console.log('errors:', page.errors.slice(0, 3));
await browser.close();
server.close();

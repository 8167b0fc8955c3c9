// Which functions of the main module run while a page opens (see run.sh).
const ROOT = process.env.ROOT, OUT = process.env.OUT, PORT = Number(process.env.PORT || 8799);
const { chromium } = await import(ROOT + '/.tools/node_modules/playwright-core/index.mjs');
const { startServer } = await import(ROOT + '/bench/serve.mjs');
const { writeFileSync } = await import('node:fs');
const server = startServer(OUT + '/dist', PORT);
await new Promise((r) => setTimeout(r, 300));
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
const out = {};
for (const path of process.argv.slice(2)) {
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await ctx.newPage();
  await page.addInitScript(() => {
    window.__cov = new Set();
    const add = (imports) => { imports = imports || {}; imports.env = Object.assign({}, imports.env, { log_execution: (i) => window.__cov.add(i) }); return imports; };
    const is = WebAssembly.instantiateStreaming, ins = WebAssembly.instantiate;
    WebAssembly.instantiateStreaming = (s, imp) => is(s, add(imp));
    WebAssembly.instantiate = (m, imp) => ins(m, add(imp));
    // The set as it was when the first segment was painted (the frame after it exists).
    const watch = () => {
      if (document.querySelector('.seg')) requestAnimationFrame(() => { window.__covPaint = [...window.__cov]; });
      else requestAnimationFrame(watch);
    };
    requestAnimationFrame(watch);
  });
  await page.goto(`http://127.0.0.1:${PORT}${path}`);
  await page.waitForTimeout(4000);
  const ids = await page.evaluate(() => [...window.__cov]);
  out[path + '@paint'] = await page.evaluate(() => window.__covPaint || []);
  console.log(path, 'log points hit:', ids.length, 'segments:', await page.evaluate(() => document.querySelectorAll('.seg').length));
  await page.screenshot({ path: `${OUT}/cov${path.replace(/\//g, '_')}.png` });
  out[path] = ids;
  await ctx.close();
}
writeFileSync(OUT + '/cov.json', JSON.stringify(out));
await browser.close();
process.exit(0);

// Accessibility, phone layout, the paste dialog, warnings and the JSON pane
// (issue 10). Registered by run.mjs; uses its page helper and server.
//
// axe-core (pinned in .tools/package.json) runs in the page with the WCAG 2.1
// A and AA rules; every finding is a failure.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

const WCAG = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/** Runs axe-core on the page; answers its violations, each with up to 4 nodes. */
export async function axe(page, where) {
  if (!(await page.evaluate(() => !!window.axe))) {
    await page.addScriptTag({ path: join(globalThis.__pepRoot, '.tools/node_modules/axe-core/axe.min.js') });
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

/** Runs axe at each viewport step of the conversation (its window renders only what is near). */
async function axeScrolling(page, where) {
  const out = [];
  const steps = await page.evaluate(() => {
    const p = document.querySelector('.pane.left');
    const sc = p && p.scrollHeight > p.clientHeight + 1 ? p : document.scrollingElement;
    window.__axeScroller = sc;
    sc.scrollTop = 0;
    return Math.ceil(sc.scrollHeight / Math.max(1, sc.clientHeight));
  });
  for (let i = 0; i < Math.min(steps + 1, 40); i++) {
    await settle(page);
    out.push(...(await axe(page, `${where} @${i}`)));
    const end = await page.evaluate(() => { const s = window.__axeScroller; const e = s.scrollTop + s.clientHeight >= s.scrollHeight - 1; s.scrollTop += s.clientHeight * 0.9; return e; });
    if (end) break;
  }
  return out;
}

/** One entry per rule and first node (the same finding at each scroll step counts once). */
function dedupe(violations) {
  const seen = new Map();
  for (const v of violations) {
    const key = `${v.where.replace(/ @\d+$/, '')}|${v.id}|${v.nodes[0]}`;
    if (!seen.has(key)) seen.set(key, v);
  }
  return [...seen.values()];
}

function report(violations) {
  // One line per rule and place, the first nodes under it.
  return violations.map((v) => `${v.where}: ${v.id} ×${v.count}\n        ${v.nodes.join('\n        ')}`).join('\n');
}

export function registerA11y({ test, newPage, BASE, DEMOS, root, shotDir }) {
  globalThis.__pepRoot = root;

  test('axe-core: 0 WCAG 2.1 A/AA violations on every demo, both themes, all toggles open, Budget tab open', async (browser) => {
    const all = [];
    for (const scheme of ['light', 'dark']) {
      const { context, page } = await newPage(browser, { colorScheme: scheme });
      for (const d of DEMOS) {
        await page.goto(`${BASE}/demo/${d}`);
        await page.locator('[data-message-id]').first().waitFor();
        await page.getByRole('button', { name: 'Expand all' }).first().click();
        await settle(page);
        all.push(...(await axeScrolling(page, `${scheme} /demo/${d} expanded`)));
        await page.getByTestId('tab-raw').click();
        await page.getByTestId('protocol-json').waitFor();
        all.push(...(await axe(page, `${scheme} /demo/${d} raw`)));
        await page.getByTestId('tab-budget').click();
        await page.locator('.budget-summary').waitFor({ timeout: 30000 });
        await settle(page);
        all.push(...(await axe(page, `${scheme} /demo/${d} budget`)));
        await page.getByTestId('tab-openai').click();
      }
      assert.deepEqual(page.errors, []);
      await context.close();
    }
    if (all.length) console.log(report(dedupe(all)));
    assert.equal(all.length, 0, `${all.length} axe violations (listed above)`);
  });
}

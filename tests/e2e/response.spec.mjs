// The Response view (/response, issue 23): a model's output for the document
// on screen, checked in the engine as `pep test` checks it — validated
// against the document's output schema (its response_format here) with each
// violation at its JSON Pointer, and compared with a golden output field by
// field (a grown array is a Length difference, `- [3 items]` / `+ [4 items]`).
// A provider response body gives its text; prose around the JSON fails and
// says so; hostile strings stay text; no request leaves the page. Keyboard
// only with a pasted schema; axe-core clean; screenshots at 1400 px and
// 390 px, light and dark.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test, BASE, root, shotDir, newPage, axe, settle, paste } from './helpers.mjs';

const SCHEMA = {
  type: 'object',
  properties: {
    summary: { type: 'string' },
    severity: { enum: ['low', 'medium', 'high'] },
    remediation_steps: { type: 'array', items: { type: 'string' } },
  },
  required: ['summary', 'severity', 'remediation_steps'],
  additionalProperties: false,
};

const DOC = {
  version: '1.0',
  model: 'gpt-4o',
  params: { response_format: { type: 'json_schema', json_schema: { name: 'compliance_report', strict: true, schema: SCHEMA } } },
  messages: [
    { id: 'sys', role: 'system', timestamp: 1767225600, segments: [{ kind: 'text', content: 'Write a compliance report as JSON: summary, severity, remediation_steps.' }] },
    { id: 'u1', role: 'user', timestamp: 1767225601, segments: [{ kind: 'text', content: 'The service logs API keys in plain text.' }] },
  ],
};

const GOLDEN = { summary: 'API keys are logged in plain text.', severity: 'high', remediation_steps: ['Rotate the keys', 'Redact the logs', 'Audit access'] };
// A null field, an extra field (hostile text in it), and one step more.
const OUTPUT = {
  summary: null,
  severity: 'high',
  remediation_steps: ['Rotate the keys', 'Redact the logs', 'Audit access', 'Notify users'],
  note: '<img src=x onerror="window.__pwned = 1"><b>not bold</b>',
};

/** Every request the page makes (none may leave its origin). */
function watchRequests(page) {
  const urls = [];
  page.on('request', (r) => urls.push(r.url()));
  return urls;
}

async function check(page) {
  await page.getByTestId('response-check').click();
  await page.getByTestId('response-verdict').waitFor({ timeout: 60000 });
}

const violations = (page) => page.getByTestId('response-violation').evaluateAll((lis) => lis.map((li) => ({
  path: li.dataset.path, keyword: li.querySelector('.badge').textContent, text: li.textContent,
})));

test('Response: the document\'s response_format validates an output with a null and an extra field (violations at their paths), a golden with a grown array gives a Length diff, a response body gives its text, prose fails; axe clean; screenshots', async ({ browser }) => {
  mkdirSync(shotDir, { recursive: true });
  const found = [];
  for (const [width, height, scheme] of [[1400, 900, 'light'], [390, 844, 'dark']]) {
    const { context, page } = await newPage(browser, { viewport: { width, height }, colorScheme: scheme });
    const urls = watchRequests(page);
    await page.goto(`${BASE}/`);
    await page.locator('[data-message-id]').first().waitFor();
    await paste(page, JSON.stringify(DOC), { loads: true });
    if (width < 600) {
      await page.getByTestId('demo-menu').click();
    }
    await page.getByTestId('nav-response').click();
    await page.waitForURL(`${BASE}/response`);
    assert.equal(await page.title(), 'Response · Prompt Envelope');
    const from = await page.getByTestId('response-schema-from').textContent();
    assert.match(from, /^From params\.response_format\.json_schema\.schema of .*, named “compliance_report”, strict\.$/);
    await page.getByText('Show the schema').click();
    assert.deepEqual(JSON.parse(await page.getByTestId('response-schema-json').textContent()), SCHEMA);

    // The output alone: a null where a string is required, and a field the schema refuses.
    await page.getByTestId('response-output').fill(JSON.stringify(OUTPUT, null, 2));
    await check(page);
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'response-results-h', 'focus moves to the results heading');
    assert.equal(await page.getByTestId('response-verdict').textContent(), 'Fails: 2 schema violations.');
    assert.equal(await page.getByTestId('response-taken').textContent(), 'Read as the model’s text.');
    const v = await violations(page);
    assert.equal(v.length, 2, JSON.stringify(v));
    const nul = v.find((x) => x.path === '/summary');
    assert.ok(nul, JSON.stringify(v));
    assert.equal(nul.keyword, 'type');
    assert.match(nul.text, /null/);
    const extra = v.find((x) => x.path === '');
    assert.ok(extra, JSON.stringify(v));
    assert.equal(extra.keyword, 'additionalProperties');
    assert.match(extra.text, /^\(the whole output\)/);
    assert.match(extra.text, /note/);
    assert.equal(await page.getByTestId('response-golden-none').count(), 1);

    // With the golden output: the grown array is a Length difference at its path, and the step added.
    await page.getByTestId('response-golden').fill(JSON.stringify(GOLDEN, null, 2));
    await check(page);
    const diffs = page.getByTestId('response-difference');
    const length = page.locator('[data-testid=response-difference][data-kind=length]');
    assert.equal(await length.count(), 1);
    assert.equal(await length.getAttribute('data-path'), '/remediation_steps');
    assert.equal(await length.getByTestId('response-expected').textContent(), '- [3 items]');
    assert.equal(await length.getByTestId('response-actual').textContent(), '+ [4 items]');
    const kinds = await diffs.evaluateAll((lis) => lis.map((li) => `${li.dataset.kind} ${li.dataset.path}`));
    assert.ok(kinds.includes('type /summary'), kinds.join(', '));
    // A null is a value of the output: `+ null`.
    const nulled = page.locator('[data-testid=response-difference][data-path="/summary"]');
    assert.equal(await nulled.getByTestId('response-expected').textContent(), '- "API keys are logged in plain text."');
    assert.equal(await nulled.getByTestId('response-actual').textContent(), '+ null');
    assert.ok(kinds.includes('unexpected /remediation_steps/3'), kinds.join(', '));
    assert.ok(kinds.includes('unexpected /note'), kinds.join(', '));
    assert.match(await page.getByTestId('response-verdict').textContent(), /^Fails: 2 schema violations, \d+ differences from the golden output\.$/);
    // The results are brought up inside the page: the header stays where it is.
    assert.equal(await page.evaluate(() => Math.round(document.querySelector('header.top').getBoundingClientRect().top)), 0);
    assert.equal(await page.evaluate(() => document.scrollingElement.scrollTop), 0);
    // Hostile text stays text.
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
    assert.equal(await page.locator('.response-page img, .response-page b').count(), 0);
    assert.ok((await page.locator('[data-testid=response-difference][data-path="/note"]').textContent()).includes('<img src=x'));

    await settle(page);
    found.push(...await axe(page, `/response ${width} ${scheme}`));
    if (width < 600) {
      const wide = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(wide <= width, `the page is ${wide} px wide at ${width} px`);
    }
    await page.screenshot({ path: join(shotDir, `response-${width}-${scheme}.png`), fullPage: width === 1400 });
    await page.getByTestId('response-results').screenshot({ path: join(shotDir, `response-${width}-${scheme}-results.png`) });

    if (width === 1400) {
      // A provider response body: its text is taken (and the model named); it matches the golden output.
      const body = { id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'gpt-4o-2024-08-06',
        choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: JSON.stringify(GOLDEN) } }] };
      await page.getByTestId('response-output').fill(JSON.stringify(body));
      await check(page);
      assert.equal(await page.getByTestId('response-taken').textContent(), 'Text taken from an OpenAI Chat Completions response (model gpt-4o-2024-08-06).');
      assert.equal(await page.getByTestId('response-verdict').textContent(), 'Passes.');
      assert.equal(await page.getByTestId('response-matches').count(), 1);
      assert.match(await page.getByTestId('response-valid').textContent(), /^Valid against the document’s schema \(params\.response_format\.json_schema\.schema\)\.$/);

      // "Open a file…" reads a file into its box (here the golden output, as a file of a suite).
      const file = join(root, 'target/e2e/response-golden.json');
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, JSON.stringify({ ...GOLDEN, severity: 'low' }, null, 2));
      await page.getByTestId('response-golden-file').setInputFiles(file);
      await page.waitForFunction(() => document.querySelector('[data-testid=response-golden]').value.includes('"low"'));
      await check(page);
      const sev = page.locator('[data-testid=response-difference][data-path="/severity"]');
      assert.equal(await sev.getAttribute('data-kind'), 'value');
      assert.equal(await sev.getByTestId('response-expected').textContent(), '- "low"');
      assert.equal(await sev.getByTestId('response-actual').textContent(), '+ "high"');

      // Prose around the JSON fails and says so; nothing is validated or compared.
      await page.getByTestId('response-output').fill(`Sure! Here is the report:\n${JSON.stringify(GOLDEN)}`);
      await check(page);
      assert.match(await page.getByTestId('response-parse-error').textContent(), /^The output is not JSON: .*prose/i);
      assert.equal(await page.getByTestId('response-schema-skipped').count(), 1);
      assert.equal(await page.getByTestId('response-golden-skipped').count(), 1);
      assert.equal(await page.getByTestId('response-verdict').textContent(), 'Fails: the output is not JSON.');
    }
    const outside = urls.filter((u) => !u.startsWith(BASE) && !u.startsWith('data:') && !u.startsWith('blob:'));
    assert.deepEqual(outside, [], 'no request leaves the page');
    assert.deepEqual(page.errors, []);
    await context.close();
  }
  assert.deepEqual(found, [], JSON.stringify(found, null, 1));
});

test('Response: keyboard only, no document on screen — a pasted schema, an output, Check with Enter, focus on the results; a schema that is not JSON says where', async ({ browser }) => {
  mkdirSync(shotDir, { recursive: true });
  const { context, page } = await newPage(browser, { colorScheme: 'dark' });
  await page.goto(`${BASE}/response`);
  await page.getByTestId('response').waitFor();
  assert.match(await page.getByTestId('response-no-schema').textContent(), /No document is on screen yet/);
  const focusTo = async (testid) => {
    for (let i = 0; i < 60; i++) {
      await page.keyboard.press('Tab');
      if (await page.evaluate((t) => document.activeElement?.dataset?.testid === t, testid)) return;
    }
    throw new Error(`Tab never reached ${testid}`);
  };
  // Not JSON: the error names the line and column.
  await focusTo('response-schema-text');
  await page.keyboard.type('{"type": "object",');
  await focusTo('response-output');
  await page.keyboard.type('{"a": 1}');
  await focusTo('response-check');
  await page.keyboard.press('Enter');
  await page.getByTestId('response-error').waitFor();
  assert.match(await page.getByTestId('response-error').textContent(), /^The pasted schema is not JSON \(line 1, column \d+\)/);
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'response-results-h');
  // Fixed: a required field missing is a violation at the object that misses it.
  await page.getByTestId('response-schema-text').focus();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.type('{"type": "object", "required": ["b"], "properties": {"a": {"type": "string"}}}');
  await focusTo('response-check');
  await page.keyboard.press('Enter');
  await page.getByTestId('response-verdict').waitFor({ timeout: 60000 });
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'response-results-h');
  const v = await violations(page);
  assert.deepEqual(v.map((x) => `${x.path} ${x.keyword}`).sort(), [' required', '/a type']);
  assert.match(await page.getByTestId('response-violations-count').textContent(), /^2 violations of the pasted schema:$/);
  // Every stop shows a focus ring (the results heading included).
  const outline = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
  assert.notEqual(outline, 'none');
  const found = await axe(page, '/response keyboard dark');
  assert.deepEqual(found, [], JSON.stringify(found, null, 1));
  await page.screenshot({ path: join(shotDir, 'response-1400-dark-keyboard.png') });
  assert.deepEqual(page.errors, []);
  await context.close();
});

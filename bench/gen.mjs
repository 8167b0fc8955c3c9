// Deterministic inputs for the benchmarks (same bytes on every run):
//   big envelope  2,000 messages / 20,000 segments, every segment kind
//   big100k       10,000 messages / 100,000 segments (~37 MB), the same mix
//   one message   100,000 short segments in one message (~3.5 MB)
//   mixed text    ~10 MB of prose, code, CJK, emoji and JSON
//   chat          ~50k tokens as ~360 message strings
//   long runs     20,000 letters, 20,000 CJK characters, 5,000 spaces
// Usage: node bench/gen.mjs [OUT_DIR]   (default target/bench)
import { mkdirSync, renameSync, writeFileSync as writeFileSync0 } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const root = resolve(here, '..');

// ---- a seeded PRNG ----------------------------------------------------------
export function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)); // inclusive
  const pick = (list) => list[Math.floor(next() * list.length)];
  const chance = (p) => next() < p;
  return { next, int, pick, chance };
}

// ---- vocabulary -------------------------------------------------------------
const WORDS = `the a of to and in is it that for on with as this be are by from at or an not we you they
deploy service cluster rollout pod namespace request latency error budget cache token prompt message
context window model tool result schema argument migration database index query table column row
release version branch commit review test build pipeline config secret volume memory cpu limit
probe health check restart crash loop node upgrade dependency package module function variable
string number value object array field key map list queue worker thread async await future
user assistant system session document file upload image audio video link page section chapter
draft summary outline plan estimate timeline deadline meeting note decision owner priority risk
metric dashboard alert incident postmortem runbook rollback canary traffic region zone replica
quickly carefully usually probably exactly roughly however therefore meanwhile instead although
small large fast slow simple complex stable flaky new old first last next previous current final
check run read write open close start stop send receive parse render split join count measure
because when while after before until unless since where which whose whom what why how`.split(/\s+/);
const NAMES = ['Dana', 'Priya', 'Jonas', 'Léa', 'Sam', 'Mei', 'Tomás', 'Aiko', 'Olu', 'Zoë'];
const ZH = '我们在评估这个系统的时候发现上下文窗口的长度会直接影响模型的回答质量因此需要仔细设计截断策略并保留最重要的信息同时尽量提高缓存命中率';
const JA = 'これはテスト用の日本語の文章ですトークナイザーの速度を測るために使いますカタカナとひらがなと漢字が混ざっています';
const KO = '토크나이저의 처리 속도를 측정하기 위한 한국어 문장입니다';
const EMOJI = ['🚀', '✅', '❌', '🔥', '👍', '🎉', '🤔', '📦', '⚠️', '👨‍👩‍👧‍👦', '🇯🇵', '🧪', '💡', '😅', '🙏🏽'];
const LANGS = ['rust', 'ts', 'python', 'bash', 'sql', 'json', 'yaml', 'go'];

function words(r, n) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(r.pick(WORDS));
  return out;
}

function sentence(r) {
  const w = words(r, r.int(5, 18));
  w[0] = w[0][0].toUpperCase() + w[0].slice(1);
  for (let i = 1; i < w.length; i++) {
    const x = r.next();
    if (x < 0.04) w[i] = `**${w[i]}**`;
    else if (x < 0.08) w[i] = `\`${w[i]}_${r.int(1, 99)}\``;
    else if (x < 0.1) w[i] = `_${w[i]}_`;
    else if (x < 0.115) w[i] = `[${w[i]}](https://docs.example.com/${w[i]}/${r.int(1, 999)})`;
    else if (x < 0.125) w[i] = r.pick(EMOJI);
    else if (x < 0.13) w[i] = r.pick(NAMES);
    else if (x < 0.15) w[i] = `${w[i]},`;
  }
  return w.join(' ') + r.pick(['.', '.', '.', '?', '!', ':']);
}

const paragraph = (r) => Array.from({ length: r.int(1, 5) }, () => sentence(r)).join(' ');

function ident(r) {
  return `${r.pick(WORDS)}_${r.pick(WORDS)}${r.int(0, 9)}`.replace(/[^a-z0-9_]/gi, 'x');
}

function codeLines(r, lang, n) {
  const lines = [];
  for (let i = 0; i < n; i++) {
    const a = ident(r), b = ident(r), k = r.int(0, 4096);
    switch (lang) {
      case 'rust': lines.push(r.pick([`let ${a} = ${b}.iter().map(|x| x * ${k}).collect::<Vec<_>>();`, `fn ${a}(${b}: &str) -> Result<u64, Error> {`, `    ${a}.insert("${b}".to_string(), ${k});`, `}`, `#[derive(Debug, Clone)]`])); break;
      case 'ts': lines.push(r.pick([`const ${a} = await fetch(\`/api/${b}/\${id}\`);`, `export function ${a}(${b}: number): string {`, `  return ${b}.toFixed(${k % 5});`, `}`, `if (${a} === undefined) throw new Error('${b}');`])); break;
      case 'python': lines.push(r.pick([`def ${a}(${b}):`, `    return [x * ${k} for x in ${b}]`, `${a} = {"${b}": ${k}, "ok": True}`, `import ${a}`, `    print(f"{${b}=}")`])); break;
      case 'bash': lines.push(r.pick([`kubectl -n orders get pods -l app=${a} -o wide`, `export ${a.toUpperCase()}=${k}`, `grep -rn "${b}" src/ | head -${k % 50}`, `curl -sf https://api.example.com/${a} | jq '.${b}'`])); break;
      case 'sql': lines.push(r.pick([`SELECT ${a}, count(*) FROM ${b} GROUP BY 1;`, `CREATE INDEX CONCURRENTLY ${a}_idx ON ${b} (created_at);`, `WHERE ${a} > now() - interval '${k % 48} hours'`, `EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM ${a} LIMIT ${k};`])); break;
      case 'json': lines.push(`  "${a}": { "${b}": ${k}, "enabled": ${k % 2 === 0} },`); break;
      case 'yaml': lines.push(r.pick([`${a}:`, `  ${b}: ${k}`, `  - name: ${a}`, `    image: registry.example.com/${b}:${k % 30}.${k % 7}`])); break;
      default: lines.push(r.pick([`func ${a}(${b} int) error {`, `	if err := ${b}(); err != nil { return err }`, `}`, `${a} := make(map[string]int, ${k})`]));
    }
  }
  return lines.join('\n');
}

function table(r) {
  const cols = r.int(2, 5), rows = r.int(2, 7);
  const head = Array.from({ length: cols }, () => r.pick(WORDS));
  const out = [`| ${head.join(' | ')} |`, `|${' --- |'.repeat(cols)}`];
  for (let i = 0; i < rows; i++) out.push(`| ${Array.from({ length: cols }, () => (r.chance(0.4) ? String(r.int(0, 99999)) : words(r, r.int(1, 3)).join(' '))).join(' | ')} |`);
  return out.join('\n');
}

function block(r) {
  const x = r.next();
  if (x < 0.45) return paragraph(r);
  if (x < 0.6) return Array.from({ length: r.int(2, 6) }, (_, i) => `${r.chance(0.5) ? '-' : `${i + 1}.`} ${sentence(r)}`).join('\n');
  if (x < 0.75) { const l = r.pick(LANGS); return '```' + l + '\n' + codeLines(r, l, r.int(2, 14)) + '\n```'; }
  if (x < 0.83) return table(r);
  if (x < 0.9) return `${'#'.repeat(r.int(2, 4))} ${words(r, r.int(2, 6)).join(' ')}`;
  if (x < 0.95) return `> ${sentence(r)}`;
  return r.chance(0.5) ? ZH.slice(0, r.int(20, ZH.length)) + '。' : JA.slice(0, r.int(15, JA.length)) + '。';
}

/** Markdown of varied length: a line, a few blocks, or a long answer. */
export function markdown(r, size = null) {
  const s = size ?? r.pick(['short', 'short', 'medium', 'medium', 'medium', 'long']);
  if (s === 'short') return sentence(r);
  const n = s === 'medium' ? r.int(1, 4) : r.int(5, 14);
  return Array.from({ length: n }, () => block(r)).join('\n\n');
}

// ---- the big envelope ---------------------------------------------------------
const TOOLS = [
  { name: 'get_pod_logs', description: 'Fetch recent logs of a pod.', parameters: 'namespace: string, pod: string, lines?: int, previous?: bool',
    schema: { type: 'object', properties: { namespace: { type: 'string' }, pod: { type: 'string' }, lines: { type: 'integer', minimum: 1, maximum: 5000 }, previous: { type: 'boolean' } }, required: ['namespace', 'pod'], additionalProperties: false } },
  { name: 'query_metrics', description: 'Run a PromQL query over a time range.', parameters: 'query: string, range: 5m|1h|24h, step?: int',
    schema: { type: 'object', properties: { query: { type: 'string' }, range: { type: 'string', enum: ['5m', '1h', '24h'] }, step: { type: 'integer', minimum: 1 } }, required: ['query', 'range'], additionalProperties: false } },
  { name: 'search_docs', description: 'Search the internal documentation.', parameters: 'q: string, limit?: int, tags?: string[]',
    schema: { type: 'object', properties: { q: { type: 'string' }, limit: { type: 'integer', minimum: 1, maximum: 50 }, tags: { type: 'array', items: { type: 'string' } } }, required: ['q'], additionalProperties: false } },
  { name: 'run_sql', description: 'Run a read-only SQL query on the replica.', parameters: 'database: orders-db|analytics, sql: string',
    schema: { type: 'object', properties: { database: { type: 'string', enum: ['orders-db', 'analytics'] }, sql: { type: 'string' } }, required: ['database', 'sql'], additionalProperties: false } },
  { name: 'create_ticket', description: 'Open a ticket in the tracker.', parameters: 'title: string, priority: p1|p2|p3, labels?: string[]',
    schema: { type: 'object', properties: { title: { type: 'string' }, priority: { type: 'string', enum: ['p1', 'p2', 'p3'] }, labels: { type: 'array', items: { type: 'string' } } }, required: ['title', 'priority'], additionalProperties: false } },
  { name: 'get_weather', description: 'Weather forecast for a city.', parameters: 'city: string, days?: int',
    schema: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 1, maximum: 14 } }, required: ['city'], additionalProperties: false } },
];

function toolArgs(r, tool) {
  switch (tool) {
    case 'get_pod_logs': return { namespace: r.pick(['orders', 'payments', 'search']), pod: `${r.pick(WORDS)}-${r.int(1000, 9999)}-x${r.int(10, 99)}`, ...(r.chance(0.6) ? { lines: r.int(50, 2000) } : {}), ...(r.chance(0.3) ? { previous: r.chance(0.5) } : {}) };
    case 'query_metrics': return { query: `histogram_quantile(0.95, sum(rate(http_request_duration_seconds_bucket{service="${r.pick(WORDS)}"}[5m])) by (le))`, range: r.pick(['5m', '1h', '24h']), ...(r.chance(0.5) ? { step: r.int(15, 300) } : {}) };
    case 'search_docs': return { q: words(r, r.int(2, 6)).join(' '), ...(r.chance(0.5) ? { limit: r.int(1, 20) } : {}), ...(r.chance(0.4) ? { tags: words(r, r.int(1, 3)) } : {}) };
    case 'run_sql': return { database: r.pick(['orders-db', 'analytics']), sql: codeLines(r, 'sql', r.int(1, 3)) };
    case 'create_ticket': return { title: sentence(r), priority: r.pick(['p1', 'p2', 'p3']), ...(r.chance(0.5) ? { labels: words(r, r.int(1, 3)) } : {}) };
    default: return { city: r.pick(['Lisbon', 'Berlin', 'Tokyo', 'São Paulo', 'Zürich', '東京']), ...(r.chance(0.5) ? { days: r.int(1, 14) } : {}) };
  }
}

function toolResult(r, tool) {
  const x = r.next();
  if (x < 0.35) return JSON.stringify({ ok: true, tool, items: Array.from({ length: r.int(1, 12) }, () => ({ id: r.int(1, 1e6), name: r.pick(WORDS), value: r.int(0, 1e5) / 100, note: sentence(r) })) }, null, r.chance(0.5) ? 2 : 0);
  if (x < 0.6) return codeLines(r, 'bash', r.int(3, 40));
  if (x < 0.85) return markdown(r, r.pick(['short', 'medium']));
  return Array.from({ length: r.int(5, 60) }, (_, i) => `2026-02-11T09:${String(i % 60).padStart(2, '0')}:${String(r.int(0, 59)).padStart(2, '0')}Z ${r.pick(['INFO', 'WARN', 'ERROR'])} ${sentence(r)}`).join('\n');
}

const VARS = [
  { name: 'user_name', value: 'Dana', description: 'Who the assistant talks to' },
  { name: 'today', value: '2026-02-11', description: 'The date of the session' },
  { name: 'team', value: 'Platform SRE' },
];

function longText(r) {
  const parts = [];
  const want = r.int(800, 4000);
  let n = 0;
  while (n < want) { const b = r.chance(0.3) ? codeLines(r, 'bash', r.int(5, 30)) : markdown(r, 'medium'); parts.push(b); n += b.length; }
  const content = parts.join('\n\n');
  return { kind: 'long_text', content, charCount: [...content].length, collapsed: r.chance(0.8) };
}

function documentSeg(r) {
  const ext = r.pick(['pdf', 'csv', 'md', 'docx', 'txt']);
  const mime = { pdf: 'application/pdf', csv: 'text/csv', md: 'text/markdown', docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', txt: 'text/plain' }[ext];
  const seg = { kind: 'document', fileName: `${ident(r)}.${ext}`, mimeType: mime, snippet: paragraph(r), sizeBytes: r.int(800, 25_000_000) };
  if (r.chance(0.6)) seg.parsedContent = markdown(r, r.pick(['medium', 'medium', 'long']));
  return seg;
}

function mediaSeg(r) {
  const t = r.pick(['image', 'image', 'image', 'audio', 'video']);
  const ext = { image: r.pick(['png', 'jpg', 'webp']), audio: 'mp3', video: 'mp4' }[t];
  const seg = { kind: 'media', mediaType: t, url: `https://media.example.com/${t}/${r.int(1, 1e9).toString(36)}.${ext}` };
  if (r.chance(0.8)) seg.altText = sentence(r);
  return seg;
}

function systemMessage(r, id, ts) {
  return {
    id, role: 'system', timestamp: ts,
    segments: [
      { kind: 'system_prompt', content: `You are Relay, the assistant of the {{team}} team. You talk to {{user_name}}; today is {{today}}.\n\n` + markdown(r, 'long'), collapsed: true },
      ...VARS.map((v) => ({ kind: 'static_var', ...v })),
      { kind: 'memory', collapsed: true, description: 'Facts saved from earlier sessions', items: Array.from({ length: 8 }, () => ({ title: words(r, r.int(2, 4)).join(' '), content: paragraph(r) })) },
      { kind: 'skills', collapsed: true, description: 'Skills available in this workspace', items: ['incident-postmortem', 'release-notes', 'sql-review', 'runbook-writer', 'meeting-digest'].map((name, i) => ({ name, description: paragraph(r), ...(i < 2 ? { body: markdown(r, 'long'), loaded: true } : { loaded: false }) })) },
      { kind: 'tool_overview', collapsed: true, items: TOOLS.map((t) => ({ ...t })) },
    ],
  };
}

/**
 * 2,000 messages holding exactly 20,000 segments: a system message with every
 * context kind, then turns of user (text, documents, long texts, media),
 * assistant (text and parallel tool calls), tool (paired results by callId),
 * and an occasional system update (memory, skills).
 */
export function bigEnvelope({ messages: M = 2000, segments: S = 20000, seed = 42 } = {}) {
  const r = rng(seed);
  const out = [];
  let ts = 1770800000000;
  const tick = () => (ts += r.int(2000, 90000));
  out.push(systemMessage(r, 'big-0000', tick()));
  let call = 0;
  const id = () => `big-${String(out.length).padStart(4, '0')}`;
  const prio = () => (r.chance(0.5) ? { truncationPriority: r.pick([0, 1, 1, 2, 2, 3, 4, 5]) } : {});
  while (out.length < M) {
    const left = M - out.length;
    // user
    const useg = [{ kind: 'text', content: markdown(r) }];
    if (r.chance(0.25)) useg.push(documentSeg(r));
    if (r.chance(0.12)) useg.push(longText(r));
    for (let k = r.chance(0.4) ? r.int(1, 6) : 0; k > 0; k--) useg.push(mediaSeg(r));
    for (let k = r.chance(0.4) ? r.int(1, 4) : 0; k > 0; k--) useg.push({ kind: 'text', content: markdown(r, 'short') });
    if (r.chance(0.2)) useg.push({ kind: 'text', content: `Thanks {{user_name}} here: ${sentence(r)}` });
    out.push({ id: id(), role: 'user', timestamp: tick(), segments: useg, ...prio() });
    if (left < 2) break;
    // assistant, maybe with parallel calls and their results
    const k = left >= 4 && r.chance(0.7) ? r.int(3, 16) : 0;
    const aseg = [];
    if (r.chance(0.7)) aseg.push({ kind: 'text', content: markdown(r, r.pick(['short', 'medium'])) });
    const calls = [];
    for (let j = 0; j < k; j++) {
      const tool = r.pick(TOOLS).name;
      const callId = `call_${(++call).toString(36)}_${r.int(0, 1e6).toString(36)}`;
      calls.push({ tool, callId });
      aseg.push({ kind: 'tool_call_request', toolName: tool, arguments: toolArgs(r, tool), collapsed: r.chance(0.7), callId });
    }
    if (!aseg.length) aseg.push({ kind: 'text', content: markdown(r) });
    const p = prio();
    out.push({ id: id(), role: 'assistant', timestamp: tick(), segments: aseg, ...p });
    if (k) {
      // One tool message with all results, or a few tool messages.
      const groups = r.chance(0.6) ? [calls] : [calls.slice(0, Math.ceil(k / 2)), calls.slice(Math.ceil(k / 2))];
      for (const g of groups) {
        if (!g.length || out.length >= M - 1) continue;
        out.push({
          id: id(), role: 'tool', timestamp: tick(), ...p,
          segments: g.map((c) => {
            const success = r.chance(0.9);
            return { kind: 'tool_call_result', toolName: c.tool, result: success ? toolResult(r, c.tool) : `Error: ${sentence(r)}`, success, collapsed: success, callId: c.callId };
          }),
        });
      }
      if (out.length < M) {
        // The answer, in sections.
        out.push({ id: id(), role: 'assistant', timestamp: tick(), segments: Array.from({ length: r.int(1, 8) }, () => ({ kind: 'text', content: markdown(r, r.pick(['short', 'medium', 'medium'])) })), ...p });
      }
    }
    if (out.length < M && r.chance(0.02)) {
      out.push({
        id: id(), role: 'system', timestamp: tick(),
        segments: r.chance(0.5)
          ? [{ kind: 'memory', collapsed: false, items: [{ title: words(r, 3).join(' '), content: paragraph(r) }] }]
          : [{ kind: 'skills', collapsed: false, items: [{ name: 'sql-review', description: paragraph(r), body: markdown(r, 'long'), loaded: true }] }],
      });
    }
  }
  // A broken pairing would be a bug here: a tool message must follow its
  // assistant message, so an assistant cut off by M keeps no calls.
  const last = out[out.length - 1];
  if (last.role === 'assistant' && last.segments.some((s) => s.kind === 'tool_call_request')) {
    last.segments = last.segments.filter((s) => s.kind !== 'tool_call_request');
    if (!last.segments.length) last.segments.push({ kind: 'text', content: markdown(r) });
  }
  // Exactly S segments: add (or remove) user/assistant content segments in turn.
  let total = out.reduce((n, m) => n + m.segments.length, 0);
  if (process.env.BENCH_GEN_DEBUG) console.error(`natural: ${out.length} messages, ${total} segments`);
  const editable = out.filter((m) => m.role === 'user' || (m.role === 'assistant' && !m.segments.some((s) => s.kind === 'tool_call_request')));
  const short = (rr) => ({ kind: 'text', content: markdown(rr, 'short') });
  const extra = [short, mediaSeg, (rr) => ({ kind: 'text', content: markdown(rr) }), short, mediaSeg, short, documentSeg, short, mediaSeg, short, (rr) => ({ kind: 'text', content: markdown(rr) }), longText];
  let i = 0;
  while (total < S) {
    const m = editable[(i * 7919) % editable.length];
    m.segments.push(extra[i % extra.length](r));
    total++; i++;
  }
  while (total > S) {
    const m = editable[(i * 7919) % editable.length];
    if (m.segments.length > 1) { m.segments.pop(); total--; }
    i++;
  }
  return { version: '1.0', model: 'gpt-4o', messages: out };
}

/**
 * One user message holding `n` short segments (text, with a collapsed long
 * text every 50th): the red-team's "one message with 100,000 segments (3.5 MB)".
 */
export function oneMessageEnvelope(n = 100_000, seed = 9) {
  const r = rng(seed);
  const long = (i) => { const content = `pasted ${i}\n${sentence(r)}\n${sentence(r)}`; return { kind: 'long_text', content, charCount: [...content].length, collapsed: true }; };
  const segments = Array.from({ length: n }, (_, i) => (i % 50 === 49 ? long(i) : { kind: 'text', content: `${r.pick(WORDS)} ${i}` }));
  return { version: '1.0', model: 'gpt-4o', messages: [{ id: 'one', role: 'user', timestamp: 1770800000000, segments }] };
}

// ---- tokenizer inputs ------------------------------------------------------------
/** ~`bytes` of mixed text: prose, code, CJK, emoji, JSON (no U+FEFF / U+0085). */
export function mixedText(bytes = 10_000_000, seed = 7) {
  const r = rng(seed);
  const parts = [];
  let n = 0;
  while (n < bytes) {
    const x = r.next();
    let s;
    if (x < 0.4) s = markdown(r, 'medium');
    else if (x < 0.6) { const l = r.pick(LANGS); s = codeLines(r, l, r.int(5, 40)); }
    else if (x < 0.72) s = Array.from({ length: r.int(2, 8) }, () => (r.chance(0.6) ? ZH : r.chance(0.5) ? JA : KO).slice(r.int(0, 10), r.int(20, 60)) + '。').join('');
    else if (x < 0.78) s = Array.from({ length: r.int(3, 30) }, () => (r.chance(0.5) ? r.pick(EMOJI) : r.pick(WORDS))).join(r.pick([' ', '', ' ']));
    else s = JSON.stringify(Array.from({ length: r.int(1, 8) }, () => ({ id: r.int(1, 1e9), name: ident(r), tags: words(r, r.int(0, 4)), score: r.int(0, 1e6) / 1e3, text: sentence(r), ok: r.chance(0.5), nested: { k: ident(r), v: [r.int(0, 99), r.int(0, 99)] } })), null, r.chance(0.5) ? 2 : 0);
    parts.push(s);
    n += Buffer.byteLength(s) + 1;
  }
  return parts.join('\n');
}

/** A chat of `n` message strings (~140 tokens each on average). */
export function chatStrings(n = 360, seed = 11) {
  const r = rng(seed);
  return Array.from({ length: n }, (_, i) => (i % 2 === 0 ? markdown(r, r.pick(['short', 'short', 'medium'])) : markdown(r, r.pick(['short', 'medium', 'medium', 'medium', 'long']))));
}

/** 20,000 letters, 20,000 CJK characters, 5,000 spaces: each one unbroken run. */
export function longRuns() {
  const r = rng(5);
  const abc = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
  const letters = Array.from({ length: 20000 }, () => abc[r.int(0, abc.length - 1)]).join('');
  const zh = ZH.repeat(Math.ceil(20000 / ZH.length)).slice(0, 20000);
  const spaces = ' '.repeat(5000);
  return [letters, zh, spaces];
}

// ---- CLI: write everything to OUT_DIR --------------------------------------------
if (import.meta.url === `file://${process.argv[1]}`) {
  const out = resolve(process.argv[2] || join(root, 'target/bench'));
  mkdirSync(out, { recursive: true });
  // Written whole, then renamed: a run reading them never sees half a file.
  const writeFileSync = (file, data) => { writeFileSync0(`${file}.tmp${process.pid}`, data); renameSync(`${file}.tmp${process.pid}`, file); };
  const t = Date.now();
  const env = bigEnvelope();
  writeFileSync(join(out, 'big.envelope.json'), JSON.stringify(env));
  // The window's inputs: 10,000 messages / 100,000 segments (~37 MB), and
  // 100,000 segments in one message.
  writeFileSync(join(out, 'big100k.envelope.json'), JSON.stringify(bigEnvelope({ messages: 10_000, segments: 100_000, seed: 43 })));
  writeFileSync(join(out, 'one-message-100k.envelope.json'), JSON.stringify(oneMessageEnvelope()));
  writeFileSync(join(out, 'mixed-10mb.txt'), mixedText());
  writeFileSync(join(out, 'chat-360.json'), JSON.stringify(chatStrings()));
  writeFileSync(join(out, 'long-runs.json'), JSON.stringify(longRuns()));
  writeFileSync(join(out, 'long-runs.txt'), longRuns().join(''));
  const kinds = {};
  for (const m of env.messages) for (const s of m.segments) kinds[s.kind] = (kinds[s.kind] || 0) + 1;
  console.log(`generated in ${Date.now() - t} ms into ${out}: ${env.messages.length} messages, ${Object.values(kinds).reduce((a, b) => a + b)} segments ${JSON.stringify(kinds)}`);
}

// A deterministic file of many recorded calls (issue 22's Calls view):
// JSON Lines of request bodies, as `pep`'s batch reader and the app's Calls
// view read them — OpenAI Chat and Anthropic Messages bodies in turn, each
// with a system prompt, one to seven turns of varied prose, sometimes a tool
// and its call, so rows differ in provider, model, messages and text.
//
//   callsJsonl(n, seed) → the text (one body a line, "\n" after each)
//   node bench/calls-gen.mjs N OUT   writes it
import { writeFileSync } from 'node:fs';
import { rng } from './gen.mjs';

const WORDS = `deploy service cluster rollout request latency error budget cache token prompt message
context window model tool result schema argument migration database index query table column release
version branch commit review test build pipeline config volume memory limit probe health restart node
upgrade dependency package module function value object array field queue worker summary outline plan
estimate timeline deadline meeting note decision owner priority risk invoice order refund weather city`
  .split(/\s+/);

const OPENAI = ['gpt-4o', 'gpt-4o-mini', 'gpt-4.1', 'gpt-4.1-mini', 'o3-mini'];
const ANTHROPIC = ['claude-sonnet-4-5', 'claude-haiku-4-5', 'claude-opus-4-1'];

function sentence(r, min, max) {
  const n = r.int(min, max);
  const w = [];
  for (let i = 0; i < n; i++) w.push(r.pick(WORDS));
  const s = w.join(' ');
  return `${s[0].toUpperCase()}${s.slice(1)}.`;
}

function text(r, sentences) {
  const out = [];
  for (let i = 0; i < sentences; i++) out.push(sentence(r, 5, 16));
  return out.join(' ');
}

const TOOL = {
  name: 'get_weather',
  description: 'The weather in a city today.',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

function openaiBody(r, k) {
  const messages = [{ role: 'system', content: text(r, r.int(1, 3)) }];
  const turns = r.int(1, 4);
  for (let t = 0; t < turns; t++) {
    messages.push({ role: 'user', content: `${text(r, r.int(1, 3))} (#${k}.${t})` });
    if (t < turns - 1) messages.push({ role: 'assistant', content: text(r, r.int(1, 2)) });
  }
  const body = { model: r.pick(OPENAI), messages };
  if (r.chance(0.3)) body.temperature = Number((r.int(0, 10) / 10).toFixed(1));
  if (r.chance(0.2)) {
    body.tools = [{ type: 'function', function: TOOL }];
    const id = `call_${k}`;
    messages.push({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] });
    messages.push({ role: 'tool', tool_call_id: id, content: '{"temperature_c":18,"sky":"clear"}' });
  }
  return body;
}

function anthropicBody(r, k) {
  const messages = [];
  const turns = r.int(1, 4);
  for (let t = 0; t < turns; t++) {
    messages.push({ role: 'user', content: `${text(r, r.int(1, 3))} (#${k}.${t})` });
    if (t < turns - 1) messages.push({ role: 'assistant', content: text(r, r.int(1, 2)) });
  }
  return { model: r.pick(ANTHROPIC), max_tokens: r.pick([256, 1024, 4096]), system: text(r, r.int(1, 3)), messages };
}

/** `n` request bodies, one a line. */
export function callsJsonl(n, seed = 22) {
  const r = rng(seed);
  const lines = [];
  for (let k = 0; k < n; k++) lines.push(JSON.stringify(r.chance(0.65) ? openaiBody(r, k + 1) : anthropicBody(r, k + 1)));
  return `${lines.join('\n')}\n`;
}

if (process.argv[1] && process.argv[1].endsWith('calls-gen.mjs')) {
  const n = Number(process.argv[2] || 100000);
  const out = process.argv[3] || 'calls.jsonl';
  writeFileSync(out, callsJsonl(n));
  console.log(`${out}: ${n} calls`);
}

// The baseline tokenizer in a module worker, speaking the app worker's
// protocol: in `{id, texts}`, out `"ready"` once, then `{id, lens, ms}`.
// gpt-tokenizer 4.0.0, o200k_base, text as ordinary text (no special tokens).
import { countTokens, encode } from '/__bench/node_modules/gpt-tokenizer/esm/encoding/o200k_base.js';

const ORDINARY = { disallowedSpecial: new Set() };
encode('warm up', ORDINARY); // builds the encoder's tables before "ready"
self.onmessage = (e) => {
  const { id, texts } = e.data;
  const t0 = performance.now();
  const lens = new Uint32Array(texts.length);
  try {
    texts.forEach((t, i) => { lens[i] = countTokens(t, ORDINARY); });
  } catch (err) {
    self.postMessage({ id, error: String(err) });
    return;
  }
  self.postMessage({ id, lens, ms: performance.now() - t0 });
};
self.postMessage('ready');

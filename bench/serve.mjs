// The benchmarks' static server on 127.0.0.1: dist/ with the single-page-app
// fallback (as tests/e2e/serve.mjs), plus /__bench/ for the baseline
// tokenizer (bench/node_modules), the bench's own worker and the generated
// inputs (target/bench). Unlike the e2e server, gzip -9 bodies are computed
// once per file and cached, so the timings measure the browser and the app,
// not zlib on every request (a CDN also serves precompressed files).
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { gzipSync } from 'node:zlib';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript',
  '.wasm': 'application/wasm', '.css': 'text/css', '.json': 'application/json',
  '.svg': 'image/svg+xml', '.md': 'text/markdown; charset=utf-8', '.png': 'image/png',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * Serves `dist` at `/` and each `mounts[prefix]` folder at `prefix`
 * (prefixes like `/__bench/data/`, longest first). Returns the server, with
 * `server.log` listing every request path.
 */
export function startServer(dist, port, mounts = {}) {
  const cache = new Map(); // file -> { mtime, body, gz }
  const prefixes = Object.keys(mounts).sort((a, b) => b.length - a.length);
  async function load(file) {
    const st = await stat(file);
    if (!st.isFile()) throw new Error('not a file');
    const hit = cache.get(file);
    if (hit && hit.mtime === st.mtimeMs) return hit;
    const body = await readFile(file);
    const entry = { mtime: st.mtimeMs, body, gz: null };
    cache.set(file, entry);
    return entry;
  }
  const log = [];
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://x');
    log.push(url.pathname);
    const path = normalize(decodeURIComponent(url.pathname)).replace(/^(\.\.[/\\])+/, '');
    const prefix = prefixes.find((p) => path.startsWith(p));
    let file = prefix ? join(mounts[prefix], path.slice(prefix.length)) : join(dist, path);
    let entry;
    try {
      entry = await load(file);
    } catch {
      if (prefix) {
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('not found');
        return;
      }
      file = join(dist, 'index.html');
      entry = await load(file);
    }
    const headers = { 'content-type': TYPES[extname(file)] || 'application/octet-stream', 'cache-control': 'no-cache' };
    let body = entry.body;
    if ((req.headers['accept-encoding'] || '').includes('gzip')) {
      entry.gz ??= gzipSync(entry.body, { level: 9 });
      body = entry.gz;
      headers['content-encoding'] = 'gzip';
    }
    headers['content-length'] = body.length;
    res.writeHead(200, headers);
    res.end(body);
  });
  server.log = log;
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, '127.0.0.1', () => ok(server));
  });
}

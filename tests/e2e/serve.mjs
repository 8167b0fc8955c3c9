// A static server for dist/ on 127.0.0.1 with the single-page-app fallback
// (unknown paths get index.html, as `trunk serve` does), and gzip on request.
// Usage: node tests/e2e/serve.mjs [dir] [port]
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';

const root = resolve(process.argv[2] || 'dist');
const port = Number(process.argv[3] || 8765);
const types = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript',
  '.wasm': 'application/wasm', '.css': 'text/css', '.json': 'application/json',
  '.svg': 'image/svg+xml', '.md': 'text/markdown; charset=utf-8', '.png': 'image/png',
};

export function startServer(dir = root, p = port) {
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://x');
    let path = normalize(decodeURIComponent(url.pathname)).replace(/^(\.\.[/\\])+/, '');
    let file = join(dir, path);
    let body;
    try {
      if (!(await stat(file)).isFile()) throw new Error('dir');
      body = await readFile(file);
    } catch {
      file = join(dir, 'index.html');
      body = await readFile(file);
    }
    const headers = { 'content-type': types[extname(file)] || 'application/octet-stream', 'cache-control': 'no-cache' };
    if ((req.headers['accept-encoding'] || '').includes('gzip')) {
      body = gzipSync(body, { level: 9 });
      headers['content-encoding'] = 'gzip';
    }
    res.writeHead(200, headers);
    res.end(body);
  });
  return new Promise((ok) => server.listen(p, '127.0.0.1', () => ok(server)));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await startServer();
  console.log(`serving ${root} on http://127.0.0.1:${port}/`);
}

// A static server for dist/ on 127.0.0.1 with the single-page-app fallback
// (unknown paths get index.html, as `trunk serve` does), and gzip on request.
// Options for the shipping tests: `prefix` (the site lives under that path;
// anything outside is a 404), `pages: true` (a host without rewrites, like
// GitHub Pages: an unknown path gets 404.html with status 404) and
// `precompressed: true` (the build's .br/.gz files are sent as they are).
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
  '.webmanifest': 'application/manifest+json',
};

export function startServer(dir = root, p = port, { prefix = '/', pages = false, precompressed = false } = {}) {
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://x');
    if (!url.pathname.startsWith(prefix)) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('outside the site');
      return;
    }
    let path = normalize(decodeURIComponent('/' + url.pathname.slice(prefix.length))).replace(/^(\.\.[/\\])+/, '');
    let file = join(dir, path);
    let body;
    let status = 200;
    try {
      if (!(await stat(file)).isFile()) throw new Error('dir');
      body = await readFile(file);
    } catch {
      if (pages && path !== '/') status = 404;
      file = join(dir, status === 404 ? '404.html' : 'index.html');
      body = await readFile(file);
    }
    const headers = { 'content-type': types[extname(file)] || 'application/octet-stream', 'cache-control': 'no-cache' };
    const accept = req.headers['accept-encoding'] || '';
    if (precompressed) {
      for (const [enc, ext] of [['br', '.br'], ['gzip', '.gz']]) {
        if (!accept.includes(enc)) continue;
        try {
          body = await readFile(file + ext);
          headers['content-encoding'] = enc;
          break;
        } catch {
          /* not precompressed: sent as is */
        }
      }
    } else if (accept.includes('gzip')) {
      body = gzipSync(body, { level: 9 });
      headers['content-encoding'] = 'gzip';
    }
    res.writeHead(status, headers);
    res.end(body);
  });
  return new Promise((ok) => server.listen(p, '127.0.0.1', () => ok(server)));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await startServer();
  console.log(`serving ${root} on http://127.0.0.1:${port}/`);
}

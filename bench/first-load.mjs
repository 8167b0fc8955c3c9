// What the first load transfers: the files dist/index.html references, each
// with its gzip -9 size. No browser: used by size.mjs (bench) and by
// size-gate.mjs (the CI gate in scripts/test.sh).
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { gzipSync } from 'node:zlib';

/** `gzip -9` size (the gzip program; zlib level 9 where there is none). */
export const gz = (file) => {
  try {
    return execFileSync('gzip', ['-9', '-c', file], { maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'ignore'] }).length;
  } catch {
    return gzipSync(readFileSync(file), { level: 9 }).length;
  }
};

/**
 * Every same-origin path index.html references (attributes and inline module
 * imports), relative to its `<base href>` (trunk --public-url) and without the
 * base itself.
 */
export function referencedFiles(html) {
  const base = (html.match(/<base\b[^>]*\bhref="(\/[^"]*)"/) || [])[1] || '/';
  const out = new Set();
  const add = (p) => { if (p.startsWith(base) && p !== base) out.add('/' + p.slice(base.length)); };
  for (const m of html.matchAll(/\b(?:href|src)="(\/[^"#?]*)"/g)) add(m[1]);
  for (const m of html.matchAll(/['"](\/[^'"\s]+\.(?:js|mjs|wasm|css))['"]/g)) add(m[1]);
  return [...out];
}

/**
 * The rows of the first load of `dist`: index.html, then every file it
 * references ({ path, kind, raw, gzip }); `counted` holds the html, js, wasm
 * and css rows (the figure the budget is about), `total` their gzip sum.
 */
export function firstLoad(dist) {
  const html = readFileSync(join(dist, 'index.html'), 'utf8');
  const rows = [{ path: '/index.html', kind: 'html', raw: statSync(join(dist, 'index.html')).size, gzip: gz(join(dist, 'index.html')) }];
  for (const p of referencedFiles(html)) {
    const kind = { '.js': 'js', '.mjs': 'js', '.wasm': 'wasm', '.css': 'css' }[extname(p)] || 'other';
    rows.push({ path: p, kind, raw: statSync(join(dist, p)).size, gzip: gz(join(dist, p)) });
  }
  const counted = rows.filter((r) => ['html', 'js', 'wasm', 'css'].includes(r.kind));
  return { rows, counted, total: counted.reduce((n, r) => n + r.gzip, 0) };
}

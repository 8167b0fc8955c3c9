// The service worker (issue 13). scripts/postbuild.mjs writes it to the build
// with three constants in front of this text (a release build only):
//   VERSION  — a digest of every file of the build, so any change is a new worker;
//   SHELL    — the files cached on install (the app shell, the Markdown module,
//              the demos), relative to the worker's scope;
//   LAZY     — files cached on first use (the tokenizer worker: ~2.5 MB), with the
//              SHA-256 each must have, so that a file of another version is never
//              mixed into this one.
//
// Strategy: everything of this version is served from this version's cache, so a
// page never mixes two builds. A new deployment installs a new worker that waits;
// the page says "A new version is available — Reload", and only on that click
// (message "skip-waiting") does the new worker take over, after which the page
// reloads. Nothing but same-origin GETs under the scope is ever touched.
/* global VERSION, SHELL, LAZY */
'use strict';

const SCOPE = new URL(self.registration.scope);
const SHELL_CACHE = `pep-shell-${VERSION}`;
const LAZY_CACHE = `pep-lazy-${VERSION}`;
const INDEX = new URL('index.html', SCOPE).href;
const shellUrls = SHELL.map((p) => new URL(p, SCOPE).href);
const lazyDigests = new Map(Object.entries(LAZY).map(([p, d]) => [new URL(p, SCOPE).href, d]));

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches.open(SHELL_CACHE).then((cache) =>
      // `cache: 'reload'` skips the HTTP cache: the files of this version, not stale ones.
      cache.addAll(shellUrls.map((u) => new Request(u, { cache: 'reload' }))),
    ),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith('pep-') && k !== SHELL_CACHE && k !== LAZY_CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('message', (event) => {
  if (event.data === 'skip-waiting') self.skipWaiting();
});

const hex = (buf) => [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, '0')).join('');

/** A lazily loaded file: from this version's cache, else the network — kept only if its digest is this version's. */
async function lazy(request, url) {
  const cache = await caches.open(LAZY_CACHE);
  const hit = await cache.match(url);
  if (hit) return hit;
  const response = await fetch(new Request(url, { cache: 'reload' }));
  if (!response.ok) return response;
  const body = await response.clone().arrayBuffer();
  const digest = hex(await crypto.subtle.digest('SHA-256', body));
  if (digest !== lazyDigests.get(url)) {
    // Another deployment's file: refusing it is better than running it with this version's app.
    const clients = await self.clients.matchAll();
    clients.forEach((c) => c.postMessage('version-mismatch'));
    return new Response(`${url} belongs to another version of the app; reload to update.`, { status: 409, statusText: 'Version mismatch' });
  }
  await cache.put(url, response.clone());
  return response;
}

self.addEventListener('fetch', (event) => {
  const { request } = event;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== SCOPE.origin || !url.pathname.startsWith(SCOPE.pathname)) return;
  const key = url.origin + url.pathname;
  if (request.mode === 'navigate') {
    // Any address under the scope is the app (its router reads the path): the shell of this version.
    event.respondWith(caches.match(INDEX, { cacheName: SHELL_CACHE }).then((hit) => hit || fetch(request)));
    return;
  }
  if (lazyDigests.has(key)) {
    event.respondWith(lazy(request, key));
    return;
  }
  event.respondWith(caches.match(key, { cacheName: SHELL_CACHE }).then((hit) => hit || fetch(request)));
});

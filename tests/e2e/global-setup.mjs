// Starts the static server (serve.mjs) on 127.0.0.1 for the whole run: the
// build in PEP_E2E_DIST or dist/, on PEP_E2E_PORT or 8790. Its teardown
// closes it.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startServer } from './serve.mjs';
import { BASE, DIST, PORT } from './env.mjs';

export default async function globalSetup() {
  if (!existsSync(join(DIST, 'index.html'))) {
    throw new Error(`${DIST}/index.html: no build there (./scripts/trunk.sh build --release, or PEP_E2E_DIST=DIR)`);
  }
  // (A port in use fails the run with EADDRINUSE: PEP_E2E_PORT picks another.)
  const server = await startServer(DIST, PORT);
  console.log(`serving ${DIST} on ${BASE}/`);
  return () => new Promise((done) => {
    server.closeAllConnections();
    server.close(() => done());
  });
}

// Where the end-to-end tests find things, shared by the Playwright config,
// its global setup and the spec files (through helpers.mjs). No import of
// @playwright/test here: the config reads this module too.
//
//   PEP_E2E_DIST          the build served (default dist/)
//   PEP_E2E_PORT          its port on 127.0.0.1 (default 8790; the shipping tests use +1 and +2)
//   PEP_E2E_SCREENSHOTS   where the tests write their screenshots (default target/screenshots)
//   CHROMIUM              the browser (default /usr/bin/chromium, Debian's)
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const root = resolve(here, '../..');
export const DIST = process.env.PEP_E2E_DIST ? resolve(process.env.PEP_E2E_DIST) : join(root, 'dist');
export const PORT = Number(process.env.PEP_E2E_PORT || 8790);
export const BASE = `http://127.0.0.1:${PORT}`;
export const shotDir = resolve(root, process.env.PEP_E2E_SCREENSHOTS || 'target/screenshots');

/** The system's Chromium, as the old runner's `launch()` started it. */
export const launchOptions = {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
    '--no-first-run', '--disable-sync', '--disable-dev-shm-usage'],
};

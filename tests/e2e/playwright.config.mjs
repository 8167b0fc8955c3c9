// End-to-end tests: the release build (dist/) served on 127.0.0.1, driven in
// Debian's headless Chromium by @playwright/test (pinned in .tools/). Every
// check is something a person would do: open a route, click, copy,
// download, reload.
//
//   node .tools/node_modules/@playwright/test/cli.js test -c tests/e2e/playwright.config.mjs [-g NAME] [FILE...]
//
// (`-g` picks tests by name, as the old runner's `--only`; the environment
// variables are listed in env.mjs: PEP_E2E_DIST, PEP_E2E_PORT,
// PEP_E2E_SCREENSHOTS, CHROMIUM. Some tests run `pep` through `cargo run`.)
//
// Written under target/: e2e-results/ (a trace of each failed test, open it
// with `node .tools/node_modules/@playwright/test/cli.js show-trace FILE`,
// and junit.xml), e2e-report/ (the HTML report), screenshots/.
import { join } from 'node:path';
import { launchOptions, root } from './env.mjs';

const CI = Boolean(process.env.CI);

export default {
  testDir: '.',
  testMatch: '*.spec.mjs',
  globalSetup: './global-setup.mjs',
  // One worker, the tests in file order: they share one static server (and
  // the shipping tests two more ports) and the inputs they generate under
  // target/e2e/; several measure time (main-thread holds, longest tasks,
  // time to the first segment, each with a loose limit); and on the 2-core
  // machine Chromium's renderer, the page's workers and `cargo run -p pep`
  // already use both cores, so a second worker would mostly make those
  // timings depend on what the other test does.
  workers: 1,
  fullyParallel: false,
  // Per test (the old runner had no limit): most tests take 2-30 s, the
  // longest (axe on every demo) 2-3 minutes. 5 minutes each; those with 20 MB
  // or 100,000-segment documents, or many documents in a loop, call
  // test.slow() (three times that). The waits inside the tests keep their
  // own timeouts.
  timeout: 5 * 60_000,
  // A failed test runs once more in CI (reported as flaky when it then
  // passes). Every attempt is traced and the trace kept when it fails: the
  // actions, the DOM before and after each, console, network and the error.
  // Without the screencast (screenshots: false): with it the run took 1.35×
  // as long as untraced and one page.screenshot() timed out; the DOM
  // snapshots show the page at each step. (The tracer still adds a few tens
  // of ms to each action.)
  retries: CI ? 1 : 0,
  forbidOnly: CI,
  outputDir: join(root, 'target/e2e-results'),
  reporter: [
    ['list'],
    ['html', { outputFolder: join(root, 'target/e2e-report'), open: 'never' }],
    ['junit', { outputFile: join(root, 'target/e2e-results/junit.xml') }],
  ],
  use: {
    browserName: 'chromium',
    headless: true,
    launchOptions,
    trace: { mode: 'retain-on-failure', screenshots: false },
    // playwright-core's own defaults (what the old runner had): a wait or
    // an action without a timeout of its own gives up after 30 s.
    actionTimeout: 30_000,
    navigationTimeout: 30_000,
  },
};

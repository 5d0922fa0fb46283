// End-to-end tests of the page in Debian's Chromium (no browser download).
//   make build && npx playwright test
// The server is scripts/serve.py (same CSP as production) on port 8123, started here.
// ATTNSCOPE_MODEL=/path/model.safetensors serves that file as models/en-ko.safetensors
// (for development before the demo model exists); by default the real file is used.
import { defineConfig } from "@playwright/test";

const PORT = Number(process.env.E2E_PORT || 8123);
// E2E_CPU_THROTTLE=N slows every page's CPU N times (tests/e2e/fixtures.js): time limits grow with it
const SLOW = Math.max(1, Number(process.env.E2E_CPU_THROTTLE || 1));

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export default defineConfig({
  testDir: "tests/e2e",
  testMatch: /.*\.spec\.js$/,
  outputDir: "test-results",
  // two pages at a time (E2E_WORKERS=1 for one): each spec file runs in one worker, in order
  workers: Math.max(1, Number(process.env.E2E_WORKERS || 2)),
  retries: 0,
  fullyParallel: false,
  timeout: 60_000 * SLOW,
  expect: { timeout: 10_000 * SLOW },
  reporter: [["list"]],
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    browserName: "chromium",
    viewport: { width: 1280, height: 900 },
    screenshot: "on",
    trace: "off",
    launchOptions: { executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS },
  },
  webServer: {
    // E2E_ROOT=dist tests the built site (make test does); the default is www/ for development.
    command: `python3 scripts/serve.py ${process.env.E2E_ROOT || "www"}`,
    env: { PORT: String(PORT), QUIET: "1" },
    url: `http://127.0.0.1:${PORT}/`,
    reuseExistingServer: false,
    timeout: 30_000,
  },
});

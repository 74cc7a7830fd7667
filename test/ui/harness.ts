/**
 * The web UI as a person uses it: `dotplan serve`'s server (`listen` on a free port, the built UI in
 * dist/ui) over a Dotplan on a database of its own, and Debian's Chromium driven by playwright-core
 * (as test/render/svg-browser.test.ts launches it). Every page opened through {@link UiUnderTest.page}
 * has its console errors and uncaught exceptions collected in `problems`, which a suite's last test
 * expects empty. Where Chromium is missing the suites skip, except when DOTPLAN_REQUIRE_BROWSER is set
 * (CI): then they fail.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type ConsoleMessage, type Page } from 'playwright-core';
import { listen, type RunningServer } from '../../src/http/server.js';
import { packageUiDir } from '../../src/http/ui.js';
import { openTestDotplan, type TestDotplan } from '../api/open.js';

export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);
if (!hasChromium && process.env.DOTPLAN_REQUIRE_BROWSER) throw new Error(`ui: ${CHROMIUM} is missing (apt-get install -y chromium)`);
if (!hasChromium) console.warn(`ui: skipped: ${CHROMIUM} is not installed (apt-get install -y chromium)`);

/** Where the suites save screenshots (git-ignored). */
export const SCREENSHOTS = join(import.meta.dirname, '..', '..', 'test-output', 'ui');

/** A laptop's screen. */
const VIEWPORT = { width: 1366, height: 768 };

/**
 * Answers the UI meets on purpose — an edit that does not validate (422) or clashes (409), the
 * session asked for before a login (401) — which Chromium reports on the console as a resource that
 * failed to load. Nothing else is forgiven.
 */
const EXPECTED_FAILURES: ReadonlyArray<{ url: RegExp; status: RegExp }> = [
  { url: /\/v1\/plans\/[^/]+\/revisions$/, status: /status of (409|422)\b/ },
  { url: /\/v1\/session$/, status: /status of 401\b/ },
];

export interface UiUnderTest {
  t: TestDotplan;
  server: RunningServer;
  /** `http://127.0.0.1:<port>` */
  base: string;
  browser: Browser;
  /** Console errors and page errors of every page opened, as `<url>: <text>`. */
  problems: string[];
  /** A new page (a tab) at `hash` (`#/plans/p_1`), watched for errors. */
  page(hash?: string): Promise<Page>;
  /** A request as a program makes it, with a JSON body; the JSON answer (throws on an error status). */
  call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T>;
  close(): Promise<void>;
}

export async function openUi(): Promise<UiUnderTest> {
  if (!existsSync(join(packageUiDir(), 'index.html'))) throw new Error(`ui: ${packageUiDir()} is not built: run \`npm run build\` (npm test does it first)`);
  mkdirSync(SCREENSHOTS, { recursive: true });
  const t = await openTestDotplan();
  const server = await listen(t.dotplan, { host: '127.0.0.1', port: 0 });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
  const context = await browser.newContext({ viewport: VIEWPORT });
  const problems: string[] = [];
  const watch = (page: Page) => {
    page.on('console', (message: ConsoleMessage) => {
      if (message.type() !== 'error') return;
      const url = message.location().url;
      if (EXPECTED_FAILURES.some((f) => f.url.test(url) && f.status.test(message.text()))) return;
      problems.push(`${url}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`${page.url()}: uncaught ${error.name}: ${error.message}`));
  };
  return {
    t,
    server,
    base: server.url,
    browser,
    problems,
    async page(hash = '') {
      const page = await context.newPage();
      watch(page);
      await page.goto(`${server.url}/${hash}`);
      return page;
    },
    async call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
      const response = await fetch(`${server.url}${path}`, {
        method,
        ...(body !== undefined ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
      return (response.headers.get('content-type') ?? '').includes('json') ? (JSON.parse(text) as T) : (text as T);
    },
    async close() {
      // The browser first: its event streams would otherwise reconnect to a server that is gone.
      await browser.close();
      await server.stop();
      await t.cleanup();
    },
  };
}

/** The drawn node `id` on a plan page (its `g.node`, whose `<title>` is the id). */
export function drawnNode(page: Page, id: string, status?: string) {
  return page.locator(`.drawing g.node${status ? `.status-${status}` : ''}`, { has: page.locator('title', { hasText: new RegExp(`^${id}$`) }) });
}

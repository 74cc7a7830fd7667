/**
 * The HTML report of a real run: as text (always), and opened in headless Chromium through
 * `playwright-core` with Debian's `chromium` (see ../shared/NOTES.md: Playwright cannot download its own
 * browser here). Without /usr/bin/chromium the browser part skips with a warning, except in CI.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectReport } from '../../src/report/collect.js';
import { reportHtml } from '../../src/report/html.js';
import { openHarness, type Harness } from '../store/harness.js';
import { testBackend } from '../support/db.js';
import { PUBLISH_LABEL, SCRIPT_OUTPUT, runReleasePlan } from './run-plan.js';

const CHROMIUM = '/usr/bin/chromium';
/** The page's window, as far as this suite uses it (the project's TypeScript has no DOM library). */
type BrowserWindow = { getComputedStyle(element: unknown): { fill: string } };
const hasChromium = existsSync(CHROMIUM);
// CI installs Debian's chromium (.ci/run) and sets DOTPLAN_REQUIRE_BROWSER: there a missing browser fails the suite.
if (!hasChromium && process.env.DOTPLAN_REQUIRE_BROWSER) throw new Error(`report-html: ${CHROMIUM} is missing (apt-get install -y chromium)`);
if (!hasChromium) console.warn(`report-html: the browser checks are skipped: ${CHROMIUM} is not installed (apt-get install -y chromium)`);

describe(`plan report: HTML (${testBackend()})`, () => {
  let h: Harness;
  let id: string;
  let html: string;
  beforeAll(async () => {
    h = await openHarness(testBackend());
    id = await runReleasePlan(h);
    html = await reportHtml(await collectReport(h.ops, id), await h.ops.liveGraph(id));
  });
  afterAll(async () => {
    await h.close();
  });

  it('is one self-contained page: inline CSS and SVG, no script, nothing loaded from elsewhere', () => {
    expect(html).toMatch(/^<!DOCTYPE html>\n<html lang="en">/);
    expect(html).toContain('<style>');
    expect(html).toMatch(/<section id="graph"><h2>Plan<\/h2><div class="graph"><svg /);
    expect(html).not.toMatch(/<\?xml|<!DOCTYPE svg|<script|<link|<img|<iframe|@import|url\(|\ssrc=/i);
    // One drawn node per plan node (no legend node in the drawing), each coloured by its live status.
    expect(html.match(/<g id="node\d+" class="node status&#45;done type&#45;\w+"/g)).toHaveLength(4);
  });

  it('escapes every string that comes from the plan', () => {
    expect(html).toContain('&lt;script&gt;document.title = &quot;pwned&quot;&lt;/script&gt;');
    expect(html).toContain('Publish &lt;script&gt;document.title = &quot;label&quot;&lt;/script&gt;');
    expect(html).toContain('<dd>Ship release 1.2 | to staging</dd>');
    expect(html).toContain(`… (113 more characters; see <code>dotplan plan show ${id} --format json</code>)`);
  });

  describe.skipIf(!hasChromium)('in headless Chromium', () => {
    let browser: Browser;
    let page: Page;
    const requests: string[] = [];
    beforeAll(async () => {
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
      });
      page = await browser.newPage();
      page.on('request', (r) => requests.push(r.url()));
      await page.setContent(html);
    });
    afterAll(async () => {
      await browser?.close();
    });

    it('shows the plan as a graph with one node per plan node', async () => {
      expect(await page.locator('svg g.node').count()).toBe(4);
      expect(await page.locator('svg g.node.status-done').count()).toBe(4);
      expect(await page.locator('svg').first().textContent()).toContain(PUBLISH_LABEL);
      // Laid out and painted: the drawing has a size on the page, and a done node is filled green.
      const box = await page.locator('#graph svg').first().boundingBox();
      expect(box?.width).toBeGreaterThan(100);
      expect(box?.height).toBeGreaterThan(100);
      const fill = await page
        .locator('svg g.node.status-done')
        .first()
        .locator('path, polygon, ellipse')
        .first()
        .evaluate((shape) => (globalThis as unknown as BrowserWindow).getComputedStyle(shape).fill);
      expect(fill).toBe('rgb(220, 252, 231)'); // #dcfce7, the colour of done
    });

    it('shows the node table and the answers with who gave them', async () => {
      const nodes = await page.locator('#nodes table').innerText();
      for (const node of ['fetch', 'approve', 'build', 'publish']) expect(nodes).toContain(node);
      expect(nodes).toContain('1 (2 runs in all)');
      const questions = await page.locator('#questions table').innerText();
      expect(questions).toContain('Ship release 1.2?');
      expect(questions).toContain('yes, ship it');
      expect(questions).toContain('person:alice');
    });

    it('shows a <script> from the plan as text and does not run it', async () => {
      expect(await page.locator('#nodes').innerText()).toContain(SCRIPT_OUTPUT);
      expect(await page.locator('#nodes').innerText()).toContain(PUBLISH_LABEL);
      expect(await page.locator('script').count()).toBe(0);
      expect(await page.title()).toBe('Run report: Release 1.2');
      expect(requests.filter((url) => !url.startsWith('about:') && !url.startsWith('data:'))).toEqual([]);
    });
  });
});

/**
 * The run report of the README's demos, as a user makes it: `dotplan demo` and `dotplan demo
 * --reflection` run to their end, then `dotplan plan report` writes Markdown and HTML. Every node,
 * every answer and every revision is in both, and the HTML opens in headless Chromium (Debian's
 * `chromium` through `playwright-core`) with the plan drawn.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliDatabase, testBackend } from '../support/db.js';
import { runCli } from '../cli/run-cli.js';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium && process.env.DOTPLAN_REQUIRE_BROWSER) throw new Error(`demo-report: ${CHROMIUM} is missing (apt-get install -y chromium)`);

interface ReportJson {
  nodes: Array<{ id: string; status: string }>;
  questions: Array<{ node: string; answer?: string; by?: string }>;
  revisions: Array<{ number: number; author: string }>;
}

describe(`the demos' run reports (${testBackend()})`, () => {
  let cwd: string;
  let db: string[] = [];
  let drop: (() => Promise<void>) | undefined;
  let browser: Browser | undefined;
  /** The reflection demo keeps its plan in a database of its own. */
  const REFLECTION_DB = ['--db', 'file:.dotplan/demo-reflection.db'];
  const cli = async (args: string[], where = db) => {
    const result = await runCli([...args, ...where], { cwd });
    expect(result.code, `dotplan ${args.join(' ')}: ${result.stderr}`).toBe(0);
    return result.stdout;
  };

  beforeAll(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'dotplan-demo-report-'));
    ({ args: db, drop } = await cliDatabase());
    await cli(['demo']);
    await cli(['demo', '--reflection']);
    if (hasChromium) {
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
      });
    }
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await drop?.();
    rmSync(cwd, { recursive: true, force: true });
  });

  /** Each demo's plan, with the database it is in. */
  async function demoPlans(): Promise<Array<{ id: string; where: string[] }>> {
    const out: Array<{ id: string; where: string[] }> = [];
    for (const where of [db, REFLECTION_DB]) {
      const plans = JSON.parse(await cli(['plan', 'list', '--json'], where)) as Array<{ id: string; status: string }>;
      expect(plans.map((p) => p.status)).toEqual(['completed']);
      out.push({ id: plans[0]!.id, where });
    }
    return out;
  }

  it('Markdown and HTML show every node, every answer and every revision of both demos', async () => {
    for (const { id, where } of await demoPlans()) {
      const data = JSON.parse(await cli(['plan', 'report', id, '--format', 'json'], where)) as ReportJson;
      const md = await cli(['plan', 'report', id], where);
      await cli(['plan', 'report', id, '--format', 'html', '-o', join(cwd, `${id}.html`)], where);
      const html = readFileSync(join(cwd, `${id}.html`), 'utf8');
      const shown = await fetchPageText(html);
      expect(data.nodes.length).toBeGreaterThan(1);
      for (const node of data.nodes) {
        expect(md).toContain(`| \`${node.id}\` |`);
        expect(shown.nodes).toContain(node.id);
      }
      for (const q of data.questions) {
        expect(q.answer, `node ${q.node} was answered`).toBeDefined();
        expect(md).toContain(q.answer!);
        expect(shown.questions).toContain(q.answer!);
      }
      expect(data.revisions.length).toBeGreaterThan(0);
      for (const r of data.revisions) {
        expect(md).toMatch(new RegExp(`\\| ${r.number} \\|[^\\n]*${r.author}`));
        expect(shown.revisions).toContain(r.author);
      }
      if (browser) expect(shown.drawnNodes).toBe(data.nodes.length);
    }
  }, 60_000);

  it("the workflow demo has its answered question, the reflection demo the LLM's revisions", async () => {
    const plans = await demoPlans();
    const reports = await Promise.all(
      plans.map(async ({ id, where }) => JSON.parse(await cli(['plan', 'report', id, '--format', 'json'], where)) as ReportJson),
    );
    expect(reports.some((r) => r.revisions.filter((rev) => rev.author.startsWith('llm')).length >= 2)).toBe(true);
    expect(reports.some((r) => r.questions.length > 0)).toBe(true);
  }, 30_000);

  /** The page's text per section, as the browser lays it out (the source text when no browser is installed). */
  async function fetchPageText(html: string): Promise<{ nodes: string; questions: string; revisions: string; drawnNodes: number }> {
    if (!browser) return { nodes: html, questions: html, revisions: html, drawnNodes: -1 };
    const page = await browser.newPage();
    try {
      await page.setContent(html);
      const text = async (selector: string) => ((await page.locator(selector).count()) > 0 ? page.locator(selector).innerText() : '');
      const box = await page.locator('#graph svg').boundingBox();
      expect(box?.width).toBeGreaterThan(50);
      return {
        nodes: await text('#nodes'),
        questions: await text('#questions'),
        revisions: await text('#revisions'),
        drawnNodes: await page.locator('#graph svg g.node').count(),
      };
    } finally {
      await page.close();
    }
  }
});

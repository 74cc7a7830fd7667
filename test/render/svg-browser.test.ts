/**
 * The drawn plan as a browser shows it: every label inside its node's box, every legend entry
 * inside its cell, nothing outside the drawing — measured in headless Chromium (Debian's, through
 * playwright-core; see test/report/report-html.test.ts) with the fonts a viewer may have: the one
 * the SVG asks for first, and the narrower Arial-metric Liberation Sans.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE_STATUSES, type GraphEdge, type PlanGraph } from '../../src/model/types.js';
import { renderSvg } from '../../src/render/index.js';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium && process.env.DOTPLAN_REQUIRE_BROWSER) throw new Error(`svg-browser: ${CHROMIUM} is missing (apt-get install -y chromium)`);
if (!hasChromium) console.warn(`svg-browser: skipped: ${CHROMIUM} is not installed (apt-get install -y chromium)`);

const LONG = 'Collect every quarterly report from the regional offices and merge them into one workbook';

/** A node of every status (so the legend has every entry), long labels in several shapes, a CJK label, a long edge label. */
function wideLabels(): PlanGraph {
  return {
    name: 'G',
    strict: false,
    attributes: { label: 'A plan whose title is longer than any of its nodes, to see that it stays inside the drawing' },
    clusters: [{ id: 'cluster_a', attributes: { label: 'Gather everything there is to gather, however long that takes' } }],
    nodes: NODE_STATUSES.map((status, i) => ({
      id: `n${i}`,
      attributes: {
        label: [LONG, `Step ${status}`, '汇总各地区季度报告并合并为一个工作簿', 'WWWWWWWWWWWWWWWWWWWW MMMMMMMMMMMMMMMMMMMM'][i % 4]!,
        type: i === 3 ? 'confirm' : 'function',
        status,
        ...(i % 3 === 0 ? { shape: 'record' } : {}),
      },
      ...(i < 2 ? { cluster: 'cluster_a' } : {}),
    })),
    edges: NODE_STATUSES.slice(1).map((_, i): GraphEdge => ({
      from: `n${i}`,
      to: `n${i + 1}`,
      attributes: i === 2 ? { when: 'yes|y|approve|a rather long condition here' } : {},
    })),
  };
}

/** What sticks out, measured in the page: text past its node's shape or legend cell, or past the drawing. */
type Box = { left: number; right: number; top: number; bottom: number };
type Page$ = { querySelectorAll(s: string): ArrayLike<Element$>; querySelector(s: string): Element$ | null };
type Element$ = {
  getBoundingClientRect(): Box;
  querySelectorAll(s: string): ArrayLike<Element$>;
  querySelector(s: string): Element$ | null;
  textContent: string | null;
};

async function overflows(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const doc = (globalThis as unknown as { document: Page$ }).document;
    const inside = (a: Box, b: Box) => a.left >= b.left - 0.5 && a.right <= b.right + 0.5 && a.top >= b.top - 0.5 && a.bottom <= b.bottom + 0.5;
    const found: string[] = [];
    const drawing = doc.querySelector('svg')!.getBoundingClientRect();
    for (const text of Array.from(doc.querySelectorAll('svg text'))) {
      if (!inside(text.getBoundingClientRect(), drawing)) found.push(`outside the drawing: "${text.textContent}"`);
    }
    for (const node of Array.from(doc.querySelectorAll('svg g.node'))) {
      const cells = Array.from(node.querySelectorAll('polygon, path, ellipse')).map((s) => s.getBoundingClientRect());
      for (const text of Array.from(node.querySelectorAll('text'))) {
        const box = text.getBoundingClientRect();
        const middle = (box.left + box.right) / 2;
        // The smallest shape around the text's middle: the node's outline, or its legend cell.
        const around = cells.filter((c) => c.left <= middle && middle <= c.right && c.top <= box.bottom && box.top <= c.bottom);
        const cell = around.sort((a, b) => a.right - a.left - (b.right - b.left))[0];
        if (!cell || !inside(box, cell)) found.push(`outside its box: "${text.textContent}"`);
      }
    }
    return found;
  });
}

describe.skipIf(!hasChromium)('the drawn plan in headless Chromium', () => {
  let browser: Browser;
  let page: Page;
  let svg: string;
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    });
    page = await browser.newPage();
    svg = await renderSvg(wideLabels());
  });
  afterAll(async () => {
    await browser?.close();
  });

  it.each([
    ['the fonts the drawing asks for', ''],
    ['Liberation Sans (Arial metrics)', 'svg text { font-family: "Liberation Sans" !important }'],
    ['DejaVu Sans', 'svg text { font-family: "DejaVu Sans" !important }'],
  ])('keeps every label and legend entry inside its box and the drawing, in %s', async (_fonts, css) => {
    await page.setContent(`<!DOCTYPE html><html><head><style>body{margin:0} ${css}</style></head><body>${svg.slice(svg.indexOf('<svg'))}</body></html>`);
    expect(await page.locator('svg g.node').count()).toBe(NODE_STATUSES.length + 1); // the nodes and the legend
    expect(await page.locator('svg g.node text', { hasText: LONG }).count()).toBeGreaterThan(0);
    expect(await overflows(page)).toEqual([]);
  });
});

/**
 * The status colours of badges and lists, made from the renderer's palette (src/render/colours.ts)
 * so the page, the drawing and the report agree. A constructed stylesheet: no inline style, which the
 * server's Content-Security-Policy would refuse.
 */
import { NODE_STATUSES } from '../../src/model/types.js';
import { STATUS_COLOURS } from '../../src/render/colours.js';

/** Plan statuses drawn like the node status they resemble. */
const PLAN_LIKE: Record<string, keyof typeof STATUS_COLOURS> = {
  draft: 'pending',
  awaiting_review: 'awaiting_input',
  paused: 'skipped',
  completed: 'done',
  rejected: 'failed',
};

export function installStatusStyles(): void {
  const rule = (name: string, c: { fill: string; border: string; font: string }) =>
    `.badge.status-${name}{background:${c.fill};border-color:${c.border};color:${c.font}}`;
  const rules = [...NODE_STATUSES.map((s) => rule(s, STATUS_COLOURS[s])), ...Object.entries(PLAN_LIKE).map(([plan, node]) => rule(plan, STATUS_COLOURS[node]))];
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(rules.join('\n'));
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
}

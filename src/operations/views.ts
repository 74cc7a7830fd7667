import type { TreeEntry, TreeView } from './tree-views.js';
import type { Config } from '../config/defaults.js';
import { dotLimits } from '../config/dot-limits.js';
import { readDot, writeDot } from '../dot/index.js';
import type { PlanGraph } from '../model/types.js';
import { renderSvg, type ChildMark, type RenderOptions } from '../render/index.js';
import { collectReport, type ReportSource } from '../report/collect.js';
import { reportHtml, type ChildSection } from '../report/html.js';
import { reportMarkdown } from '../report/markdown.js';
import type { ToolCatalogue } from '../tools/types.js';
import { validateDot, validateGraph, type ValidationResult } from '../validate/index.js';

/**
 * What a plan looks like to a person — the validator's verdict on a DOT text, the plan drawn, the run
 * report — as `Dotplan`'s `validate`, `render` and `report` give them and the CLI's `validate`,
 * `render` and `plan report` print them. Checking and drawing a text need no database: the CLI calls
 * these functions for a file without opening one.
 */

/** What reading a DOT text needs: the tools a plan may call, the DOT size limits. */
export interface TextDeps {
  tools: ToolCatalogue;
  config: Pick<Config, 'limits'>;
}

/** `render`'s formats: SVG with the nodes coloured by status, or the normalised DOT text. */
export type RenderFormat = 'svg' | 'dot';
/** `report`'s formats: GitHub-flavoured Markdown, one self-contained HTML page, or JSON. */
export type ReportFormat = 'md' | 'html' | 'json';

/** Reads and validates a DOT text as every entry point does; `source` names it in the diagnostics. */
export function validatePlan(deps: TextDeps, dot: string, source = '<dot>'): ValidationResult {
  return validateDot(dot, { tools: deps.tools, source, ...dotLimits(deps.config) });
}

/** A DOT text drawn (or printed normalised), statuses by their canonical names; a text that does not read throws its `ValidationError`. */
export async function renderText(deps: TextDeps, dot: string, source = '<dot>', format: RenderFormat = 'svg'): Promise<string> {
  const read = readDot(dot, { source, ...dotLimits(deps.config) });
  // Statuses are shown by their canonical names (the seed's Chinese aliases are accepted on input).
  return renderGraph(validateGraph(read, { tools: deps.tools }).graph ?? read, format);
}

export function renderGraph(graph: PlanGraph, format: RenderFormat = 'svg', options: RenderOptions = {}): Promise<string> {
  return format === 'dot' ? Promise.resolve(writeDot(graph)) : renderSvg(graph, options);
}

/** The run report of a plan, for a person who was not there. */
export async function reportPlan(
  source: ReportSource & { liveGraph(planId: string): Promise<PlanGraph>; tree?(planId: string): Promise<TreeView> },
  planId: string,
  format: ReportFormat = 'md',
  /** A plan's agent nodes' children, drawn under those nodes (HTML). */
  childMarks?: (planId: string) => Promise<ReadonlyMap<string, ChildMark>>,
): Promise<string> {
  const report = await collectReport(source, planId);
  // The plans below it (agent nodes' children, root → leaf): a section each.
  const view = source.tree ? await source.tree(planId) : undefined;
  const below = view ? view.plans.filter((p) => isBelow(p, planId, view)) : [];
  if (format === 'json') {
    const children = await Promise.all(below.map(async (p) => ({ instance: p.instance, parent: p.parent, report: await collectReport(source, p.id) })));
    return `${JSON.stringify(children.length > 0 ? { ...report, children } : report, null, 2)}\n`;
  }
  const heading = (child: TreeEntry) =>
    `Child plan ${child.instance ?? child.id} (${child.id}), for node ${child.parent?.nodeId ?? '?'} of ${child.parent?.planId ?? '?'}`;
  if (format === 'html') {
    const children: ChildSection[] = [];
    for (const child of below) {
      const [childReport, graph, marks] = await Promise.all([collectReport(source, child.id), source.liveGraph(child.id), childMarks?.(child.id)]);
      children.push({ heading: heading(child), report: childReport, graph, ...(marks ? { marks } : {}) });
    }
    return reportHtml(report, await source.liveGraph(planId), await childMarks?.(planId), children);
  }
  const sections = [reportMarkdown(report)];
  for (const child of below) sections.push(`\n---\n\n# ${heading(child)}\n\n${reportMarkdown(await collectReport(source, child.id))}`);
  return sections.join('');
}

/** Whether the plan is below `ancestor` in the tree. */
function isBelow(plan: TreeEntry, ancestor: string, view: TreeView): boolean {
  const byId = new Map(view.plans.map((p) => [p.id, p]));
  for (let p = plan.parent ? byId.get(plan.parent.planId) : undefined; p; p = p.parent ? byId.get(p.parent.planId) : undefined)
    if (p.id === ancestor) return true;
  return false;
}

import { DotplanError } from '../errors/errors.js';
import { readDot } from '../dot/index.js';
import { assertValidGraph } from '../validate/index.js';
import { parseParamDeclarations } from '../model/params.js';
import type { PlanGraph } from '../model/types.js';
import type { PlanRecord, Store } from '../store/index.js';
import type { ToolCatalogue } from '../tools/types.js';
import { instantiateTemplate, loadTemplate } from '../templates/index.js';

export interface CreateFromTemplate {
  template: string;
  values: Record<string, string>;
  title?: string;
}

export interface CreateFromDot {
  dot: string;
  source: string;
  title?: string;
}

/**
 * Creates a plan from a template (name or path) or a DOT text: validates it with the same validator
 * every entry point uses, stores it as revision 1 and starts it (a plan with review="required" waits
 * for a reviewer instead).
 */
export async function createPlan(store: Store, tools: ToolCatalogue, input: CreateFromTemplate | CreateFromDot): Promise<PlanRecord> {
  if ('template' in input) {
    const template = await loadTemplate(input.template);
    const instance = instantiateTemplate(template, input.values);
    const graph = assertValidGraph(instance.graph, { tools, source: template.path, allowAgent: false });
    return store.startPlan(
      (
        await store.createPlan({
          title: input.title ?? instance.title,
          graph,
          dot: instance.dot,
          author: 'template',
          template: template.name,
          params: instance.params,
          updateLog: `Created from template ${template.name}`,
        })
      ).id,
    );
  }
  const graph = assertValidGraph(readDot(input.dot, { source: input.source }), { tools, source: input.source, allowAgent: false });
  refuseUnfilledParams(graph, input.source);
  const plan = await store.createPlan({
    title: input.title ?? graph.attributes.label ?? graph.name ?? input.source,
    graph,
    dot: input.dot,
    author: 'person',
    params: defaultParams(graph),
    updateLog: `Created from ${input.source}`,
  });
  return store.startPlan(plan.id);
}

/** A plain DOT file with declared parameters must give every required one a default. */
function refuseUnfilledParams(graph: PlanGraph, source: string): void {
  const missing = declared(graph).filter((p) => p.default === undefined).map((p) => p.name);
  if (missing.length > 0) {
    throw new DotplanError(
      'INVALID_INPUT',
      `${source} declares parameters without defaults (${missing.join(', ')}); create it as a template instead: dotplan plan create --template ${source} --set ${missing[0]}=...`,
    );
  }
}

function defaultParams(graph: PlanGraph): Record<string, string> {
  return Object.fromEntries(declared(graph).map((p) => [p.name, p.default ?? '']));
}

function declared(graph: PlanGraph) {
  const parsed = parseParamDeclarations(graph.attributes.params);
  return parsed.ok ? parsed.params : [];
}

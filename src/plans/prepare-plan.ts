import { commandLine } from '../model/command-line.js';
import { DotplanError, InvalidInputError } from '../errors/errors.js';
import { readDot, writeDot, type ReadDotOptions } from '../dot/index.js';
import { authoredComments, EDIT_BASE_ATTRIBUTES, withComments, withoutBase } from '../revisions/edit-file.js';
import { assertValidGraph } from '../validate/index.js';
import { parseParamDeclarations } from '../model/params.js';
import type { PlanGraph } from '../model/types.js';
import type { CreatePlanInput } from '../store/index.js';
import type { ToolCatalogue } from '../tools/types.js';
import { instantiateTemplate, loadTemplate } from '../templates/index.js';

export interface FromTemplate {
  template: string;
  values?: Record<string, string>;
  title?: string;
}

export interface FromDot {
  dot: string;
  /** A name for the text in messages (a file path, `<stdin>`). */
  source?: string;
  title?: string;
}

/** A reflection plan for a goal: the LLM writes its first plan (SPEC §6). */
export interface FromGoal {
  goal: string;
  title?: string;
}

/**
 * A new plan from a template (name or path), a DOT text or a goal, validated with the same validator every
 * entry point uses: what `PlanStore.create` stores as revision 1.
 */
export async function preparePlan(
  tools: ToolCatalogue,
  input: FromTemplate | FromDot | FromGoal,
  actor?: string,
  limits: Pick<ReadDotOptions, 'maxBytes' | 'maxASTNodes'> = {},
): Promise<CreatePlanInput> {
  const by = actor !== undefined ? { actor } : {};
  if ('goal' in input) {
    if (!input.goal.trim()) throw new InvalidInputError('--goal is empty: say what the plan should achieve, e.g. --goal "Summarise the open issues"');
    const title = input.title ?? (input.goal.length > 60 ? `${input.goal.slice(0, 57)}...` : input.goal);
    const graph: PlanGraph = {
      name: 'plan',
      strict: false,
      attributes: { mode: 'reflection', goal: input.goal, label: title },
      nodes: [],
      edges: [],
      clusters: [],
    };
    return { title, graph, dot: writeDot(graph), author: 'person', params: {}, updateLog: 'Created for a goal; the LLM writes the plan', ...by };
  }
  if ('template' in input) {
    const template = loadTemplate(input.template);
    const instance = instantiateTemplate(template, input.values ?? {});
    const graph = assertValidGraph(instance.graph, { tools, source: template.path, allowAgent: false });
    return {
      title: input.title ?? instance.title,
      graph,
      dot: instance.dot,
      author: 'template',
      template: template.name,
      params: instance.params,
      updateLog: `Created from template ${template.name}`,
      ...by,
    };
  }
  const source = input.source ?? '<dot>';
  const read = readDot(input.dot, { source, ...limits });
  // A file written by `plan show` says what revision of another plan it was made from: not part of the new plan.
  const fromShow = EDIT_BASE_ATTRIBUTES.some((key) => read.attributes[key] !== undefined);
  const graph = assertValidGraph(fromShow ? { ...read, attributes: withoutBase(read.attributes) } : read, { tools, source, allowAgent: false });
  refuseUnfilledParams(graph, source);
  return {
    title: input.title ?? graph.attributes.label ?? graph.name ?? source,
    graph,
    dot: fromShow ? withComments(authoredComments(input.dot), graph) : input.dot,
    author: 'person',
    params: defaultParams(graph),
    updateLog: `Created from ${source}`,
    ...by,
  };
}

/**
 * `--review`: the plan as if it said review="required" — in its graph and in revision 1's text, so that
 * `plan show` shows it and later revisions (an edit, the LLM's rewrite) keep it.
 */
export function requireReview(prepared: CreatePlanInput): CreatePlanInput {
  if (prepared.graph.attributes.review === 'required') return prepared;
  const graph: PlanGraph = { ...prepared.graph, attributes: { ...prepared.graph.attributes, review: 'required' } };
  return { ...prepared, graph, dot: withComments(authoredComments(prepared.dot), graph) };
}

/** A plain DOT file with declared parameters must give every required one a default. */
function refuseUnfilledParams(graph: PlanGraph, source: string): void {
  const missing = declared(graph)
    .filter((p) => p.default === undefined)
    .map((p) => p.name);
  if (missing.length > 0) {
    throw new DotplanError(
      'INVALID_INPUT',
      `${source} declares parameters without defaults (${missing.join(', ')}); create it as a template instead: ${commandLine('dotplan', 'plan', 'create', '--template', source, '--set', `${missing[0]}=`)}...`,
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

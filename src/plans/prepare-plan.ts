import { InvalidInputError } from '../errors/errors.js';
import { readDot, writeDot, type ReadDotOptions } from '../dot/index.js';
import { authoredComments, EDIT_BASE_ATTRIBUTES, withComments, withoutBase } from '../revisions/edit-file.js';
import { validateGraph } from '../validate/index.js';
import type { ValidateOptions } from '../validate/types.js';
import { parseParamDeclarations } from '../model/params.js';
import { ValidationError, type Diagnostic } from '../model/diagnostics.js';
import type { PlanGraph } from '../model/types.js';
import type { CreatePlanInput } from '../store/index.js';
import type { ToolCatalogue } from '../tools/types.js';
import { defaultTemplateDirs, instantiateTemplate, loadTemplate, type Template } from '../templates/index.js';
import { resetHistory } from './reset-history.js';

/** A plan from a template: its name (or a path to a `.dot` file) and its parameters' values. */
export interface FromTemplate {
  /** A shipped template's name, one in `./templates`, or a path to a template file. */
  template: string;
  /** A value for each parameter without a default (and any others to set). */
  values?: Record<string, string>;
  /** Default: the template's rendered label. */
  title?: string;
  /** Where to look for a template by name; default: the package's templates, then `./templates` under cwd. */
  dirs?: readonly string[];
}

/** A plan from DOT text (a plan written by hand, or `show` of another plan). */
export interface FromDot {
  /** The `digraph`. */
  dot: string;
  /** A name for the text in messages (a file path, `<stdin>`). */
  source?: string;
  /** Default: the graph's `label`, else its name. */
  title?: string;
}

/** A reflection plan for a goal: the LLM writes its first plan (SPEC §6). */
export interface FromGoal {
  /** What the plan should achieve, in words. */
  goal: string;
  /** Default: the goal, cut at 60 characters. */
  title?: string;
}

/** What `PlanStore.create` stores as revision 1, and the warnings about it (validation, history reset). */
export interface PreparedPlan extends CreatePlanInput {
  warnings: Diagnostic[];
}

/**
 * A new plan from a template (name or path), a DOT text or a goal: without history (a status only
 * running reaches, a recorded value: reset-history.ts), validated with the same validator every
 * entry point uses. Throws a ValidationError naming every problem when it has errors. A template's
 * path and `./templates` are taken from `cwd`.
 */
export async function preparePlan(
  tools: ToolCatalogue,
  input: FromTemplate | FromDot | FromGoal,
  actor?: string,
  limits: Pick<ReadDotOptions, 'maxBytes' | 'maxASTNodes'> = {},
  cwd: string = process.cwd(),
  validation: Partial<ValidateOptions> = {},
): Promise<PreparedPlan> {
  const by = actor !== undefined ? { actor } : {};
  if ('goal' in input) {
    const title = input.title ?? (input.goal.length > 60 ? `${input.goal.slice(0, 57)}...` : input.goal);
    const graph: PlanGraph = {
      name: 'plan',
      strict: false,
      attributes: { mode: 'reflection', goal: input.goal, label: title },
      nodes: [],
      edges: [],
      clusters: [],
    };
    return { title, graph, dot: writeDot(graph), author: 'person', params: {}, updateLog: 'Created for a goal; the LLM writes the plan', warnings: [], ...by };
  }
  if ('template' in input) {
    const template = loadTemplate(input.template, input.dirs ?? defaultTemplateDirs(cwd), cwd);
    const prepared = fromTemplate(tools, template, input.values ?? {}, validation);
    return { ...prepared, ...(input.title !== undefined ? { title: input.title } : {}), ...by };
  }
  const source = input.source ?? '<dot>';
  const read = readDot(input.dot, { source, ...limits });
  // A file written by `plan show` says what revision of another plan it was made from: not part of the new plan.
  const fromShow = EDIT_BASE_ATTRIBUTES.some((key) => read.attributes[key] !== undefined);
  const { graph, warnings, rewritten } = checked(fromShow ? { ...read, attributes: withoutBase(read.attributes) } : read, tools, source, validation);
  refuseUnfilledParams(graph, source);
  return {
    title: input.title ?? graph.attributes.label ?? graph.name ?? source,
    graph,
    dot: fromShow || rewritten ? withComments(authoredComments(input.dot), graph) : input.dot,
    author: 'person',
    params: defaultParams(graph),
    updateLog: `Created from ${source}`,
    warnings,
    ...by,
  };
}

/**
 * A loaded template with its parameters' values as a new plan (titled by the template's label):
 * instantiated, without history and validated. Throws as preparePlan does.
 */
export function fromTemplate(
  tools: ToolCatalogue,
  template: Template,
  values: Record<string, string>,
  validation: Partial<ValidateOptions> = {},
): PreparedPlan {
  const instance = instantiateTemplate(template, values);
  const { graph, warnings, rewritten } = checked(instance.graph, tools, template.path, validation);
  return {
    title: instance.title,
    graph,
    dot: rewritten ? withComments(authoredComments(instance.dot), graph) : instance.dot,
    author: 'template',
    template: template.name,
    params: instance.params,
    updateLog: `Created from template ${template.name}`,
    warnings,
  };
}

/**
 * The graph without history, validated: the normalised graph and every warning (history resets
 * among them, in source order), and whether the text must be written anew (history was reset, so
 * revision 1 does not hold it either). Throws a ValidationError when there are errors.
 */
function checked(
  read: PlanGraph,
  tools: ToolCatalogue,
  source: string,
  validation: Partial<ValidateOptions>,
): { graph: PlanGraph; warnings: Diagnostic[]; rewritten: boolean } {
  const reset = resetHistory(read);
  const result = validateGraph(reset.graph, { allowAgent: false, ...validation, tools, source });
  const errors = result.diagnostics.filter((d) => d.severity === 'error');
  const warnings = [...reset.diagnostics, ...result.diagnostics.filter((d) => d.severity !== 'error')].sort(
    (a, b) => (a.line ?? Infinity) - (b.line ?? Infinity),
  );
  if (errors.length > 0 || !result.graph) throw new ValidationError([...errors, ...warnings], source);
  return { graph: result.graph, warnings, rewritten: reset.diagnostics.length > 0 };
}

/**
 * `--review`: the plan as if it said review="required" — in its graph and in revision 1's text, so that
 * `plan show` shows it and later revisions (an edit, the LLM's rewrite) keep it.
 */
export function requireReview<T extends CreatePlanInput>(prepared: T): T {
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
    throw new InvalidInputError(
      `${source} declares parameters without defaults (${missing.join(', ')}); create the plan from it as a template instead, with a value for each`,
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

import { writeDot } from '../dot/index.js';
import { copyGraph } from '../model/copy-graph.js';
import type { PlanGraph } from '../model/types.js';
import { fromTemplate, type PreparedPlan } from '../plans/prepare-plan.js';
import { loadTemplate, templateKey, type Template } from '../templates/index.js';
import type { ToolCatalogue } from '../tools/types.js';
import type { ChildInput } from '../kinds/agent-child.js';
import type { ValidateOptions } from '../validate/types.js';

/** What making a child plan needs of its agent's definition (src/agents/types.ts). */
export interface ChildAgent {
  code: string;
  kind: string;
  template?: string;
  systemPrompt?: string;
}

export interface ChildPlanContext {
  tools: ToolCatalogue;
  cwd: string;
  /** Where a workflow agent's template is looked up by name (read once by the starter). */
  templateDirs: readonly string[];
  /** Validation of the child's plan (the agents it may use). */
  validation: Partial<ValidateOptions>;
  /** Workflow children made before, for this context's tools and validation (a worker's starter keeps one). */
  prepared?: PreparedTemplates;
}

/**
 * How long a worker uses a template it looked up without looking at its file again: an edited
 * template is made afresh for the children started after that (a look is two stats: 65 µs of a
 * 1.49 ms agent step under the profiler on these machines).
 */
export const TEMPLATE_FRESH_MS = 1_000;

/**
 * Workflow children made of one template with the same values are alike but for their title: each
 * is instantiated and validated once per template read (catalogue.ts keeps a template while its file
 * is unchanged: an edited template is made afresh) and values, then copied. A template is looked up
 * by name at most once per TEMPLATE_FRESH_MS. For one context's tools and validation only; a
 * template's most recent 100 sets of values are kept.
 */
export class PreparedTemplates {
  readonly #made = new WeakMap<Template, Map<string, PreparedPlan>>();
  readonly #looked = new Map<string, { template: Template; at: number }>();

  /** `now`: the clock of the template look-ups (ms). */
  constructor(private readonly now: () => number = () => performance.now()) {}

  /** The template under this key (a name and where it is looked up), as `load` gives it at most TEMPLATE_FRESH_MS ago. */
  template(key: string, load: () => Template): Template {
    const now = this.now();
    const looked = this.#looked.get(key);
    if (looked && now - looked.at < TEMPLATE_FRESH_MS) return looked.template;
    const template = load();
    if (this.#looked.size >= 1000) this.#looked.clear();
    this.#looked.set(key, { template, at: now });
    return template;
  }

  get(template: Template, values: Readonly<Record<string, string>>, ctx: Pick<ChildPlanContext, 'tools' | 'validation'>): PreparedPlan {
    let byValues = this.#made.get(template);
    if (!byValues) this.#made.set(template, (byValues = new Map<string, PreparedPlan>()));
    const key = JSON.stringify(Object.entries(values).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    let prepared = byValues.get(key);
    if (!prepared) {
      prepared = fromTemplate(ctx.tools, template, values, ctx.validation);
      if (byValues.size >= 100) byValues.delete(byValues.keys().next().value!);
      byValues.set(key, prepared);
    }
    // The graph becomes the child's snapshot: each child gets its own.
    return { ...prepared, graph: copyGraph(prepared.graph) };
  }
}

/**
 * The plan each agent kind makes of an agent node's input (the child's revision 1). One entry per
 * kind: a kind added later (an external agent over A2A, say) adds its entry here and its driver, and
 * the engine does not change.
 */
export const CHILD_PLANS: Readonly<Record<string, (agent: ChildAgent, input: ChildInput, ctx: ChildPlanContext) => Promise<PreparedPlan>>> = {
  /** A workflow agent instantiates its template with the node's agentParams (and inherited values). */
  workflow: async (agent, input, ctx) => {
    const load = () => loadTemplate(agent.template ?? '', ctx.templateDirs, ctx.cwd);
    const template = ctx.prepared ? ctx.prepared.template(templateKey(agent.template ?? '', ctx.templateDirs, ctx.cwd), load) : load();
    const values = { ...input.inherited, ...input.agentParams };
    const prepared = ctx.prepared ? ctx.prepared.get(template, values, ctx) : fromTemplate(ctx.tools, template, values, ctx.validation);
    return { ...prepared, title: titleOf(agent, input), updateLog: `Created by agent ${agent.code} (template ${template.name}) for: ${input.task}` };
  },
  /** A reflection agent's child is a reflection plan with the task as its goal: the LLM writes and rewrites it (SPEC §6). */
  reflection: async (agent, input) => llmChild(agent, input, 'reflection'),
  /** A ReAct agent's child starts empty: each turn of the model that asks for tools appends a multiFunction node. */
  react: async (agent, input) => llmChild(agent, input, 'react'),
};

function llmChild(agent: ChildAgent, input: ChildInput, mode: string): PreparedPlan {
  const title = titleOf(agent, input);
  const graph: PlanGraph = {
    name: 'plan',
    strict: false,
    attributes: { mode, goal: input.task, label: title, agentCode: agent.code },
    nodes: [],
    edges: [],
    clusters: [],
  };
  return {
    title,
    graph,
    dot: writeDot(graph),
    author: 'template',
    params: input.inherited,
    updateLog: `Created by agent ${agent.code} (${mode}) for: ${input.task}`,
    warnings: [],
  };
}

function titleOf(agent: ChildAgent, input: ChildInput): string {
  const task = input.task.length > 60 ? `${input.task.slice(0, 57)}...` : input.task;
  return `${agent.code}: ${task}`;
}

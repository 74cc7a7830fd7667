import { writeDot } from '../dot/index.js';
import type { PlanGraph } from '../model/types.js';
import { preparePlan, type PreparedPlan } from '../plans/prepare-plan.js';
import type { ToolCatalogue } from '../tools/types.js';
import type { ChildInput } from '../kinds/agent-child.js';
import type { ReadDotOptions } from '../dot/index.js';
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
  dotLimits: Pick<ReadDotOptions, 'maxBytes' | 'maxASTNodes'>;
  /** Validation of the child's plan (the agents it may use). */
  validation: Partial<ValidateOptions>;
}

/**
 * The plan each agent kind makes of an agent node's input (the child's revision 1). One entry per
 * kind: a kind added later (an external agent over A2A, say) adds its entry here and its driver, and
 * the engine does not change.
 */
export const CHILD_PLANS: Readonly<Record<string, (agent: ChildAgent, input: ChildInput, ctx: ChildPlanContext) => Promise<PreparedPlan>>> = {
  /** A workflow agent instantiates its template with the node's agentParams (and inherited values). */
  workflow: async (agent, input, ctx) => {
    const prepared = await preparePlan(
      ctx.tools,
      { template: agent.template ?? '', values: { ...input.inherited, ...input.agentParams }, title: titleOf(agent, input), dirs: ctx.templateDirs },
      undefined,
      ctx.dotLimits,
      ctx.cwd,
      ctx.validation,
    );
    return { ...prepared, updateLog: `Created by agent ${agent.code} (template ${agent.template ?? ''}) for: ${input.task}` };
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

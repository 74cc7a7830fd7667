import { readFileSync } from 'node:fs';
import { writeDot } from '../dot/index.js';
import { formatDiagnostic, type Diagnostic } from '../model/diagnostics.js';
import type { PlanGraph } from '../model/types.js';
import { MODEL_FIXED_GRAPH_ATTRIBUTES, MODEL_FIXED_NODE_ATTRIBUTES } from '../revisions/fixed-attributes.js';
import { toolInputJsonSchema } from '../tools/json-schema.js';
import type { Tool } from '../tools/types.js';
import { packagePath } from '../config/package-path.js';

/**
 * What the model is told (SPEC §6): the system prompts are files in `prompts/` (the output format
 * of seed 004 and the rules of SPEC §3 in the model's terms); the user part gives the goal, the tool
 * catalogue (codes, descriptions, input schemas as JSON Schema), the current plan as DOT with its
 * live state and `*id`, and the results so far, each output cut to `resultChars`.
 */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

const cache = new Map<string, string>();

/** The lists a prompt file names by placeholder, from the one place that holds each (the model's fixed attributes). */
const PLACEHOLDERS: Readonly<Record<string, () => string>> = {
  fixedGraphAttributes: () => codeList(MODEL_FIXED_GRAPH_ATTRIBUTES.keys()),
  fixedNodeAttributes: () => codeList(MODEL_FIXED_NODE_ATTRIBUTES.keys()),
};

const codeList = (names: Iterable<string>): string => [...names].map((name) => `\`${name}\``).join(', ');

/** A prompt file of the package's `prompts/` folder, its `{{placeholders}}` filled in. */
export function promptFile(name: 'system' | 'answer' | 'verify'): string {
  let text = cache.get(name);
  if (text === undefined) {
    const raw = readFileSync(packagePath('prompts', `${name}.md`), 'utf8');
    text = raw.replace(/\{\{(\w+)\}\}/g, (whole, key: string) => PLACEHOLDERS[key]?.() ?? whole);
    cache.set(name, text);
  }
  return text;
}

export interface PlanContext {
  planId: string;
  goal: string;
  tools: readonly Tool[];
  /** The plan as it stands, live fields in; no nodes yet for a new plan. */
  graph: PlanGraph;
  resultChars: number;
  /** A reviewer's suggestion for a plan waiting for review (`plan modify --suggestion`). */
  suggestion?: string;
  /** The agents this plan may hand tasks to (agent nodes); none: the section is left out. */
  agents?: ReadonlyArray<{ code: string; kind: string; description: string }>;
}

/** The messages asking for the first plan or a refreshed one. */
export function planMessages(context: PlanContext): ChatMessage[] {
  const first = context.graph.nodes.length === 0;
  const parts = [
    `## Goal\n${context.goal}`,
    `## Tools\n${toolCatalogue(context.tools)}`,
    ...(context.agents && context.agents.length > 0
      ? [
          `## Agents\nHand a task to one of these with a node type="agent" agentCode="<code>" task="<what to do, with {{nodes.<id>.output}} references>"; ` +
            `its output is the agent's answer. Nodes of one subgraph cluster_<name> with parallel=true run side by side.\n` +
            context.agents.map((a) => `- \`${a.code}\` (${a.kind}): ${a.description}`).join('\n'),
        ]
      : []),
    first
      ? `## The plan\nThere is no plan yet: write the first one (leave out the *id line).`
      : `## The plan (id ${context.planId}) as it stands\n\`\`\`dot\n${writeDot(context.graph)}\`\`\``,
    ...(first ? [] : [`## Results so far\n${results(context.graph, context.resultChars)}`]),
    ...(context.suggestion ? [`## The reviewer asks\n${context.suggestion}\n\nChange the plan accordingly; nothing runs until the reviewer approves it.`] : []),
    first
      ? 'Write the plan. Mark the first steps to run status="ready".'
      : `Refresh the plan (*id=${context.planId}): mark what should run next status="ready", add or change pending steps as the results require, or add nothing if the goal is reached. Write status only where you change it.`,
  ];
  return [
    { role: 'system', content: promptFile('system') },
    { role: 'user', content: parts.join('\n\n') },
  ];
}

/** The model's refused reply, and the problems it must fix, appended to the conversation. */
export function refusalMessages(reply: string, problems: readonly Diagnostic[]): ChatMessage[] {
  const list = problems.map((d) => `- ${formatDiagnostic(d)}`).join('\n');
  return [
    { role: 'assistant', content: reply },
    {
      role: 'user',
      content: `Your plan was refused and nothing of it was applied. Problems:\n${list}\n\nWrite the whole reply again (@epupdatelog@ and @EP@ blocks) with these fixed.`,
    },
  ];
}

/** The messages asking for the final answer. */
export function answerMessages(goal: string, graph: PlanGraph, resultChars: number): ChatMessage[] {
  return [
    { role: 'system', content: promptFile('answer') },
    { role: 'user', content: `## Goal\n${goal}\n\n## Results\n${results(graph, resultChars)}` },
  ];
}

/** The messages asking whether a node's output does what the node was for. */
export function verifyMessages(
  goal: string | undefined,
  node: { id: string; label?: string; toolCode?: string; toolInput?: string },
  output: string,
  resultChars: number,
): ChatMessage[] {
  const step = [
    `id: ${node.id}`,
    node.label ? `purpose: ${node.label}` : '',
    node.toolCode ? `tool: ${node.toolCode}` : '',
    node.toolInput ? `input: ${node.toolInput}` : '',
  ]
    .filter(Boolean)
    .join('\n');
  return [
    { role: 'system', content: promptFile('verify') },
    { role: 'user', content: `${goal ? `## Goal of the plan\n${goal}\n\n` : ''}## The step\n${step}\n\n## Its output\n${cut(output, resultChars)}` },
  ];
}

function toolCatalogue(tools: readonly Tool[]): string {
  return tools
    .map((tool) => {
      const schema = toolInputJsonSchema(tool.inputSchema);
      return `- \`${tool.code}\`: ${tool.description ?? '(no description)'}${schema ? `\n  input schema: ${JSON.stringify(schema)}` : ''}`;
    })
    .join('\n');
}

/** Each finished node with its output or error, cut to `chars`. */
function results(graph: PlanGraph, chars: number): string {
  const lines = graph.nodes.flatMap((n) => {
    const { status, toolOutput, error, answer, label } = n.attributes;
    if (!['done', 'failed', 'skipped'].includes(status ?? '')) return [];
    const value =
      status === 'failed'
        ? `error: ${cut(error ?? '', chars)}`
        : answer !== undefined
          ? `answer: ${cut(answer, chars)}`
          : `output: ${cut(toolOutput ?? '', chars)}`;
    return [`- ${n.id}${label ? ` (${label})` : ''}: ${status}; ${value}`];
  });
  return lines.length > 0 ? lines.join('\n') : '(none yet)';
}

function cut(text: string, chars: number): string {
  return text.length <= chars ? text : `${text.slice(0, chars)}… (${text.length - chars} more characters)`;
}

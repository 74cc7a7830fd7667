import type { NodeRecord } from '../../store/types.js';

/** A message of an agent instance's conversation, as the chat completions API takes it. */
export interface AgentMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

/** One tool call the model asked for. */
export interface ToolCallAsked {
  id: string;
  toolCode: string;
  input: unknown;
}

/** The node id of a ReAct turn: turn_1, turn_2, ... — the child's DOT reads as the agent's trace. */
export function turnNodeId(turn: number): string {
  return `turn_${turn}`;
}

/** Every assistant message: a turn of the model (maxTurns counts these). */
export function modelTurns(history: readonly AgentMessage[]): number {
  return history.filter((m) => m.role === 'assistant').length;
}

/** The calls of the last assistant message that have no tool result after it, if it asked for tools. */
export function openCalls(history: readonly AgentMessage[]): AgentMessage['tool_calls'] {
  const lastAssistant = history.findLastIndex((m) => m.role === 'assistant');
  const asked = history[lastAssistant]?.tool_calls ?? [];
  const answered = new Set(history.slice(lastAssistant + 1).flatMap((m) => (m.role === 'tool' && m.tool_call_id ? [m.tool_call_id] : [])));
  return asked.filter((c) => !answered.has(c.id));
}

/**
 * The tool messages for a finished turn node, one per call id (the node's `callIds`): its results in
 * order when done (a multiFunction node's output is the JSON array of its calls' results); the node's
 * error for each call when it failed, was cancelled or skipped — a stored history always answers every call.
 */
export function toolResults(node: NodeRecord, calls: NonNullable<AgentMessage['tool_calls']>): AgentMessage[] {
  let results: unknown[] | undefined;
  if (node.status === 'done' && node.output !== undefined) {
    try {
      const parsed: unknown = JSON.parse(node.output);
      if (Array.isArray(parsed)) results = parsed;
    } catch {
      results = undefined;
    }
  }
  return calls.map((call, index) => {
    const result = results?.[index];
    const content =
      results !== undefined
        ? typeof result === 'string'
          ? result
          : JSON.stringify(result ?? null)
        : `error: ${node.error ?? `the call did not run (its node ended ${node.status})`}`;
    return { role: 'tool', tool_call_id: call.id, content };
  });
}

/** A stored history the API accepts: an assistant's calls left without results (a crash, a cancel) get an "interrupted" result each. */
export function interruptedResults(history: readonly AgentMessage[]): AgentMessage[] {
  return (openCalls(history) ?? []).map((call) => ({
    role: 'tool',
    tool_call_id: call.id,
    content: 'interrupted: the worker running this call stopped before it finished',
  }));
}

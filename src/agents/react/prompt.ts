import type { AgentMessage } from './turns.js';

/**
 * The first messages of a ReAct agent instance's conversation: its system prompt (the agent's own,
 * else a default naming it) and the task with the values its node passed. Nothing else of the tree
 * is in it: each instance has its own history (seed 002 §4).
 */
export function agentMessages(
  agent: { code: string; description?: string; systemPrompt?: string },
  task: string,
  params: Record<string, string>,
): AgentMessage[] {
  const system =
    agent.systemPrompt ??
    `You are agent ${agent.code}${agent.description ? ` (${agent.description})` : ''}. Work on the task with the tools you are given, ` +
      'calling several at once when they do not depend on each other. When you have the answer, reply with it and call no tool. ' +
      'If the task cannot be done as it was given, call request_replan with the reason.';
  const values = Object.entries(params);
  const user = values.length === 0 ? task : `${task}\n\nValues passed to you:\n${values.map(([k, v]) => `- ${k}: ${v}`).join('\n')}`;
  return [
    { role: 'system', content: system },
    { role: 'user', content: user },
  ];
}

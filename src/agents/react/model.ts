import type { LlmClient, ToolOffer } from '../../llm/client.js';
import { functionNames, toolInputJsonSchema } from '../../tools/json-schema.js';
import type { ReactModel, ReactReply } from './driver.js';
import type { AgentMessage } from './turns.js';

/** A tool without an input schema takes any JSON object. */
const ANY_OBJECT = { type: 'object', additionalProperties: true };

/**
 * The ReAct model on the engine's LLM client (the real `openai` package): tools offered with their
 * `inputSchema` as JSON schemas (zod's own conversion), the reply read as tool calls or an answer.
 * Arguments that are not JSON are passed on as the text the model wrote: the tool's schema check then
 * fails that call, and the model reads why in the call's result.
 */
export function llmReactModel(client: LlmClient): ReactModel {
  return {
    async turn({ messages, tools, model, signal }): Promise<ReactReply> {
      const wrapped = new Set<string>();
      // Offered under names the API accepts (`mcp:files/read` as `mcp_files_read`); calls are mapped back to the codes.
      const names = functionNames(tools.map((t) => t.code));
      const codeOf = new Map([...names].map(([code, name]) => [name, code]));
      const offers: ToolOffer[] = tools.map((t) => {
        const { parameters, wrap } = parametersOf(t.inputSchema);
        if (wrap) wrapped.add(t.code);
        return { name: names.get(t.code)!, ...(t.description ? { description: t.description } : {}), parameters };
      });
      const result = await client.chatWithTools(messages, offers, { signal, ...(model ? { model } : {}) });
      const { content, toolCalls } = result.value;
      const assistant: AgentMessage = {
        role: 'assistant',
        content,
        ...(toolCalls.length > 0
          ? { tool_calls: toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })) }
          : {}),
      };
      const usage = { model: result.model, promptTokens: result.promptTokens, completionTokens: result.completionTokens, ms: result.ms };
      if (toolCalls.length === 0) return { kind: 'answer', text: content ?? '', assistant, ...usage };
      const input = (code: string, c: { arguments: string }) => {
        const args = parseArguments(c.arguments);
        return wrapped.has(code) && args !== null && typeof args === 'object' && 'input' in args ? args.input : args;
      };
      const calls = toolCalls.map((c) => {
        const toolCode = codeOf.get(c.name) ?? c.name;
        return { id: c.id, toolCode, input: input(toolCode, c) };
      });
      return { kind: 'tools', calls, assistant, ...usage };
    },
  };
}

/** A tool's input as the JSON schema of the call's arguments (an object); a schema of another type is wrapped as `{ input }`. */
function parametersOf(schema: unknown): { parameters: Record<string, unknown>; wrap: boolean } {
  const json = toolInputJsonSchema(schema as Parameters<typeof toolInputJsonSchema>[0]);
  if (!json) return { parameters: ANY_OBJECT, wrap: false };
  if (json.type === 'object') return { parameters: json, wrap: false };
  return { parameters: { type: 'object', properties: { input: json }, required: ['input'] }, wrap: true };
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

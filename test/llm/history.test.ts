/**
 * The conversation rule of the chat completions API (src/llm/history.ts): an assistant message with
 * tool calls is answered by one tool message per call id before anything else. The scripted server
 * refuses a broken history with HTTP 400 as the real API does, through the real `openai` client.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { interruptedResults } from '../../src/agents/react/turns.js';
import { createLlmClient, LlmError } from '../../src/llm/client.js';
import { historyProblem } from '../../src/llm/history.js';
import { startScriptedServer, type ScriptedServer } from '../../src/llm/scripted-server.js';

const asked = {
  role: 'assistant' as const,
  content: null,
  tool_calls: [
    { id: 'c1', type: 'function' as const, function: { name: 'lookup', arguments: '{}' } },
    { id: 'c2', type: 'function' as const, function: { name: 'lookup', arguments: '{}' } },
  ],
};
const start = [
  { role: 'system' as const, content: 'you are a searcher' },
  { role: 'user' as const, content: 'find A' },
];

describe('tool-call histories', () => {
  let server: ScriptedServer | undefined;
  afterEach(async () => server?.close());

  it('names the call ids left without results, and a tool message that answers no call', () => {
    expect(
      historyProblem([...start, asked, { role: 'tool', tool_call_id: 'c1', content: 'x' }, { role: 'tool', tool_call_id: 'c2', content: 'y' }]),
    ).toBeUndefined();
    expect(historyProblem([...start, asked, { role: 'tool', tool_call_id: 'c1', content: 'x' }])).toMatch(/did not have response messages: c2$/);
    expect(historyProblem([...start, asked, { role: 'user', content: 'well?' }])).toMatch(/did not have response messages: c1, c2/);
    expect(historyProblem([...start, { role: 'tool', tool_call_id: 'c9', content: 'x' }])).toMatch(
      /must be a response to a preceeding message with 'tool_calls'/,
    );
  });

  it('an interrupted call gets a result, so a history cut by a crash is one the API accepts', () => {
    const cut = [...start, asked, { role: 'tool' as const, tool_call_id: 'c1', content: 'x' }];
    const repaired = [...cut, ...interruptedResults(cut)];
    expect(repaired.at(-1)).toEqual({ role: 'tool', tool_call_id: 'c2', content: 'interrupted: the worker running this call stopped before it finished' });
    expect(historyProblem(repaired)).toBeUndefined();
  });

  it('the scripted server answers tool calls, and refuses a broken history with 400 as the real API does', async () => {
    server = await startScriptedServer({ script: { replies: [{ toolCalls: [{ name: 'lookup', arguments: { q: 'a' } }], repeat: true }] } });
    const client = createLlmClient({ baseURL: server.url, model: 'scripted', timeoutMs: 5_000, maxRetries: 0 });
    const tools = [{ name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } }];
    const turn = await client.chatWithTools(start, tools);
    expect(turn.value.toolCalls).toMatchObject([{ name: 'lookup', arguments: '{"q":"a"}' }]);
    const error = await client.chatWithTools([...start, asked], tools).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(LlmError);
    expect((error as LlmError).status).toBe(400);
    expect((error as LlmError).message).toMatch(/HTTP 400: An assistant message with 'tool_calls' must be followed by tool messages .* c1, c2/);
  });
});

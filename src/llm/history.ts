/**
 * The rule the chat completions API holds a conversation to (it answers HTTP 400 otherwise): an
 * assistant message with `tool_calls` is followed, before any other assistant or user message, by
 * one `tool` message per call id; a `tool` message answers a call just made. One implementation: the
 * scripted server refuses by it as the real API does, and tests check stored histories with it.
 */
export function historyProblem(messages: readonly unknown[]): string | undefined {
  let open: string[] = [];
  for (const [index, message] of messages.entries()) {
    const m = (message ?? {}) as { role?: unknown; tool_calls?: unknown; tool_call_id?: unknown };
    if (m.role === 'tool') {
      const id = typeof m.tool_call_id === 'string' ? m.tool_call_id : '';
      if (!open.includes(id)) {
        return `Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls' (messages[${index}], tool_call_id ${JSON.stringify(id)}).`;
      }
      open = open.filter((o) => o !== id);
      continue;
    }
    if (open.length > 0) {
      return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${open.join(', ')}`;
    }
    if (m.role === 'assistant' && Array.isArray(m.tool_calls)) {
      open = m.tool_calls.map((c) => {
        const id = (c as { id?: unknown }).id;
        return typeof id === 'string' ? id : '';
      });
    }
  }
  if (open.length > 0) {
    return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${open.join(', ')}`;
  }
  return undefined;
}

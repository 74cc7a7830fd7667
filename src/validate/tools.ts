import type { Diagnostic } from '../model/diagnostics.js';
import { parseToolCalls } from '../model/attributes.js';
import type { GraphNode } from '../model/types.js';
import { atNode, q, type Check, type CheckContext } from './context.js';
import { nearest } from './suggest.js';

/** `toolCode`s are registered tools (never evaluated); `toolCalls` is a JSON array of calls. */
export const checkTools: Check = (ctx) => {
  const out: Diagnostic[] = [];
  for (const node of ctx.graph.nodes) {
    const type = ctx.typeOf(node);
    const toolCode = node.attributes['toolCode'];
    if (type === 'function' && toolCode !== undefined && toolCode.trim() !== '') {
      const unknown = unknownTool(ctx, node, toolCode, 'toolCode');
      if (unknown) out.push(unknown);
    }
    const toolCalls = node.attributes['toolCalls'];
    if (type === 'multiFunction' && toolCalls !== undefined && toolCalls.trim() !== '') {
      const parsed = parseToolCalls(toolCalls);
      if (!parsed.ok) {
        out.push({
          code: 'TOOL_CALLS_INVALID',
          severity: 'error',
          message: `toolCalls of node ${q(node.id)} ${parsed.reason}`,
          ...atNode(node, 'toolCalls'),
          fix: `write a JSON array of calls: toolCalls="[{\\"toolCode\\": \\"echo\\", \\"toolInput\\": \\"hi\\"}]"`,
        });
        continue;
      }
      for (const call of parsed.calls) {
        const unknown = unknownTool(ctx, node, call.toolCode, 'toolCalls');
        if (unknown) out.push(unknown);
      }
    }
  }
  return out;
};

function unknownTool(ctx: CheckContext, node: GraphNode, code: string, attribute: string): Diagnostic | undefined {
  const tools = ctx.options.tools;
  if (tools.has(code)) return undefined;
  const known = tools.list?.().map((t) => t.code) ?? [];
  const suggestions = nearest(code, known, 5);
  return {
    code: 'TOOL_UNKNOWN',
    severity: 'error',
    message: `tool ${q(code)} of node ${q(node.id)} is not registered${suggestions.length ? ` (known tools, nearest first: ${suggestions.join(', ')}${known.length > suggestions.length ? ', ...' : ''})` : ''}`,
    ...atNode(node, attribute),
    fix: suggestions.length
      ? `use a registered tool such as "${suggestions[0]}", or register "${code}" in a tools module (--tools <module>)`
      : `register "${code}" in a tools module (--tools <module>)`,
  };
}

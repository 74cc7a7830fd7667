import { parseToolInput } from '../execute/resolve-input.js';
import type { Diagnostic } from '../model/diagnostics.js';
import { parseToolCalls } from '../model/attributes.js';
import { findReferences } from '../model/references.js';
import { describeIssues } from '../tools/describe-issues.js';
import type { GraphNode } from '../model/types.js';
import { atNode, q, type Check, type CheckContext } from './context.js';
import { nearest } from './suggest.js';
import { mcpServerOf, unlistedServerFix } from '../mcp/tool-codes.js';

/**
 * `toolCode`s are registered tools (never evaluated); `toolCalls` is a JSON array of calls; an input
 * without references is checked against the tool's input schema.
 */
export const checkTools: Check = (ctx) => {
  const out: Diagnostic[] = [];
  for (const node of ctx.graph.nodes) {
    const type = ctx.typeOf(node);
    const toolCode = node.attributes['toolCode'];
    if (type === 'function' && toolCode !== undefined && toolCode.trim() !== '') {
      const unknown = unknownTool(ctx, node, toolCode, 'toolCode');
      if (unknown) out.push(unknown);
      const toolInput = node.attributes['toolInput'];
      const refused = unknown || toolInput === undefined ? undefined : inputRefused(ctx, node, toolCode, () => parseToolInput(toolInput), 'toolInput');
      if (refused) out.push(refused);
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
      for (const [index, call] of parsed.calls.entries()) {
        const unknown = unknownTool(ctx, node, call.toolCode, 'toolCalls');
        const refused =
          unknown || call.toolInput === undefined
            ? undefined
            : inputRefused(ctx, node, call.toolCode, () => call.toolInput, 'toolCalls', `toolCalls[${index}] (${call.toolCode})`);
        if (unknown ?? refused) out.push((unknown ?? refused)!);
      }
    }
  }
  return out;
};

function unknownTool(ctx: CheckContext, node: GraphNode, code: string, attribute: string): Diagnostic | undefined {
  const tools = ctx.options.tools;
  if (tools.has(code)) return undefined;
  const why = tools.unavailable?.(code);
  if (why !== undefined) {
    const server = mcpServerOf(code)!;
    return {
      code: 'TOOL_UNKNOWN',
      severity: 'error',
      message: `tool ${q(code)} of node ${q(node.id)} is not known: ${why}`,
      ...atNode(node, attribute),
      fix: unlistedServerFix(server, `run this again: \`dotplan mcp tools --server ${server}\` lists its tools once it answers`),
    };
  }
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

/**
 * A literal input (given, and no `{{...}}` reference anywhere in it) that the tool's schema refuses, with the fields it names.
 * `inputOf`: the input as the tool would take it, made only where the tool has a schema to check it against.
 */
function inputRefused(ctx: CheckContext, node: GraphNode, code: string, inputOf: () => unknown, attribute: string, where = attribute): Diagnostic | undefined {
  const schema = ctx.options.tools.get?.(code)?.inputSchema;
  if (!schema) return undefined;
  const input = inputOf();
  if (hasReferences(input)) return undefined;
  const checked = schema.safeParse(input);
  if (checked.success) return undefined;
  const server = mcpServerOf(code);
  return {
    code: 'TOOL_INPUT_INVALID',
    severity: 'error',
    message: `${where} of node ${q(node.id)} does not fit the input of tool ${q(code)}: ${describeIssues(checked.error)}`,
    ...atNode(node, attribute),
    fix: `change ${where} to what "${code}" takes${server !== undefined ? `: \`dotplan mcp tools --server ${server}\` shows its input schema` : ''}`,
  };
}

/** Whether a value holds a reference in any string (keys too): it is then known only when the node runs. */
function hasReferences(value: unknown): boolean {
  if (typeof value === 'string') return findReferences(value).some((ref) => ref.kind !== 'invalid');
  if (Array.isArray(value)) return value.some(hasReferences);
  if (value !== null && typeof value === 'object') return Object.entries(value).some(([key, item]) => hasReferences(key) || hasReferences(item));
  return false;
}

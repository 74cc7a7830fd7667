import { z } from 'zod';
import type { Tool } from './types.js';

/** Keywords the OpenAI API refuses (or that mean nothing to it) in a function's parameters. */
const REFUSED_KEYWORDS = ['$schema', '$id', '$comment'];

/**
 * A tool's input as a JSON schema: its own (`toJSONSchema`, an MCP tool's) or zod's conversion of a
 * zod schema; undefined when it has none or it cannot be converted. The same for the LLM's prompt
 * and for a ReAct agent's tool offers.
 */
export function toolInputJsonSchema(schema: Tool['inputSchema']): Record<string, unknown> | undefined {
  if (!schema) return undefined;
  try {
    if (typeof schema.toJSONSchema === 'function' && !(schema instanceof z.ZodType)) return cleaned(schema.toJSONSchema());
    if (schema instanceof z.ZodType) return cleaned(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }));
  } catch {
    // not representable: offered without a schema
  }
  return undefined;
}

function cleaned(schema: Record<string, unknown>): Record<string, unknown> {
  const out = { ...schema };
  for (const keyword of REFUSED_KEYWORDS) delete out[keyword];
  return out;
}

/**
 * Names the OpenAI API accepts for functions (`^[a-zA-Z0-9_-]{1,64}$`), one per tool code and
 * different from each other: `mcp:files/read_file` is offered as `mcp_files_read_file`.
 */
export function functionNames(codes: readonly string[]): Map<string, string> {
  const names = new Map<string, string>();
  const taken = new Set<string>();
  for (const code of codes) {
    const base = code.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) || 'tool';
    let name = base;
    for (let n = 2; taken.has(name); n += 1) name = `${base.slice(0, 64 - String(n).length - 1)}_${n}`;
    taken.add(name);
    names.set(code, name);
  }
  return names;
}

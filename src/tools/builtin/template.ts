import { z } from 'zod';
import { ToolError } from '../../errors/errors.js';
import { parsePath } from '../../model/references.js';
import { valueToText, walkPath } from '../json-path.js';
import type { Tool } from '../types.js';

const input = z.union([z.string(), z.object({ template: z.string(), values: z.record(z.string(), z.unknown()).optional() })]);

const PLACEHOLDER = /\{\{\s*([\s\S]*?)\s*\}\}/g;

/**
 * Replaces each `{{key.path}}` in `template` with the value at that path in `values` (strings as they
 * are, other values as JSON). A placeholder without a value is an error naming it, not a silent blank.
 */
export function renderTemplate(template: string, values: Record<string, unknown>): string {
  const missing: string[] = [];
  const text = template.replace(PLACEHOLDER, (raw, body: string) => {
    const path = parsePath(body);
    const found = path ? walkPath(values, path) : undefined;
    if (!found?.found) {
      missing.push(raw);
      return raw;
    }
    return valueToText(found.value);
  });
  if (missing.length > 0) {
    const known = Object.keys(values);
    throw new ToolError(`template: no value for ${missing.join(', ')}; values has ${known.length > 0 ? known.join(', ') : 'no keys'}`, { retryable: false });
  }
  return text;
}

/** `template`: renders text. Plan references (`{{nodes...}}`, `{{params...}}`) are resolved before. */
export const templateTool: Tool<z.infer<typeof input>, string> = {
  code: 'template',
  description:
    'Renders text: {"template": "Hello {{name}}", "values": {"name": "Ada"}} → "Hello Ada" ({{a.b[0]}} paths allowed), or a plain string returned as rendered.',
  inputSchema: input,
  run: (value) => (typeof value === 'string' ? renderTemplate(value, {}) : renderTemplate(value.template, value.values ?? {})),
};

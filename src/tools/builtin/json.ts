import { z } from 'zod';
import { ToolError } from '../../errors/errors.js';
import { jsonOrText } from '../json-or-text.js';
import { parsePathText, walkPath } from '../json-path.js';
import type { Tool } from '../types.js';

const input = z.union([z.strictObject({ pick: z.string(), from: z.unknown() }), z.strictObject({ merge: z.array(z.unknown()).min(1) })]);

/** Values arriving as JSON text (an upstream output inserted as text) are parsed first. */
function structured(value: unknown): unknown {
  return typeof value === 'string' ? jsonOrText(value) : value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * `json`: `{"pick": "a.b[0]", "from": <value>}` → the value at that path;
 * `{"merge": [obj, obj, ...]}` → one object, later keys winning (shallow).
 */
export const jsonTool: Tool<z.infer<typeof input>, unknown> = {
  code: 'json',
  description:
    'Picks or merges JSON: {"pick": "a.b[0]", "from": {...}} → the value at the path; {"merge": [{...}, {...}]} → one object (shallow, later keys win).',
  inputSchema: input,
  run: (value) => {
    if ('pick' in value) {
      let path;
      try {
        path = parsePathText(value.pick);
      } catch (error) {
        throw new ToolError(`json: ${(error as Error).message}`, { retryable: false });
      }
      const found = walkPath(structured(value.from), path);
      if (!found.found) throw new ToolError(`json: "from" has no ${found.at}`, { retryable: false });
      return found.value;
    }
    const merged: Record<string, unknown> = {};
    value.merge.forEach((item, index) => {
      const object = structured(item);
      if (!isPlainObject(object)) throw new ToolError(`json: merge[${index}] is not an object`, { retryable: false });
      Object.assign(merged, object);
    });
    return merged;
  },
};

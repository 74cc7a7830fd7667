import { ToolError } from '../errors/errors.js';
import { findReferences, type Reference } from '../model/references.js';
import { formatPath, valueToText, walkPath } from '../tools/json-path.js';
import { jsonOrText } from '../tools/json-or-text.js';

/**
 * Run-time resolution of `{{params.x}}`, `{{nodes.<id>.output[.path]}}` and `{{nodes.<id>.answer}}`
 * (SPEC §2). Node outputs are stored as text; a path walks the output parsed as JSON. What is a
 * reference is decided in one place (`findReferences`): any other `{{...}}` (e.g. a `template`
 * tool's own `{{name}}`) is text and stays as it is. A skipped node finished with no output: its
 * output, any path into it and its answer are empty — nothing inserted into a text, `null` where a
 * JSON leaf (or the whole input) is exactly that one reference.
 */
export interface ReferenceScope {
  params: Record<string, string>;
  /** The node's live fields; `status` tells a skipped node (no output) from one that has not finished. */
  nodes: (id: string) => { output?: string | null; answer?: string | null; status?: string } | undefined;
}

/** The tool input text as a JSON value when it parses, else the text itself. */
export function parseToolInput(text: string): unknown {
  return jsonOrText(text);
}

/** Replaces every reference in a text; values that are not strings are inserted as JSON. */
export function resolveReferences(text: string, scope: ReferenceScope): string {
  let out = '';
  let last = 0;
  for (const ref of findReferences(text)) {
    if (ref.kind === 'invalid') continue;
    out += text.slice(last, ref.index) + valueToText(lookup(ref, scope, 'text'));
    last = ref.index + ref.raw.length;
  }
  return out + text.slice(last);
}

/**
 * Resolves a node's `toolInput` attribute into the value the tool receives: JSON is parsed first and
 * references are resolved inside each string leaf (so quotes in a value cannot break the JSON); a leaf
 * — or a whole input — that is exactly one reference takes the referenced value itself (an object
 * stays an object).
 */
export function resolveToolInput(text: string | undefined, scope: ReferenceScope): unknown {
  if (text === undefined) return undefined;
  return resolveValue(parseToolInput(text), scope);
}

/** Resolves references in every string of a JSON value (keys included, as text). */
export function resolveValue(value: unknown, scope: ReferenceScope): unknown {
  if (typeof value === 'string') {
    const refs = findReferences(value);
    const only = refs[0];
    if (refs.length === 1 && only && only.kind !== 'invalid' && only.raw === value.trim()) {
      return lookup(only, scope, 'value');
    }
    return resolveReferences(value, scope);
  }
  if (Array.isArray(value)) return value.map((item) => resolveValue(item, scope));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [resolveReferences(key, scope), resolveValue(item, scope)]));
  }
  return value;
}

function fail(message: string): never {
  throw new ToolError(message, { retryable: false });
}

/**
 * The value a reference stands for. `mode: 'text'` gives a whole output as the stored text;
 * `'value'` parses an output as JSON when it can, so a structured output stays structured (an answer is
 * a person's text and stays text).
 */
function lookup(ref: Exclude<Reference, { kind: 'invalid' }>, scope: ReferenceScope, mode: 'text' | 'value'): unknown {
  if (ref.kind === 'params') {
    const value = scope.params[ref.name];
    if (value === undefined) fail(`${ref.raw}: the plan has no parameter "${ref.name}"`);
    return value;
  }
  const node = scope.nodes(ref.node);
  if (!node) fail(`${ref.raw}: the plan has no node "${ref.node}"`);
  if (node.status === 'skipped') return mode === 'text' ? '' : null;
  const text = node[ref.field];
  if (text === undefined || text === null) {
    fail(ref.field === 'output' ? `${ref.raw}: node "${ref.node}" has no output (has it finished?)` : `${ref.raw}: node "${ref.node}" has no answer yet`);
  }
  if (ref.path.length === 0) return mode === 'text' || ref.field === 'answer' ? text : parseToolInput(text);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    fail(`${ref.raw}: the ${ref.field} of node "${ref.node}" is not JSON, so it has no ${formatPath(ref.path)}`);
  }
  const found = walkPath(parsed, ref.path);
  if (!found.found) fail(`${ref.raw}: the ${ref.field} of node "${ref.node}" has no ${found.at}`);
  return found.value;
}

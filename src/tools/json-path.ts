import { parsePath, type PathSegment } from '../model/references.js';

/**
 * Reading a value at a path such as `items[0].url` (the syntax of `{{...}}` references), used by
 * reference resolution and by the `json` and `template` tools.
 */
export type PathLookup = { found: true; value: unknown } | { found: false; at: string };

/** Walks `value` along `path`; `at` names the first segment that does not exist. */
export function walkPath(value: unknown, path: readonly PathSegment[]): PathLookup {
  let current = value;
  for (let i = 0; i < path.length; i++) {
    const segment = path[i] as PathSegment;
    if (current === null || typeof current !== 'object') return { found: false, at: formatPath(path.slice(0, i + 1)) };
    const key = Array.isArray(current) && typeof segment === 'string' && /^\d+$/.test(segment) ? Number(segment) : segment;
    if (!Object.prototype.hasOwnProperty.call(current, key)) return { found: false, at: formatPath(path.slice(0, i + 1)) };
    current = (current as Record<string | number, unknown>)[key];
  }
  return { found: true, value: current };
}

/** Parses a path text (`a.b[0]`), throwing a message naming it when malformed. */
export function parsePathText(text: string): PathSegment[] {
  const path = parsePath(text);
  if (!path) throw new Error(`"${text}" is not a path (expected e.g. a.b[0].c or items[0]["key with spaces"])`);
  return path;
}

/** `['items', 0, 'a b']` → `items[0]["a b"]`. */
export function formatPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (/^[A-Za-z_][\w-]*$/.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/** Text for a value inserted into text: strings as they are, everything else as JSON. */
export function valueToText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  // JSON.stringify gives undefined for functions and symbols only.
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- only functions and symbols reach here
  return JSON.stringify(value) ?? String(value);
}

import type { z } from 'zod';

/**
 * zod's issues in the words dotplan's messages use (`must be a string (got number)`, `is empty`,
 * `must be at least 1 (got 0)`, `unknown option "x" (known: a, b)`): the error map given to
 * `safeParse` wherever input is checked against a schema. A schema's own wording wins over it.
 */

/** The problem in words, for the issues a schema did not word itself. */
export function describeIssue(issue: z.core.$ZodRawIssue): string | undefined {
  const got = `(got ${shown(issue.input)})`;
  switch (issue.code) {
    case 'invalid_type': {
      const want = expected(issue);
      // A number that is not a whole one is shown as it is; anything else by its kind.
      const given = want === 'a whole number' && typeof issue.input === 'number' ? shown(issue.input) : kindOf(issue.input);
      return `must be ${want} (got ${given})`;
    }
    case 'too_small':
      if (issue.origin === 'string' && issue.minimum === 1) return 'is empty';
      if (issue.origin === 'array') return `must have at least ${String(issue.minimum)} item${issue.minimum === 1 ? '' : 's'}`;
      return `must be at least ${String(issue.minimum)} ${got}`;
    case 'too_big':
      if (issue.origin === 'string') return `must be at most ${String(issue.maximum)} characters long`;
      return `must be at most ${String(issue.maximum)} ${got}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => String(v)).join(', ')} ${got}`;
    case 'unrecognized_keys': {
      const keys = issue.keys.map((k) => JSON.stringify(k)).join(', ');
      const known = Object.keys((issue.inst as { _zod?: { def?: { shape?: object } } } | undefined)?._zod?.def?.shape ?? {});
      return `unknown option${issue.keys.length > 1 ? 's' : ''} ${keys}${known.length > 0 ? ` (known: ${known.join(', ')})` : ''}`;
    }
    case 'invalid_format':
      return `must be ${issue.format === 'url' ? 'a URL' : `a ${issue.format}`} ${got}`;
    default:
      return undefined;
  }
}

function expected(issue: z.core.$ZodRawIssue & { code: 'invalid_type' }): string {
  const def = (issue.inst as { _zod?: { def?: { format?: string } } } | undefined)?._zod?.def;
  if (issue.expected === 'int' || def?.format === 'safeint') return 'a whole number';
  switch (issue.expected) {
    case 'object':
      return 'an object';
    case 'array':
      return 'an array';
    case 'boolean':
      return 'true or false';
    default:
      return `a ${issue.expected}`;
  }
}

/** What was given, in one word: `number`, `undefined`, `NaN`, `array`. */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  return typeof value;
}

/** A value as a message shows it: numbers and short strings as they are, others by their kind. */
export function shown(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  return kindOf(value);
}

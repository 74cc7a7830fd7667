import type { z } from 'zod';
import { InvalidArgumentError } from '../errors/errors.js';
import { describeIssue } from '../errors/describe-issue.js';

/**
 * Turns a call's arguments that do not fit their schema into one `InvalidArgumentError`
 * (`INVALID_INPUT`) that names the call and the argument: `create: dot must be a string (got number)`.
 * The schemas (arguments.ts) say what is allowed; this module only words what is not.
 */

/**
 * The arguments of a call, by parameter name, checked against the call's schema; throws when they do
 * not fit. Only checks: the caller goes on with its own arguments (a tool object stays the same object).
 */
export function checkArguments(method: string, schema: z.ZodType, args: Record<string, unknown>): void {
  const result = schema.safeParse(args, { error: describeIssue, reportInput: true });
  if (result.success) return;
  const problems = result.error.issues.map((issue) => ({ argument: argumentPath(issue), issue }));
  const first = problems[0]!;
  throw new InvalidArgumentError(`${method}: ${problems.map(({ argument, issue }) => sentence(argument, issue)).join('; ')}`, {
    argument: first.argument || String(first.issue.path[0] ?? ''),
    problem: first.issue.message,
  });
}

/** A parameter's own name, or the path inside an object parameter (its options, its input) without the parameter's name. */
function argumentPath(issue: z.core.$ZodIssue): string {
  const path = issue.code === 'unrecognized_keys' || issue.path.length > 1 ? issue.path.slice(1) : issue.path;
  return path.reduce<string>((text, part) => (typeof part === 'number' ? `${text}[${part}]` : text ? `${text}.${String(part)}` : String(part)), '');
}

function sentence(argument: string, issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') return argument ? `${argument} has ${issue.message}` : issue.message;
  return `${argument} ${issue.message}`;
}

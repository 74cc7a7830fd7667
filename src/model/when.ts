/**
 * Edge conditions: `a -> b [when="..."]` is taken only when the source node's answer (or, for a node
 * without an answer, its output as text; for a skipped node, the empty text) matches. Forms:
 * - `yes`           equals, ignoring case and surrounding white space
 * - `yes|y|ok`      any of the alternatives
 * - `!no`           none of the alternatives (`!no|n`)
 * - `/^appr/i`      a regular expression, matched anywhere in the value (flags i, s, m)
 *
 * Regular expressions run on RE2 (re2js): matching takes time linear in the value, so a pattern
 * written by a person or an LLM, such as `/^(a+)+$/`, cannot hang a worker. What RE2 cannot
 * compile — backreferences, lookaround — is refused when the plan is validated, and so is a pattern
 * over the limits of `when-limits.ts` (RE2's time is linear in the value, but times the pattern's size).
 */
import { createRequire } from 'node:module';
import type { RE2JS } from 're2js';

export type WhenCondition = { kind: 'equals'; values: string[]; negate: boolean } | { kind: 'regex'; regex: RE2JS; source: string };

/**
 * re2js, loaded (its CommonJS build; nothing else imports it) the first time a pattern is compiled: a
 * command that meets no pattern, such as `plan list`, does not load its quarter megabyte.
 */
const loadModule = createRequire(import.meta.url);
let re2js: typeof RE2JS | undefined;
const RE2 = (): typeof RE2JS => (re2js ??= (loadModule('re2js') as typeof import('re2js')).RE2JS);

/** RE2's flag for each flag letter a pattern may carry. */
const FLAGS: Readonly<Record<string, (re2: typeof RE2JS) => number>> = { i: (r) => r.CASE_INSENSITIVE, s: (r) => r.DOTALL, m: (r) => r.MULTILINE };

export type WhenParse = { ok: true; condition: WhenCondition } | { ok: false; reason: string };

export function parseWhen(text: string): WhenParse {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: false, reason: 'the condition is empty' };
  const regex = /^\/(.+)\/([a-z]*)$/s.exec(trimmed);
  if (regex) {
    let flags = 0;
    for (const flag of regex[2]!) {
      const value = FLAGS[flag];
      if (value === undefined) return { ok: false, reason: `the flag "${flag}" is not supported (flags: i, s, m)` };
      flags |= value(RE2());
    }
    try {
      return { ok: true, condition: { kind: 'regex', regex: RE2().compile(regex[1]!, flags), source: regex[1]! } };
    } catch (error) {
      const message = (error as Error).message.replace(/^error parsing regexp: /, '');
      return {
        ok: false,
        reason: `the regular expression cannot be used: ${message} (backreferences and lookaround are not supported; matching runs in linear time)`,
      };
    }
  }
  const negate = trimmed.startsWith('!');
  const values = (negate ? trimmed.slice(1) : trimmed).split('|').map((v) => v.trim().toLowerCase());
  if (values.some((v) => v === '')) return { ok: false, reason: 'an alternative is empty (write "a|b", not "a||b" or "a|")' };
  return { ok: true, condition: { kind: 'equals', values, negate } };
}

export function matchesWhen(condition: WhenCondition, value: string): boolean {
  if (condition.kind === 'regex') return condition.regex.matcher(value).find();
  const hit = condition.values.includes(value.trim().toLowerCase());
  return condition.negate ? !hit : hit;
}

/**
 * The value a `when` on an edge out of a node is matched against: its answer, else its output as
 * text; a skipped node finished with no output, so its value is empty whatever its row holds.
 */
export function whenSubject(source: { status?: string; answer?: string | null; output?: string | null }): string {
  if (source.status === 'skipped') return '';
  return source.answer ?? source.output ?? '';
}

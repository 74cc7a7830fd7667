/**
 * Edge conditions: `a -> b [when="..."]` is taken only when the source node's answer (or, for a node
 * without an answer, its output as text) matches. Forms:
 * - `yes`           equals, ignoring case and surrounding white space
 * - `yes|y|ok`      any of the alternatives
 * - `!no`           none of the alternatives (`!no|n`)
 * - `/^appr/i`      a regular expression (JavaScript syntax, flags allowed)
 */
export type WhenCondition =
  | { kind: 'equals'; values: string[]; negate: boolean }
  | { kind: 'regex'; regex: RegExp };

export type WhenParse = { ok: true; condition: WhenCondition } | { ok: false; reason: string };

export function parseWhen(text: string): WhenParse {
  const trimmed = text.trim();
  if (trimmed === '') return { ok: false, reason: 'the condition is empty' };
  const regex = /^\/(.+)\/([a-z]*)$/s.exec(trimmed);
  if (regex) {
    try {
      return { ok: true, condition: { kind: 'regex', regex: new RegExp(regex[1]!, regex[2]) } };
    } catch (error) {
      return { ok: false, reason: `the regular expression does not compile: ${(error as Error).message}` };
    }
  }
  const negate = trimmed.startsWith('!');
  const values = (negate ? trimmed.slice(1) : trimmed).split('|').map((v) => v.trim().toLowerCase());
  if (values.some((v) => v === '')) return { ok: false, reason: 'an alternative is empty (write "a|b", not "a||b" or "a|")' };
  return { ok: true, condition: { kind: 'equals', values, negate } };
}

export function matchesWhen(condition: WhenCondition, value: string): boolean {
  if (condition.kind === 'regex') {
    condition.regex.lastIndex = 0;
    return condition.regex.test(value);
  }
  const hit = condition.values.includes(value.trim().toLowerCase());
  return condition.negate ? !hit : hit;
}

/** The value a `when` on an edge out of a node is matched against. */
export function whenSubject(source: { answer?: string | null; output?: string | null }): string {
  return source.answer ?? source.output ?? '';
}

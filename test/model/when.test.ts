import { describe, expect, it } from 'vitest';
import { matchesWhen, parseWhen, type WhenCondition } from '../../src/model/when.js';
import { validateDot } from '../../src/validate/index.js';

function condition(text: string): WhenCondition {
  const parsed = parseWhen(text);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.condition;
}

describe('when conditions', () => {
  it('match words, alternatives, negations and regular expressions with flags', () => {
    expect(matchesWhen(condition('yes|y'), ' Y ')).toBe(true);
    expect(matchesWhen(condition('!yes|y'), 'no')).toBe(true);
    expect(matchesWhen(condition('/^appr/i'), 'APPROVED')).toBe(true);
    expect(matchesWhen(condition('/ok$/'), 'not ok')).toBe(true);
    expect(matchesWhen(condition('/^a.b$/s'), 'a\nb')).toBe(true);
    expect(matchesWhen(condition('/^a.b$/'), 'a\nb')).toBe(false);
  });

  it('match a catastrophic pattern against a hostile output at once instead of hanging the worker', () => {
    // With a backtracking engine this one call takes minutes (192 s measured before the switch to RE2).
    expect(matchesWhen(condition('/^(a+)+$/'), `${'a'.repeat(34)}b`)).toBe(false);
    expect(matchesWhen(condition('/^(a+)+$/'), 'a'.repeat(34))).toBe(true);
  });

  it('refuse at validation what RE2 cannot compile, naming the edge and the line', () => {
    const result = validateDot(
      'digraph p {\n  a [type=function toolCode=echo status=pending]\n  b [type=function toolCode=echo status=pending]\n  a -> b [when="/(x)\\\\1/"]\n}',
      { tools: { has: () => true, list: () => [] } },
    );
    expect(result.valid).toBe(false);
    const errors = result.diagnostics.filter((d) => d.severity === 'error');
    expect(errors).toMatchObject([{ code: 'WHEN_INVALID', edge: { from: 'a', to: 'b' }, line: 4 }]);
    expect(errors[0]!.message).toMatch(
      /edge "a" -> "b" cannot be read: the regular expression cannot be used: .*backreferences and lookaround are not supported/,
    );
    expect(parseWhen('/(?=x)/')).toMatchObject({ ok: false });
    expect(parseWhen('/x/g')).toMatchObject({ ok: false, reason: 'the flag "g" is not supported (flags: i, s, m)' });
  });
});

/**
 * `when` patterns bounded at validation (issue 14, case 13): RE2 is linear in the value but not in the pattern, so a
 * pattern over the size or repetition limits is refused with WHEN_TOO_COMPLEX naming the edge, while the patterns
 * people write stay valid.
 */
import { describe, expect, it } from 'vitest';
import type { PlanGraph } from '../../src/model/types.js';
import { openRepeats, WHEN_PATTERN_LIMITS } from '../../src/model/when-limits.js';
import { validateGraph } from '../../src/validate/index.js';

const tools = { has: () => true, list: () => [] };

function whenDiagnostics(when: string) {
  const graph: PlanGraph = {
    strict: false,
    attributes: {},
    nodes: ['a', 'b'].map((id) => ({ id, attributes: { type: 'function', status: 'pending', toolCode: 'echo' } })),
    edges: [{ from: 'a', to: 'b', attributes: { when }, location: { line: 4, column: 3 } }],
    clusters: [],
  };
  return validateGraph(graph, { tools }).diagnostics.filter((d) => d.code.startsWith('WHEN_'));
}

describe('when patterns: limits', () => {
  it('refuses /(.*a){1000}/ (31 s on a 150 KB output before) with WHEN_TOO_COMPLEX naming the edge, its line and the fix', () => {
    expect(whenDiagnostics('/(.*a){1000}/')).toEqual([
      {
        code: 'WHEN_TOO_COMPLEX',
        severity: 'error',
        message: expect.stringContaining(
          'when="/(.*a){1000}/" on the edge "a" -> "b" is too complex to match quickly: the regular expression compiles to 5002 instructions',
        ),
        edge: { from: 'a', to: 'b' },
        attribute: 'when',
        line: 4,
        column: 3,
        fix: expect.stringContaining('simplify the pattern'),
      },
    ]);
  });

  it.each(['/a{1000}/', '/(a{100}){10}/', '/(.*a){11}/', '/(\\w+\\s+){6}/', '/(x+y*){5}z+/'])('refuses %s', (when) => {
    expect(whenDiagnostics(when)).toMatchObject([{ code: 'WHEN_TOO_COMPLEX' }]);
  });

  it.each([
    'yes',
    '!no|n',
    '/^appr/i',
    '/\\b(approved|accepted|ok)\\b/i',
    '/^\\d{4}-\\d{2}-\\d{2}$/',
    '/[a-z]{1,100}/',
    '/(.*a){10}/',
    '/.*error.*timeout/s',
    '/(\\w+\\s+){5}/',
    '/^(?:(?:25[0-5]|2[0-4]\\d|1?\\d?\\d)\\.){3}(?:25[0-5]|2[0-4]\\d|1?\\d?\\d)$/',
    '/[{(*+]{3}/',
    '/\\Q(.*a){50}\\E/',
  ])('keeps %s valid', (when) => {
    expect(whenDiagnostics(when)).toEqual([]);
  });

  it('counts unbounded repetitions times the counted ones around them, ignoring what is quoted or in a class', () => {
    expect(WHEN_PATTERN_LIMITS).toEqual({ programSize: 1000, openRepeats: 10 });
    expect(openRepeats('.*a.*b')).toBe(2);
    expect(openRepeats('(.*a){7}')).toBe(7);
    expect(openRepeats('((a+){2}b*){3}')).toBe(9);
    expect(openRepeats('(a*){3,}')).toBe(5);
    expect(openRepeats('[*+]+\\*\\+')).toBe(1);
    expect(openRepeats('a{2,5}b{,3}')).toBe(0);
  });
});

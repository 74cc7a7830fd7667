import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../../src/model/diagnostics.js';
import { validateDot } from '../../src/validate/index.js';

const FIXTURES = join(import.meta.dirname, '../fixtures/dot');
const TOOLS = {
  has: (c: string) => ['echo', 'sleep', 'template', 'json', 'http'].includes(c),
  list: () => ['echo', 'sleep', 'template', 'json', 'http'].map((code) => ({ code })),
};

interface Expectation {
  code: string;
  node?: string;
  line?: number;
  message?: string;
}
const expected = JSON.parse(readFileSync(join(FIXTURES, 'invalid/expected.json'), 'utf8')) as Record<string, Expectation>;

describe('valid fixtures', () => {
  for (const file of readdirSync(join(FIXTURES, 'valid'))) {
    it(`accepts ${file}`, () => {
      const result = validateDot(readFileSync(join(FIXTURES, 'valid', file), 'utf8'), { tools: TOOLS, source: file });
      expect(result.diagnostics.filter((d) => d.severity === 'error').map((d) => formatDiagnostic(d))).toEqual([]);
      expect(result.valid).toBe(true);
      expect(result.graph?.nodes.length).toBeGreaterThan(0);
    });
  }

  it('reads the seed examples with canonical statuses', () => {
    // Example 2 of design note 004 is read as written; it does not validate: its node 1 waits for an
    // answer to an empty question (see invalid/expected.json).
    const result = validateDot(readFileSync(join(FIXTURES, 'invalid/seed-004-example-2.dot'), 'utf8'), { tools: TOOLS });
    expect(result.graph?.nodes.map((n) => [n.id, n.attributes['status']])).toEqual([
      ['1', 'awaiting_input'],
      ['2', 'pending'],
      ['3', 'pending'],
    ]);
    expect(result.graph?.edges.map((e) => `${e.from}->${e.to}`)).toEqual(['1->2', '2->3']);
  });
});

describe('invalid fixtures', () => {
  const files = readdirSync(join(FIXTURES, 'invalid')).filter((f) => f.endsWith('.dot'));

  it('every invalid fixture has an expectation', () => {
    expect(files.sort()).toEqual(Object.keys(expected).sort());
  });

  for (const file of files) {
    const want = expected[file]!;
    it(`rejects ${file} with ${want.code}${want.node ? ` naming node ${want.node}` : ''}`, () => {
      const result = validateDot(readFileSync(join(FIXTURES, 'invalid', file), 'utf8'), { tools: TOOLS, source: file });
      expect(result.valid).toBe(false);
      const found = result.diagnostics.find((d) => d.code === want.code);
      expect(found, JSON.stringify(result.diagnostics)).toBeDefined();
      expect(found!.severity).toBe('error');
      if (want.node !== undefined) expect(found!.node).toBe(want.node);
      if (want.line !== undefined) expect(found!.line).toBe(want.line);
      if (want.message !== undefined) expect(found!.message).toContain(want.message);
      expect(found!.fix).toBeTruthy();
    });
  }
});

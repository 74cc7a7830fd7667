import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PlanGraph } from '../../src/model/types.js';
import { upstreamCheck } from '../../src/validate/context.js';

/** The definition: a path of edges leads from `candidate` to `id` (a walk back from `id`, afresh each time). */
function naive(parents: ReadonlyMap<string, readonly string[]>, candidate: string, id: string): boolean {
  const seen = new Set<string>();
  const stack = [id];
  while (stack.length > 0) {
    for (const parent of parents.get(stack.pop()!) ?? []) {
      if (parent === candidate) return true;
      if (!seen.has(parent)) {
        seen.add(parent);
        stack.push(parent);
      }
    }
  }
  return false;
}

describe('upstream check', () => {
  it('answers exactly as the walk from scratch, for random graphs (cycles and undeclared nodes too) and repeated questions', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.array(fc.tuple(fc.nat(13), fc.nat(13)), { maxLength: 30 }),
        fc.array(fc.tuple(fc.nat(13), fc.nat(13)), { minLength: 1, maxLength: 60 }),
        (n, pairs, questions) => {
          const graph: PlanGraph = {
            strict: false,
            attributes: {},
            nodes: Array.from({ length: n }, (_, i) => ({ id: `n${i}`, attributes: {} })),
            edges: pairs.map(([a, b]) => ({ from: `n${a}`, to: `n${b}`, attributes: {} })),
            clusters: [],
          };
          const parents = new Map<string, string[]>();
          for (const e of graph.edges) parents.set(e.to, [...(parents.get(e.to) ?? []), e.from]);
          const check = upstreamCheck(graph, parents);
          for (const [a, b] of [...questions, ...questions, ...questions]) {
            expect(check(`n${a}`, `n${b}`)).toBe(naive(parents, `n${a}`, `n${b}`));
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('answers exactly as the walk from scratch on larger DAGs (the labels and the pruned walk down), a few back edges too', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 150 }),
        fc.array(fc.tuple(fc.nat(1000), fc.nat(1000), fc.nat(20)), { maxLength: 400 }),
        fc.array(fc.tuple(fc.nat(149), fc.nat(149)), { minLength: 1, maxLength: 200 }),
        (n, raw, questions) => {
          // Mostly forward edges (a DAG), one in twenty backwards (a cycle: the fallback walk).
          const edges = raw.map(([a, b, back]) => {
            const [x, y] = [a % n, b % n];
            const [from, to] = back === 0 ? [Math.max(x, y), Math.min(x, y)] : [Math.min(x, y), Math.max(x, y)];
            return { from: `n${from}`, to: `n${to}`, attributes: {} };
          });
          const graph: PlanGraph = {
            strict: false,
            attributes: {},
            nodes: Array.from({ length: n }, (_, i) => ({ id: `n${i}`, attributes: {} })),
            edges,
            clusters: [],
          };
          const parents = new Map<string, string[]>();
          for (const e of graph.edges) parents.set(e.to, [...(parents.get(e.to) ?? []), e.from]);
          const check = upstreamCheck(graph, parents);
          for (const [a, b] of questions) {
            const [x, y] = [`n${a % n}`, `n${b % n}`];
            expect(check(x, y)).toBe(naive(parents, x, y));
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

/**
 * Validation in near-linear time (issue 14, case 11), asserting what a user sees: N references to unknown nodes give N
 * diagnostics but only the first few guess a "did you mean" (each guess compares with every node id); N unclosed `{{`
 * are text, read in one pass; N declared parameters are checked with a set, and a message lists a few of them, not all
 * N; N nodes only mentioned in edges each name their first edge, found in one pass.
 */
import { describe, expect, it } from 'vitest';
import { parseParamDeclarations } from '../../src/model/params.js';
import { findReferences } from '../../src/model/references.js';
import type { GraphNode, PlanGraph } from '../../src/model/types.js';
import { validateGraph } from '../../src/validate/index.js';
import { SUGGESTION_BUDGET } from '../../src/validate/suggest.js';

const tools = { has: () => true, list: () => [] };
const N = 20_000;
/** Generous: each case takes well under a second now; before, minutes (the first and third) or ~20 s (the second). */
const LINEAR_MS = 20_000;

function graph(nodes: GraphNode[], edges: PlanGraph['edges'] = [], attributes: Record<string, string> = {}): PlanGraph {
  return { strict: false, attributes, nodes, edges, clusters: [] };
}
const fn = (id: string, toolInput: string): GraphNode => ({ id, attributes: { type: 'function', status: 'pending', toolCode: 'echo', toolInput } });

function timed<T>(work: () => T): T {
  const started = performance.now();
  const result = work();
  expect(performance.now() - started).toBeLessThan(LINEAR_MS);
  return result;
}

describe('validation of large bad inputs', () => {
  it(`${N.toLocaleString('en')} references to unknown nodes: one diagnostic each, a guess for the first ${SUGGESTION_BUDGET}`, () => {
    const nodes = Array.from({ length: N }, (_, i) => fn(`n${i}`, `{{nodes.m${i}.output}}`));
    const { diagnostics } = timed(() => validateGraph(graph(nodes), { tools }));
    const unknown = diagnostics.filter((d) => d.code === 'REFERENCE_UNKNOWN_NODE');
    expect(unknown).toHaveLength(N);
    const guessed = unknown.filter((d) => d.fix!.startsWith('did you mean'));
    expect(guessed).toHaveLength(SUGGESTION_BUDGET);
    expect(unknown[0]).toMatchObject({ node: 'n0', fix: 'did you mean "n0"? Otherwise refer to an upstream node\'s id' });
    expect(unknown[N - 1]).toMatchObject({ node: `n${N - 1}`, fix: "refer to an upstream node's id" });
  });

  it('a repeated unknown name keeps its guess past the budget', () => {
    const nodes = Array.from({ length: 100 }, (_, i) => fn(`n${i}`, `{{nodes.m${i}.output}} {{nodes.n_1.output}}`));
    const fixes = validateGraph(graph(nodes), { tools }).diagnostics.filter((d) => d.message.includes('"n_1"'));
    expect(fixes).toHaveLength(100);
    expect(fixes.every((d) => d.fix!.startsWith('did you mean "n1"?'))).toBe(true);
  });

  it('50,000 unclosed {{ are text, read in one pass; a reference after them is still found', () => {
    const open = '{{nodes.a.output '.repeat(50_000);
    expect(timed(() => findReferences(open))).toEqual([]);
    const closed = `${'{{'.repeat(50_000)} {{nodes.a.output}}`;
    expect(findReferences(closed)).toEqual([]); // the first {{ runs to the first }}: one {{...}} that is not a reference
    const text = `${'x {{ '.repeat(3)}}} and {{ nodes.a.output }}`;
    expect(findReferences(text)).toMatchObject([{ kind: 'nodes', node: 'a', field: 'output', raw: '{{ nodes.a.output }}', index: 22 }]);
    const { diagnostics } = timed(() => validateGraph(graph([fn('a', open)]), { tools }));
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });

  it(`${N.toLocaleString('en')} declared parameters: a twice-declared one found, and messages list ten, not all`, () => {
    const names = Array.from({ length: N }, (_, i) => `p${i}`);
    expect(timed(() => parseParamDeclarations([...names, 'p7'].join(',')))).toEqual({ ok: false, reason: 'parameter "p7" is declared twice' });
    const nodes = Array.from({ length: N }, (_, i) => fn(`n${i}`, `{{params.p${i}}} {{params.q${i}}}`));
    const { diagnostics } = timed(() => validateGraph(graph(nodes, [], { params: names.join(',') }), { tools }));
    const undeclared = diagnostics.filter((d) => d.code === 'PARAM_UNDECLARED');
    expect(undeclared).toHaveLength(N);
    expect(undeclared[0]!.message).toBe(
      `{{params.q0}} in toolInput of node "n0" names parameter "q0", which the plan does not declare (declared: p0, p1, p2, p3, p4, p5, p6, p7, p8, p9 and ${N - 10} more)`,
    );
    expect(undeclared[N - 1]!.fix).toBe(`declare it in the graph attribute params: add ",q${N - 1}"`);
  });

  it(`${N.toLocaleString('en')} nodes only mentioned in edges each name their first edge`, () => {
    const nodes: GraphNode[] = [fn('a', 'x'), ...Array.from({ length: N }, (_, i) => ({ id: `u${i}`, attributes: {} }))];
    const edges = Array.from({ length: N }, (_, i) => ({ from: 'a', to: `u${i}`, attributes: {} }));
    const { diagnostics } = timed(() => validateGraph(graph(nodes, edges), { tools }));
    const undeclared = diagnostics.filter((d) => d.code === 'NODE_UNDECLARED');
    expect(undeclared).toHaveLength(N);
    expect(undeclared[N - 1]!.message).toBe(
      `node "u${N - 1}" is only mentioned (in the edge "a" -> "u${N - 1}") and never declared with attributes, so it has no type or status`,
    );
  });
});

/**
 * Hand edits over random plans, on the suite's backend (SPEC §9): a random plan runs part way;
 * a random edit that touches only what has not run is applied and the stored plan is then exactly
 * the edited one (diff applied to the plan gives the edit); the same edit with one forbidden change
 * added (rewriting a done node's output or input, removing a node that has run, a new edge into it)
 * is refused whole and changes no row.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDot, writeDot } from '../../src/dot/index.js';
import { authoredAttributes } from '../../src/engine/initial-state.js';
import type { GraphNode, PlanGraph } from '../../src/model/types.js';
import { withoutBase } from '../../src/revisions/edit-file.js';
import { testBackend } from '../support/db.js';
import { openHarness, type Harness } from './harness.js';

interface Recipe {
  size: number;
  edges: boolean[];
  steps: number;
  inputs: Array<{ node: number; value: string }>;
  added: Array<{ at: number; from: number[]; to: number[] }>;
  removedEdges: number[];
  removedNodes: number[];
  forbidden: { kind: 'output' | 'input' | 'remove' | 'edge-into'; pick: number };
}

const recipe: fc.Arbitrary<Recipe> = fc.record({
  size: fc.integer({ min: 3, max: 7 }),
  edges: fc.array(fc.boolean(), { minLength: 21, maxLength: 21 }),
  steps: fc.integer({ min: 1, max: 5 }),
  inputs: fc.array(fc.record({ node: fc.nat(), value: fc.string({ maxLength: 6 }) }), { maxLength: 3 }),
  added: fc.array(fc.record({ at: fc.nat(), from: fc.array(fc.nat(), { maxLength: 2 }), to: fc.array(fc.nat(), { maxLength: 2 }) }), { maxLength: 2 }),
  removedEdges: fc.array(fc.nat(), { maxLength: 2 }),
  removedNodes: fc.array(fc.nat(), { maxLength: 1 }),
  forbidden: fc.record({ kind: fc.constantFrom('output', 'input', 'remove', 'edge-into'), pick: fc.nat() }),
});

/** A chain-ordered DAG n0..n{size-1}: an edge i -> j (i < j) where the recipe says so. */
function planOf(r: Recipe): string {
  const nodes = Array.from({ length: r.size }, (_, i) => `  n${i} [type=function toolCode=echo toolInput="in ${i}"]`);
  const edges: string[] = [];
  let k = 0;
  for (let i = 0; i < r.size; i++) for (let j = i + 1; j < r.size; j++) if (r.edges[k++ % r.edges.length]) edges.push(`  n${i} -> n${j}`);
  return `digraph random {\n  mode=workflow\n${nodes.join('\n')}\n${edges.join('\n')}\n}`;
}

const pick = <T>(items: readonly T[], n: number): T | undefined => (items.length === 0 ? undefined : items[n % items.length]);

/** The edit the recipe makes of the shown plan: only nodes that have not started are touched, so the operator may make all of it. */
function allowedEdit(shown: PlanGraph, r: Recipe): PlanGraph {
  const open = (n: GraphNode) => ['pending', 'ready'].includes(n.attributes.status ?? '');
  const order = shown.nodes.map((n) => n.id);
  let nodes = shown.nodes.map((n) => ({ ...n, attributes: { ...n.attributes } }));
  let edges = [...shown.edges];
  for (const { node, value } of r.inputs) {
    const target = pick(nodes.filter(open), node);
    if (target) target.attributes.toolInput = value;
  }
  r.added.forEach((add, i) => {
    const id = `x${i}`;
    const at = add.at % (order.length + 1); // sources before it, targets (not started) after it: no cycle
    nodes.push({ id, attributes: { type: 'function', toolCode: 'echo', toolInput: `new ${i}`, status: 'pending' } });
    for (const f of new Set(add.from.map((n) => order[n % Math.max(at, 1)]).filter((s): s is string => s !== undefined && at > 0)))
      edges.push({ from: f, to: id, attributes: {} });
    const later = nodes.filter((n) => order.indexOf(n.id) >= at && open(n) && n.attributes.status === 'pending');
    for (const t of new Set(add.to.map((n) => pick(later, n)?.id).filter((t): t is string => t !== undefined))) edges.push({ from: id, to: t, attributes: {} });
  });
  for (const n of r.removedEdges) {
    const into = edges.filter((e) => nodes.find((x) => x.id === e.to)?.attributes.status === 'pending');
    const gone = pick(into, n);
    if (gone) edges = edges.filter((e) => e !== gone);
  }
  for (const n of r.removedNodes) {
    const gone = pick(
      nodes.filter((x) => x.attributes.status === 'pending' && !x.id.startsWith('x')),
      n,
    );
    if (!gone) continue;
    nodes = nodes.filter((x) => x !== gone);
    edges = edges.filter((e) => e.from !== gone.id && e.to !== gone.id);
  }
  return { ...shown, nodes, edges };
}

/** The same edit with one change nobody may make to a node that has run. */
function forbiddenEdit(edit: PlanGraph, r: Recipe): PlanGraph | undefined {
  const done = pick(
    edit.nodes.filter((n) => n.attributes.status === 'done'),
    r.forbidden.pick,
  );
  if (!done) return undefined;
  const touch = (f: (n: GraphNode) => GraphNode) => ({ ...edit, nodes: edit.nodes.map((n) => (n === done ? f(n) : n)) });
  switch (r.forbidden.kind) {
    case 'output':
      return touch((n) => ({ ...n, attributes: { ...n.attributes, toolOutput: `${n.attributes.toolOutput ?? ''} forged` } }));
    case 'input':
      return touch((n) => ({ ...n, attributes: { ...n.attributes, toolInput: 'rewritten' } }));
    case 'remove':
      return { ...edit, nodes: edit.nodes.filter((n) => n !== done), edges: edit.edges.filter((e) => e.from !== done.id && e.to !== done.id) };
    case 'edge-into': {
      const source = edit.nodes.find((n) => n.id !== done.id && !edit.edges.some((e) => e.from === n.id && e.to === done.id) && n.id < done.id);
      return source ? { ...edit, edges: [...edit.edges, { from: source.id, to: done.id, attributes: {} }] } : undefined;
    }
  }
}

/** What must be equal: nodes with their authored attributes (and the live fields of those that ran), the edges. */
function structure(g: PlanGraph) {
  return {
    nodes: g.nodes
      .map((n) => {
        const ran = !['pending', 'ready'].includes(n.attributes.status ?? 'pending');
        return { id: n.id, attributes: ran ? n.attributes : authoredAttributes(n.attributes) };
      })
      .sort((a, b) => a.id.localeCompare(b.id)),
    edges: g.edges.map((e) => `${e.from}->${e.to}`).sort(),
  };
}

describe(`hand edits of random running plans (${testBackend()})`, () => {
  let h: Harness;
  beforeAll(async () => {
    h = await openHarness(testBackend());
  });
  afterAll(async () => {
    await h?.close();
  });

  const everything = async (id: string) => ({
    plan: await h.store.plans.get(id),
    nodes: await h.store.plans.nodes(id),
    edges: await h.store.plans.edges(id),
    revisions: await h.store.plans.revisions(id),
    events: await h.store.events.list(id),
  });

  it('applies an edit of what has not run exactly as written, and refuses the same edit with a forbidden change without changing a row', async () => {
    let refusals = 0;
    let applied = 0;
    await fc.assert(
      fc.asyncProperty(recipe, async (r) => {
        const plan = await h.ops.create({ dot: planOf(r), source: 'random.dot' });
        for (let i = 0; i < r.steps; i++) {
          const ready = (await h.store.plans.nodes(plan.id)).find((n) => n.status === 'ready');
          if (!ready) break;
          await h.finish(await h.claim(plan.id, ready.id), { kind: 'done', output: `out ${ready.id}` });
        }
        const shown = readDot(await h.ops.show(plan.id));
        const edit = allowedEdit(shown, r);

        const forbidden = forbiddenEdit(edit, r);
        if (forbidden) {
          const before = await everything(plan.id);
          const refused = await h.ops.apply(plan.id, writeDot(forbidden));
          expect(refused.applied).toBe(false);
          expect(refused.conflicts.length + refused.diagnostics.length).toBeGreaterThan(0);
          expect(await everything(plan.id)).toEqual(before);
          refusals++;
        }

        const report = await h.ops.apply(plan.id, writeDot(edit));
        expect(report.conflicts).toEqual([]);
        expect(report.diagnostics).toEqual([]);
        expect(report.applied).toBe(report.changes.length > 0);
        if (report.applied) applied++;
        const stored = readDot(await h.ops.show(plan.id));
        expect(structure({ ...stored, attributes: withoutBase(stored.attributes) })).toEqual(structure(edit));
        if ((await h.store.plans.get(plan.id)).status === 'running') await h.ops.cancel(plan.id); // nothing left to claim for the next plan
      }),
      { numRuns: 40 },
    );
    expect(refusals).toBeGreaterThan(10); // the refusal half really ran
    expect(applied).toBeGreaterThan(20); // and most edits changed something
  });
});

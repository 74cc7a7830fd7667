/**
 * "A live field that an edit or a reply leaves out is kept" (SPEC §9), as a property on the suite's
 * backend: a random plan runs part way — nodes done with outputs, failed with errors, answered,
 * waiting for an answer, skipped by hand, ready, pending — and the plan as `plan show` writes it,
 * with a random choice of `status`, `toolOutput`, `answer` and `error` deleted from random nodes,
 * comes back as a revision by the operator, a person or the LLM: it is never refused and changes
 * nothing (no revision, no row, no event); with a label changed as well, that label is the one
 * change. When the plan moved on after the file was written, what moved stays as it moved.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDot, writeDot } from '../../src/dot/index.js';
import type { PlanGraph } from '../../src/model/types.js';
import { applyRevision } from '../../src/operations/apply-revision.js';
import type { RevisionDriver } from '../../src/revisions/rights.js';
import { testBackend } from '../support/db.js';
import { openHarness, type Harness } from './harness.js';

const LIVE = ['status', 'toolOutput', 'answer', 'error'] as const;

interface Recipe {
  kinds: Array<'function' | 'confirm'>;
  edges: boolean[];
  /** What happens to each ready node met, in turn: done, failed, asked (then maybe answered), skipped by hand. */
  runs: Array<'done' | 'failed' | 'ask' | 'answer' | 'skip'>;
  /** Per node, which live fields the edit deletes (bit i: LIVE[i]). */
  dropped: number[];
  /** Keep `revision`/`asOfEvent` in the file (merged three-way), or delete them (taken against the latest). */
  keepBase: boolean;
  /** After the file is written, the plan moves on before the edit comes back (with the base kept: a file without one is taken as written). */
  movesOn: boolean;
  driver: RevisionDriver;
  /** A label changed too (on the node picked by this number), or none. */
  relabel: number | null;
}

const recipe: fc.Arbitrary<Recipe> = fc.record({
  kinds: fc.array(fc.constantFrom('function' as const, 'confirm' as const), { minLength: 2, maxLength: 6 }),
  edges: fc.array(fc.boolean(), { minLength: 15, maxLength: 15 }),
  runs: fc.array(fc.constantFrom('done' as const, 'failed' as const, 'ask' as const, 'answer' as const, 'skip' as const), { maxLength: 8 }),
  dropped: fc.array(fc.nat({ max: 15 }), { minLength: 6, maxLength: 6 }),
  keepBase: fc.boolean(),
  movesOn: fc.constantFrom(true, true, false),
  driver: fc.constantFrom('operator' as const, 'person' as const, 'llm' as const),
  relabel: fc.option(fc.nat(), { nil: null }),
});

/** n0..n{k-1}, edges i -> j (i < j) where the recipe says so; failures do not stop the other branches. */
function planOf(r: Recipe): string {
  const nodes = r.kinds.map((kind, i) =>
    kind === 'confirm' ? `  n${i} [type=confirm question="go on with ${i}?"]` : `  n${i} [type=function toolCode=echo toolInput="in ${i}"]`,
  );
  const edges: string[] = [];
  let k = 0;
  for (let i = 0; i < r.kinds.length; i++) for (let j = i + 1; j < r.kinds.length; j++) if (r.edges[k++ % r.edges.length]) edges.push(`  n${i} -> n${j}`);
  return `digraph random {\n  mode=workflow\n  onFailure=continue\n  node [status=pending]\n${nodes.join('\n')}\n${edges.join('\n')}\n}`;
}

/** The shown plan with the recipe's live fields deleted, and maybe one label changed. */
function editOf(shown: PlanGraph, r: Recipe): PlanGraph {
  const relabel = r.relabel === null ? undefined : shown.nodes[r.relabel % shown.nodes.length]?.id;
  const attributes = r.keepBase
    ? shown.attributes
    : Object.fromEntries(Object.entries(shown.attributes).filter(([k]) => k !== 'revision' && k !== 'asOfEvent'));
  return {
    ...shown,
    attributes,
    nodes: shown.nodes.map((node, i) => {
      const a = { ...node.attributes };
      LIVE.forEach((key, bit) => {
        if ((r.dropped[i % r.dropped.length]! >> bit) & 1) delete a[key];
      });
      if (node.id === relabel) a.label = `relabelled ${node.id}`;
      return { ...node, attributes: a };
    }),
  };
}

describe(`an edit that leaves live fields out changes nothing (${testBackend()})`, () => {
  let h: Harness;
  beforeAll(async () => {
    h = await openHarness(testBackend());
  });
  afterAll(async () => {
    await h?.close();
  });

  const state = async (id: string) => ({
    plan: await h.store.plans.get(id),
    nodes: await h.store.plans.nodes(id),
    edges: await h.store.plans.edges(id),
    revisions: await h.store.plans.revisions(id),
    events: await h.store.events.list(id),
  });

  /** Runs the plan's ready nodes as the recipe says, one at a time. */
  async function run(planId: string, runs: Recipe['runs']): Promise<void> {
    for (const what of runs) {
      const nodes = await h.store.plans.nodes(planId);
      const waiting = nodes.find((n) => n.status === 'awaiting_input');
      if (what === 'answer' && waiting) {
        await h.ops.answer(planId, waiting.id, `yes ${waiting.id}`, { by: 'someone' });
        continue;
      }
      const ready = nodes.find((n) => n.status === 'ready');
      if (!ready) return;
      if (what === 'skip') {
        await h.ops.skip(planId, ready.id, { by: 'ops' });
        continue;
      }
      const claim = await h.claim(planId, ready.id);
      if (ready.type === 'confirm') await h.finish(claim, { kind: 'asked' });
      else if (what === 'failed') await h.finish(claim, { kind: 'failed', error: `boom ${ready.id}`, retryable: false });
      else await h.finish(claim, { kind: 'done', output: `out ${ready.id}` });
    }
  }

  it('is never refused, and only a changed label changes the plan', async () => {
    let dropped = 0;
    let merged = 0;
    await fc.assert(
      fc.asyncProperty(recipe, async (r) => {
        const plan = await h.ops.create({ dot: planOf(r), source: 'random.dot' });
        await run(plan.id, r.runs);
        const shown = readDot(await h.ops.show(plan.id));
        const edit = editOf(shown, r);
        if (r.movesOn && r.keepBase) await run(plan.id, ['answer']); // a waiting node answered, or a ready one run
        const before = await state(plan.id);
        if (before.events.at(-1)!.id > Number(shown.attributes.asOfEvent) && r.keepBase) merged++;

        // Only an operator revises a plan that has ended (the others are refused as PLAN_CLOSED, whatever they leave out).
        const driver = ['completed', 'failed'].includes(before.plan.status) ? 'operator' : r.driver;
        const report = await applyRevision(h.ops, plan.id, writeDot(edit), { by: { driver, name: 'editor' }, source: 'edit.dot' });
        expect(report.conflicts).toEqual([]);
        expect(report.diagnostics).toEqual([]);
        const relabelled = edit.nodes.filter((n) => n.attributes.label !== undefined).map((n) => n.id);
        expect(report.changes.map((c) => [c.kind, 'node' in c ? c.node : undefined, 'attribute' in c ? c.attribute : undefined])).toEqual(
          relabelled.map((node) => ['node-attribute', node, 'label']),
        );
        const after = await state(plan.id);
        if (relabelled.length === 0) expect(after).toEqual(before);
        else {
          // The label is the one change: the nodes' live state, the edges and the moves are as they were.
          const live = (s: typeof before) =>
            s.nodes.map(({ id, status, output, answer, error, attempts }) => ({ id, status, output, answer, error, attempts }));
          expect(live(after)).toEqual(live(before));
          expect(after.edges).toEqual(before.edges);
          expect(after.plan.status).toBe(before.plan.status);
          expect(after.events.filter((e) => e.kind === 'status')).toEqual(before.events.filter((e) => e.kind === 'status'));
        }
        if (edit.nodes.some((n, i) => n.attributes.status === undefined && shown.nodes[i]!.attributes.status !== 'pending')) dropped++;
        if (after.plan.status === 'running') await h.ops.cancel(plan.id); // nothing left to claim for the next plan
      }),
      { numRuns: 40 },
    );
    expect(dropped).toBeGreaterThan(10); // edits really left out statuses of nodes that had moved
    expect(merged).toBeGreaterThan(2); // and some were merged three-way after the plan moved on
  });
});

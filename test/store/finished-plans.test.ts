/**
 * Revisions of plans that have ended (issue 13, item 5), on every backend: an operator's revision
 * that gives a completed or failed plan something to run reopens it — the plan runs again in the
 * same transaction, an event names who reopened it and by which revision, the new work runs as in
 * any running plan (a reflection plan's LLM is asked) — while one that leaves nothing to run keeps
 * the plan as it is. A cancelled or rejected plan refuses every revision, naming its status and
 * `plan rerun`, and nothing of it changes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conclude } from '../../src/engine/index.js';
import { readDot, writeDot } from '../../src/dot/index.js';
import type { GraphNode, PlanGraph } from '../../src/model/types.js';
import { applyRevision } from '../../src/operations/apply-revision.js';
import { testBackend } from '../support/db.js';
import { openHarness, type Harness } from './harness.js';

const CHAIN = `digraph finished {
  mode="workflow"
  node [type=function status=pending toolCode=echo]
  a [toolInput="A"]
  b [toolInput="B"]
  c [toolInput="C"]
  a -> b -> c
}`;

const node = (id: string, attributes: Record<string, string>): GraphNode => ({ id, attributes: { type: 'function', toolCode: 'echo', ...attributes } });

describe(`revisions of plans that have ended (${testBackend()})`, () => {
  let h: Harness;
  beforeAll(async () => {
    h = await openHarness(testBackend());
  });
  afterAll(async () => {
    await h?.close();
  });

  async function everything(id: string) {
    return {
      plan: await h.store.plans.get(id),
      nodes: await h.store.plans.nodes(id),
      edges: await h.store.plans.edges(id),
      revisions: await h.store.plans.revisions(id),
      events: await h.store.events.list(id),
    };
  }

  const shown = async (id: string): Promise<PlanGraph> => readDot(await h.ops.show(id));
  const planMoves = async (id: string) =>
    (await h.store.events.list(id, { kind: 'status' })).filter((e) => e.nodeId === undefined).map((e) => ({ ...e, at: undefined, id: undefined }));

  it('reopens a completed plan for a new node: the plan runs again, an event names who and which revision, and it completes with the node run', async () => {
    const plan = await h.ops.create({ dot: CHAIN, source: 'finished.dot' });
    await h.runReady(plan.id);
    expect((await h.store.plans.get(plan.id)).status).toBe('completed');

    const graph = await shown(plan.id);
    const edited = { ...graph, nodes: [...graph.nodes, node('d', { toolInput: 'D' })], edges: [...graph.edges, { from: 'c', to: 'd', attributes: {} }] };
    const report = await h.ops.apply(plan.id, writeDot(edited), { by: 'ops' });
    expect(report).toMatchObject({ applied: true, revision: 2, diagnostics: [], conflicts: [] });
    expect(await h.statuses(plan.id)).toEqual({ a: 'done', b: 'done', c: 'done', d: 'ready' });
    expect((await h.store.plans.get(plan.id)).status).toBe('running');
    expect((await planMoves(plan.id)).at(-1)).toMatchObject({
      driver: 'operator',
      actor: 'ops',
      from: 'completed',
      to: 'running',
      reason: 'reopened by ops in revision 2: it gives the plan something to run',
    });

    await h.runReady(plan.id);
    expect(await h.statuses(plan.id)).toEqual({ a: 'done', b: 'done', c: 'done', d: 'done' });
    expect((await h.store.plans.get(plan.id)).status).toBe('completed');
  });

  it('keeps a completed plan completed for a revision that leaves nothing to run (a label, a node added as skipped)', async () => {
    const plan = await h.ops.create({ dot: CHAIN, source: 'finished.dot' });
    await h.runReady(plan.id);
    const graph = await shown(plan.id);
    const relabelled = {
      ...graph,
      nodes: [...graph.nodes.map((n) => (n.id === 'b' ? { ...n, attributes: { ...n.attributes, label: 'Bee' } } : n)), node('z', { status: 'skipped' })],
    };
    expect(await h.ops.apply(plan.id, writeDot(relabelled))).toMatchObject({ applied: true, revision: 2 });
    expect((await h.store.plans.get(plan.id)).status).toBe('completed');
    expect((await planMoves(plan.id)).map((e) => e.to)).toEqual(['draft', 'running', 'completed']); // no move by the revision
    // Only an operator changes a plan that has ended: an LLM reply or a reviewer's change is refused.
    for (const driver of ['llm', 'person'] as const) {
      const refused = await applyRevision(h.ops, plan.id, writeDot({ ...graph, nodes: [...graph.nodes, node('y', {})] }), {
        by: { driver },
        source: 'late.dot',
      });
      expect(refused.diagnostics).toEqual([
        expect.objectContaining({ code: 'PLAN_CLOSED', message: expect.stringContaining("is completed: only an operator's revision") as unknown }),
      ]);
    }
  });

  it('reopens a failed plan for a new node; skipping the failed node in the same revision lets the nodes behind it run and the plan complete', async () => {
    const plan = await h.ops.create({ dot: CHAIN, source: 'finished.dot' });
    await h.finish(await h.claim(plan.id, 'a'), { kind: 'done', output: 'A' });
    await h.finish(await h.claim(plan.id, 'b'), { kind: 'failed', error: 'boom', retryable: false });
    expect(await h.store.plans.get(plan.id)).toMatchObject({ status: 'failed', error: 'node "b" failed: boom' });

    const graph = await shown(plan.id);
    const edited = {
      ...graph,
      nodes: [
        ...graph.nodes.map((n) => (n.id === 'b' ? { ...n, attributes: { ...n.attributes, status: 'skipped' } } : n)),
        node('b2', { toolInput: 'B again' }),
      ],
      edges: [...graph.edges, { from: 'a', to: 'b2', attributes: {} }, { from: 'b2', to: 'c', attributes: {} }],
    };
    expect(await h.ops.apply(plan.id, writeDot(edited), { by: 'ops' })).toMatchObject({ applied: true });
    expect(await h.store.plans.get(plan.id)).toMatchObject({ status: 'running' });
    expect((await h.store.plans.get(plan.id)).error).toBeUndefined();
    expect(await h.statuses(plan.id)).toEqual({ a: 'done', b: 'skipped', c: 'pending', b2: 'ready' });
    await h.runReady(plan.id);
    expect(await h.statuses(plan.id)).toEqual({ a: 'done', b: 'skipped', c: 'done', b2: 'done' });
    expect((await h.store.plans.get(plan.id)).status).toBe('completed');
  });

  it('reopens a failed plan for a move alone, as node retry and node skip do: status="skipped" on the failed node lets the nodes behind it run', async () => {
    const continuing = CHAIN.replace('mode="workflow"', 'mode="workflow"\n  onFailure="continue"');
    const viaApply = await h.ops.create({ dot: continuing, source: 'finished.dot' });
    const viaSkip = await h.ops.create({ dot: continuing, source: 'finished.dot' });
    for (const plan of [viaApply, viaSkip]) {
      await h.finish(await h.claim(plan.id, 'a'), { kind: 'done', output: 'A' });
      await h.finish(await h.claim(plan.id, 'b'), { kind: 'failed', error: 'boom', retryable: false });
      expect(await h.statuses(plan.id)).toEqual({ a: 'done', b: 'failed', c: 'skipped' });
      expect((await h.store.plans.get(plan.id)).status).toBe('failed');
    }
    const graph = await shown(viaApply.id);
    const skipped = { ...graph, nodes: graph.nodes.map((n) => (n.id === 'b' ? { ...n, attributes: { ...n.attributes, status: 'skipped' } } : n)) };
    expect(await h.ops.apply(viaApply.id, writeDot(skipped), { by: 'ops' })).toMatchObject({ applied: true });
    await h.ops.skip(viaSkip.id, 'b', { by: 'ops' });
    for (const plan of [viaApply, viaSkip]) {
      expect(await h.store.plans.get(plan.id)).toMatchObject({ status: 'running' });
      expect(await h.statuses(plan.id)).toEqual({ a: 'done', b: 'skipped', c: 'ready' });
      await h.runReady(plan.id);
      expect(await h.statuses(plan.id)).toEqual({ a: 'done', b: 'skipped', c: 'done' });
      expect((await h.store.plans.get(plan.id)).status).toBe('completed');
    }
  });

  it('asks the LLM again when a completed reflection plan is reopened', async () => {
    const plan = await h.ops.create({
      dot: `digraph r {\n  mode="reflection"\n  goal="g"\n  a [type=function toolCode=echo toolInput="A" status=pending]\n}`,
      source: 'r.dot',
    });
    const ready = await applyRevision(h.ops, plan.id, writeDot({ ...(await shown(plan.id)), nodes: [node('a', { toolInput: 'A', status: 'ready' })] }), {
      by: { driver: 'llm', name: 'model' },
      source: 'the reply',
    });
    expect(ready.applied).toBe(true);
    await h.runReady(plan.id);
    await h.store.plans.change(plan.id, {}, (snapshot) => conclude(snapshot, 'completed', 'the LLM wrote the final answer'));
    const due = await h.store.llm.due(plan.id);

    const graph = await shown(plan.id);
    const report = await h.ops.apply(plan.id, writeDot({ ...graph, nodes: [...graph.nodes, node('b', { toolInput: 'B' })] }), { by: 'ops' });
    expect(report.applied).toBe(true);
    expect(await h.store.plans.get(plan.id)).toMatchObject({ status: 'running' });
    expect(await h.statuses(plan.id)).toEqual({ a: 'done', b: 'pending' }); // the LLM decides what runs
    expect(await h.store.llm.due(plan.id)).toBe(due + 1);
  });

  it('refuses every revision of a cancelled or rejected plan, naming its status and plan rerun; nothing changes', async () => {
    const cancelled = await h.ops.create({ dot: CHAIN, source: 'finished.dot' });
    await h.ops.cancel(cancelled.id);
    const rejected = await h.ops.create({ dot: CHAIN, source: 'finished.dot' }, { review: true });
    await h.ops.reject(rejected.id, { reason: 'no' });
    for (const [id, status] of [
      [cancelled.id, 'cancelled'],
      [rejected.id, 'rejected'],
    ] as const) {
      const before = await everything(id);
      const graph = await shown(id);
      for (const driver of ['operator', 'person', 'llm'] as const) {
        const report = await applyRevision(h.ops, id, writeDot({ ...graph, nodes: [...graph.nodes, node('d', { toolInput: 'D' })] }), {
          by: { driver, name: 'someone' },
          source: 'edit.dot',
        });
        expect(report).toMatchObject({ applied: false, revision: null, changes: [], conflicts: [] });
        expect(report.diagnostics).toEqual([
          expect.objectContaining({
            code: 'PLAN_CLOSED',
            severity: 'error',
            message: `plan ${id} is ${status}: a ${status} plan takes no revision`,
            fix: `run it again as a new plan: dotplan plan rerun ${id}`,
          }),
        ]);
      }
      expect(await everything(id)).toEqual(before);
    }
  });
});

/**
 * Hand edits through the revision path (SPEC §9), on every backend: an edit applies whole as a new
 * revision — nodes and edges follow it, the moves it asks for are made, the plan runs on — or is
 * refused whole, leaving every row as it was.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDot, writeDot } from '../../src/dot/index.js';
import type { PlanGraph } from '../../src/model/types.js';
import type { TestBackend } from '../support/db.js';
import { openHarness, type Harness } from './harness.js';

const CHAIN = `digraph edit {
  mode="workflow"
  node [type=function status=pending toolCode=echo]
  a [toolInput="A"]
  b [toolInput="B"]
  c [toolInput="old"]
  a -> b -> c
}`;

export function revisionsSuite(backend: TestBackend): void {
  let h: Harness;
  beforeAll(async () => {
    h = await openHarness(backend);
  });
  afterAll(async () => {
    await h?.close();
  });

  /** A running chain a -> b -> c where a is done and b failed (so the plan failed), and its shown DOT as a graph. */
  async function failedChain(): Promise<{ id: string; shown: PlanGraph }> {
    const plan = await h.ops.create({ dot: CHAIN, source: 'edit.dot' });
    await h.finish(await h.claim(plan.id, 'a'), { kind: 'done', output: 'A out' });
    await h.finish(await h.claim(plan.id, 'b'), { kind: 'failed', error: 'boom', retryable: false });
    return { id: plan.id, shown: readDot(await h.ops.show(plan.id)) };
  }

  /** Every row an edit could touch, to compare before and after a refusal. */
  async function everything(id: string) {
    return {
      plan: await h.store.plans.get(id),
      nodes: await h.store.plans.nodes(id),
      edges: await h.store.plans.edges(id),
      revisions: await h.store.plans.revisions(id),
      events: await h.store.events.list(id),
    };
  }

  describe(`hand edits on ${backend}`, () => {
    it('inserts a node, changes a pending input and retries the failed node in one apply; the plan runs to the end with them', async () => {
      const { id, shown } = await failedChain();
      const edited: PlanGraph = {
        ...shown,
        nodes: [
          ...shown.nodes.map((n) =>
            n.id === 'b'
              ? { ...n, attributes: { ...n.attributes, status: 'ready' } }
              : n.id === 'c'
                ? { ...n, attributes: { ...n.attributes, toolInput: 'new' } }
                : n,
          ),
          { id: 'n', attributes: { type: 'function', status: 'pending', toolCode: 'echo', toolInput: 'inserted' } },
        ],
        edges: [
          { from: 'a', to: 'b', attributes: {} },
          { from: 'b', to: 'n', attributes: {} },
          { from: 'n', to: 'c', attributes: {} },
        ],
      };
      const report = await h.ops.apply(id, writeDot(edited), { by: 'ops' });
      expect(report).toMatchObject({ applied: true, revision: 2, conflicts: [], diagnostics: [] });
      expect(report.changes.map((c) => c.kind)).toEqual(['node-attribute', 'node-attribute', 'node-added', 'edge-added', 'edge-added', 'edge-removed']);
      expect(await h.statuses(id)).toEqual({ a: 'done', b: 'ready', c: 'pending', n: 'pending' });
      expect((await h.store.plans.get(id)).status).toBe('running');
      expect((await h.store.plans.node(id, 'c')).attributes.toolInput).toBe('new');
      expect((await h.store.plans.revisions(id)).map((r) => [r.number, r.parent ?? null, r.author])).toEqual([
        [1, null, 'person'],
        [2, 1, 'operator'],
      ]);
      await h.runReady(id);
      expect(await h.statuses(id)).toEqual({ a: 'done', b: 'done', c: 'done', n: 'done' });
      expect((await h.store.plans.get(id)).status).toBe('completed');
      const events = await h.store.events.list(id);
      expect(events.filter((e) => e.kind === 'revision').map((e) => e.reason)).toEqual(
        expect.arrayContaining(['hand edit by ops', 'node n added', 'edge b -> n added', 'node c: toolInput changed']),
      );
      expect(events.find((e) => e.nodeId === 'b' && e.from === 'failed')).toMatchObject({ to: 'ready', driver: 'operator', actor: 'ops' });
      // Going back to revision 1 would un-run `n` and rewrite a done node: refused, nothing changes.
      const before = await everything(id);
      const back = await h.ops.revert(id, 1);
      expect(back.applied).toBe(false);
      expect(back.conflicts).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ code: 'NODE_REMOVE_RUN', node: 'n' }),
          expect.objectContaining({ node: 'c', attribute: 'toolInput' }),
        ]),
      );
      expect(await everything(id)).toEqual(before);
    });

    it("refuses an edit of a done node's output, naming node and attribute, and leaves every row as it was", async () => {
      const { id, shown } = await failedChain();
      const before = await everything(id);
      const edited = { ...shown, nodes: shown.nodes.map((n) => (n.id === 'a' ? { ...n, attributes: { ...n.attributes, toolOutput: 'forged' } } : n)) };
      const report = await h.ops.apply(id, writeDot(edited), { by: 'ops' });
      expect(report).toMatchObject({ applied: false, revision: null, conflicts: [{ code: 'NODE_HISTORY', node: 'a', attribute: 'toolOutput' }] });
      expect(await everything(id)).toEqual(before);
    });

    it('says "no change" for the plan as shown, and refuses an invalid edit with its diagnostics', async () => {
      const { id, shown } = await failedChain();
      expect(await h.ops.apply(id, writeDot(shown))).toMatchObject({ applied: false, changes: [], conflicts: [] });
      const cyclic = { ...shown, edges: [...shown.edges, { from: 'c', to: 'a', attributes: {} }] };
      const report = await h.ops.apply(id, writeDot(cyclic));
      expect(report.applied).toBe(false);
      expect(report.diagnostics.map((d) => d.code)).toContain('CYCLE');
    });
  });
}

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

    it('a node added behind a running node waits for it: the finish that follows sees the edge, though its claim came before the revision', async () => {
      const plan = await h.ops.create({ dot: CHAIN, source: 'edit.dot' });
      const a = await h.claim(plan.id, 'a'); // a runs; its claim saw no edge to d
      const shown = readDot(await h.ops.show(plan.id));
      const edited: PlanGraph = {
        ...shown,
        nodes: [...shown.nodes, { id: 'd', attributes: { type: 'function', toolCode: 'echo', toolInput: 'D' } }],
        edges: [...shown.edges, { from: 'a', to: 'd', attributes: {} }],
      };
      expect(await h.ops.apply(plan.id, writeDot(edited), { by: 'ops' })).toMatchObject({ applied: true });
      expect(await h.store.plans.node(plan.id, 'd')).toMatchObject({ status: 'pending', waiting: 1, taken: 0 });
      await h.finish(a, { kind: 'done', output: 'A out' });
      expect(await h.store.plans.node(plan.id, 'd')).toMatchObject({ status: 'ready', waiting: 0, taken: 1 });
      expect(await h.statuses(plan.id)).toEqual({ a: 'done', b: 'ready', c: 'pending', d: 'ready' });
    });

    it("refuses an edit of a done node's output, naming node and attribute, and leaves every row as it was", async () => {
      const { id, shown } = await failedChain();
      const before = await everything(id);
      const edited = { ...shown, nodes: shown.nodes.map((n) => (n.id === 'a' ? { ...n, attributes: { ...n.attributes, toolOutput: 'forged' } } : n)) };
      const report = await h.ops.apply(id, writeDot(edited), { by: 'ops' });
      expect(report).toMatchObject({ applied: false, revision: null, conflicts: [{ code: 'NODE_HISTORY', node: 'a', attribute: 'toolOutput' }] });
      expect(await everything(id)).toEqual(before);
    });

    it('merges a second edit made from the same revision when it touches nothing the first changed; refuses it, naming the conflict, when it does', async () => {
      const plan = await h.ops.create({ dot: `// Chain for the merge test\n${CHAIN}`, source: 'edit.dot' });
      const shown = await h.ops.show(plan.id);
      expect(shown).toMatch(/^\/\/ Chain for the merge test$/m); // the authored comment block is kept
      const edit = (text: string, node: string, value: string) => text.replace(new RegExp(`(\\b${node} \\[[^\\n]*toolInput=)"[^"]*"`), `$1"${value}"`);

      // Two operators open revision 1; the first changes c's input, and a runs meanwhile.
      expect(await h.ops.apply(plan.id, edit(shown, 'c', 'first'), { by: 'ann' })).toMatchObject({ applied: true, revision: 2, base: { revision: 1 } });
      await h.finish(await h.claim(plan.id, 'a'), { kind: 'done', output: 'A out' });

      // The second changes c's input too: the same attribute changed on both sides.
      const before = await everything(plan.id);
      const conflicting = await h.ops.apply(plan.id, edit(shown, 'c', 'second'), { by: 'bob' });
      expect(conflicting).toMatchObject({ applied: false, revision: null });
      expect(conflicting.conflicts).toEqual([expect.objectContaining({ code: 'MERGE_CONFLICT', node: 'c', attribute: 'toolInput', line: expect.any(Number) })]);
      expect(conflicting.conflicts[0]!.message).toMatch(/changed on both sides.*"first".*"second"/);
      // An edit of a node that has run since is a conflict too.
      expect((await h.ops.apply(plan.id, edit(shown, 'a', 'late'))).conflicts).toEqual([expect.objectContaining({ code: 'MERGE_CONFLICT', node: 'a' })]);
      expect(await everything(plan.id)).toEqual(before);

      // The second changes b's input instead: merged, both changes in the plan, a's run kept.
      const merged = await h.ops.apply(plan.id, edit(shown, 'b', 'second'), { by: 'bob' });
      expect(merged).toMatchObject({ applied: true, revision: 3, conflicts: [], diagnostics: [] });
      expect(merged.changes).toEqual([{ kind: 'node-attribute', node: 'b', attribute: 'toolInput', from: 'B', to: 'second' }]);
      const nodes = Object.fromEntries((await h.store.plans.nodes(plan.id)).map((n) => [n.id, n]));
      expect(nodes.b!.attributes.toolInput).toBe('second');
      expect(nodes.c!.attributes.toolInput).toBe('first');
      expect(nodes.a).toMatchObject({ status: 'done', output: 'A out' });
      expect((await h.store.plans.revision(plan.id)).dot).toMatch(/^\/\/ Chain for the merge test\n/);
    });

    it('takes a file that names no revision against the latest one, and says so', async () => {
      const { id, shown } = await failedChain();
      const { revision: _r, asOfEvent: _e, ...attributes } = shown.attributes;
      const edited = { ...shown, attributes, nodes: shown.nodes.map((n) => (n.id === 'c' ? { ...n, attributes: { ...n.attributes, toolInput: 'new' } } : n)) };
      expect(await h.ops.apply(id, writeDot(edited))).toMatchObject({ applied: true, base: null });
      expect((await h.ops.apply(id, writeDot({ ...shown, attributes: { ...shown.attributes, revision: 'two' } }))).diagnostics).toEqual([
        expect.objectContaining({ code: 'EDIT_BASE_INVALID', attribute: 'revision' }),
      ]);
      await expect(h.ops.apply(id, writeDot({ ...shown, attributes: { ...shown.attributes, revision: '9' } }))).rejects.toThrow(
        /no revision 9; its revisions are 1 to 2/,
      );
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

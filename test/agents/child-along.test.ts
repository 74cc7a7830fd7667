/**
 * On PostgreSQL a child's end that hands over the next agent node starts that node's child right
 * behind its write, before the write answers, with the COMMIT (src/store/tree/child-along.ts). The
 * child's rows must then be kept only if the write did hand the node over: its move to wait on the
 * child checks that the node runs for the worker's attempt, and otherwise fails the transaction.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { connect } from '../../src/store/connect.js';
import type { Db } from '../../src/store/sql/executor.js';
import type { ClaimedNode } from '../../src/store/types.js';
import { testBackend } from '../support/db.js';
import { openTreeHarness, type TreeHarness } from './tree-harness.js';

describe.runIf(testBackend() === 'postgres')('a child started behind a write that hands its agent node over (PostgreSQL)', () => {
  let h: TreeHarness;
  let db: Db | undefined;
  afterEach(async () => {
    await db?.close();
    await h?.cleanup();
  });

  it('is not kept when the node was not handed over, and is when it was', async () => {
    h = await openTreeHarness({
      agents: [{ code: 'one', kind: 'workflow', template: 'one' }],
      templates: { one: `digraph one { step [type=function toolCode=template toolInput="x"] }` },
    });
    const root = await h.create(`digraph root { a [type=agent agentCode=one task="t"] }`);
    db = (await connect(h.store.target!)).db;
    const [row] = await db.all<{ id: number }>(`SELECT id FROM nodes WHERE plan_id = ? AND node_id = 'a'`, [root]);
    const rowId = row!.id;
    const claim: ClaimedNode = {
      planId: root,
      nodeId: 'a',
      type: 'agent',
      attributes: { agentCode: 'one', task: 't' },
      attempts: 1,
      token: '',
      leaseExpiresAt: new Date(0),
      params: {},
      planAttributes: {},
    };
    const prepared = (await h.children.prepare(claim))!;
    const startBehind = () =>
      db!.tx(async (q) => {
        // The slot as the finish's read-ahead reads it: the root's counts and reserved row ids.
        const [slot] = await q.all<{ ids: unknown }>(`SELECT json_agg(nextval('nodes_id_seq')) AS ids FROM generate_series(1, 8)`);
        return h.store.tree.startChildIn(q, claim, prepared.child, prepared.limits, {
          handOff: { owner: 'w', leaseMs: 30_000, limit: 1 },
          treeLocked: true,
          ahead: { depth: 0, made: 0, instances: null, ids: slot!.ids },
          last: true,
          handed: { rowId, owner: 'w', attempts: 1 },
        });
      });

    // Not handed over (still ready): the transaction fails, naming the node; no child, the node as it was.
    await expect(startBehind()).rejects.toThrow(/agent node a was not handed over/);
    expect((await h.store.tree.treeOf(root)).map((p) => p.id)).toEqual([root]);
    expect(await h.store.plans.node(root, 'a')).toMatchObject({ status: 'ready' });

    // Handed over to w for attempt 1 (as the write before it leaves the node): the child is kept and the node waits on it.
    await db.run(`UPDATE nodes SET status = 'running', lease_owner = 'w', lease_token = ?, attempts = 1 WHERE id = ?`, [`${rowId}.t`, rowId]);
    const started = await startBehind();
    expect(started.result.kind).toBe('started');
    const tree = await h.store.tree.treeOf(root);
    expect(tree.map((p) => p.parentNodeId)).toEqual([null, 'a']);
    const [a] = await db.all<{ owner: string | null; child: string | null }>(
      `SELECT lease_owner AS "owner", child_plan_id AS "child" FROM nodes WHERE id = ?`,
      [rowId],
    );
    expect(a).toEqual({ owner: null, child: tree[1]!.id });
  });
});

/**
 * A child plan started by the worker that claimed its agent node is inserted as its start leaves it
 * (the nodes it makes ready, the one handed to that worker); the ready nodes it does not hand over are
 * work for any worker, so other processes must hear of them at commit, as they do of a plan created by a
 * command: on PostgreSQL by a NOTIFY in the child's transaction (SQLite's other processes see any commit
 * to the file, wake.ts: nothing there for a test to tell apart).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { testBackend } from '../support/db.js';
import { openStore } from '../../src/store/index.js';
import type { Store, WakeEvent } from '../../src/store/types.js';
import { waitUntil } from '../support/wait.js';
import { openTreeHarness, type TreeHarness } from './tree-harness.js';

const LEASE = { owner: 'w', leaseMs: 30_000 };

describe.runIf(testBackend() === 'postgres')('a child plan with more ready nodes than its worker is handed (PostgreSQL)', () => {
  let h: TreeHarness;
  let other: Store | undefined;
  afterEach(async () => {
    await other?.close();
    await h?.cleanup();
  });

  it('wakes a store opened elsewhere on the same database for the nodes left ready', async () => {
    h = await openTreeHarness({
      agents: [{ code: 'two', kind: 'workflow', template: 'two' }],
      templates: { two: `digraph two { x [type=function toolCode=template toolInput="x"] y [type=function toolCode=template toolInput="y"] }` },
    });
    await h.create(`digraph root { a [type=agent agentCode=two task="t"] }`);
    other = await openStore({ url: h.store.url });
    const wakes: WakeEvent[] = [];
    other.events.onWake((e) => wakes.push(e));
    await other.events.listening;
    const [claim] = await h.store.queue.claim({ ...LEASE, limit: 1 });
    const prepared = (await h.children.prepare(claim!))!;
    const started = await h.store.tree.startChild(claim!, prepared.child, prepared.limits, { ...LEASE, limit: 1 });
    expect(started.kind).toBe('started');
    const childId = started.kind === 'started' ? started.childPlanId : '';
    expect(started.kind === 'started' ? started.claimed.map((c) => c.nodeId) : []).toHaveLength(1);
    expect((await h.store.plans.nodes(childId)).map((n) => n.status).sort()).toEqual(['ready', 'running']);
    await waitUntil(() => wakes.some((w) => w.reason === 'ready' && w.planId === childId), 'a wake-up in the other store for the child', 5000, 10);
  });
});

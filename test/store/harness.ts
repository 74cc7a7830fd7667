/**
 * What the store suites share: a store on the suite's backend, the use cases over it, and short
 * ways to claim and finish nodes as a worker would.
 */
import { defaultConfig } from '../../src/config/defaults.js';
import type { AttemptResult } from '../../src/engine/attempts.js';
import { Dotplan } from '../../src/operations/dotplan.js';
import type { ClaimedNode, FinishOutcome, PlanRecord } from '../../src/store/types.js';
import { createRegistry } from '../../src/tools/registry.js';
import type { PlanGraph } from '../../src/model/types.js';
import { createTestStore, type TestBackend, type TestStore } from '../support/db.js';
import { planInput } from './fixtures.js';

export const retryDefaults = { retries: 0, retryDelay: '1s' };

export interface Harness {
  store: TestStore;
  ops: Dotplan;
  create(graph: PlanGraph, extra?: Parameters<typeof planInput>[1]): Promise<PlanRecord>;
  statuses(planId: string): Promise<Record<string, string>>;
  /** Claims until the plan's node is claimed (other nodes claimed on the way are released). */
  claim(planId: string, nodeId: string, owner?: string, leaseMs?: number): Promise<ClaimedNode>;
  finish(claim: ClaimedNode | ClaimedNode[], result: AttemptResult, options?: { owner?: string; limit?: number }): Promise<FinishOutcome>;
  /** Claims and finishes (done, with `outputs[id]` or `out <id>`) the plan's ready nodes until none is left. */
  runReady(planId: string, outputs?: Record<string, string>): Promise<void>;
  close(): Promise<void>;
}

export async function openHarness(backend: TestBackend): Promise<Harness> {
  const store = await createTestStore(backend);
  const ops = new Dotplan(store, await createRegistry(), defaultConfig());
  const finish: Harness['finish'] = (claim, result, options = {}) =>
    store.queue.finish(
      (Array.isArray(claim) ? claim : [claim]).map((c) => ({ claim: c, result, jitter: 0.5 })),
      { owner: options.owner ?? 'w1', leaseMs: 30_000, limit: options.limit ?? 0, retryDefaults },
    );
  return {
    store,
    ops,
    finish,
    create: (graph, extra) => store.plans.create(planInput(graph, extra)),
    async statuses(planId) {
      return Object.fromEntries((await store.plans.nodes(planId)).map((n) => [n.id, n.status]));
    },
    async claim(planId, nodeId, owner = 'w1', leaseMs = 30_000) {
      const claimed = await store.queue.claim({ owner, limit: 100, leaseMs });
      const mine = claimed.find((c) => c.planId === planId && c.nodeId === nodeId);
      const others = claimed.filter((c) => c !== mine);
      if (others.length > 0) await finish(others, { kind: 'released' });
      if (!mine) throw new Error(`node ${nodeId} of ${planId} was not claimable; got ${claimed.map((c) => c.nodeId).join(', ')}`);
      return mine;
    },
    async runReady(planId, outputs = {}) {
      for (;;) {
        const claimed = await store.queue.claim({ owner: 'w', limit: 100, leaseMs: 30_000 });
        const mine = claimed.filter((c) => c.planId === planId);
        const others = claimed.filter((c) => c.planId !== planId);
        if (others.length > 0) await finish(others, { kind: 'released' });
        if (mine.length === 0) return;
        for (const c of mine) await finish(c, { kind: 'done', output: outputs[c.nodeId] ?? `out ${c.nodeId}` });
      }
    },
    close: () => store.cleanup(),
  };
}

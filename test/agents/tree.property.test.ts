/**
 * The state machine holds across the plan stack, on the suite's backend: a random tree (a root whose
 * agent nodes run workflow children — some that complete, some that fail, some that hold an agent
 * node of their own) goes through a random interleaving of worker steps (claim one node and run it
 * by its kind: a tool, or start a child) and operator commands on any plan of the tree (cancel, pause,
 * resume — often refused). After every move, over every stored plan and its audit log:
 *
 * - every status event is a move its driver may make, from the status the node or plan had, and the
 *   last one is the status it has;
 * - a `running` node either holds a lease, or holds none and waits on its child, which is not over;
 * - a child that is over has finished its parent node (the node no longer waits on it) — in the same
 *   write, so at no point between moves is a parent left waiting on a finished child;
 * - one child per parent node and attempt; a cancelled plan's descendants are all over;
 * - a completed plan's nodes are all done or skipped.
 *
 * Then everything paused is resumed and the tree runs out: every plan is over, and each agent node
 * is done exactly when its last child completed.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type { Actor } from '../../src/engine/index.js';
import { DotplanError } from '../../src/errors/errors.js';
import type { NodeStatus, PlanStatus } from '../../src/model/types.js';
import { cancelTree, pauseTree, resumeTree } from '../../src/operations/cascade.js';
import { canMoveNode } from '../../src/state/node-moves.js';
import { canMovePlan, FINISHED_PLAN_STATUSES } from '../../src/state/plan-moves.js';
import type { PlanRecord } from '../../src/store/types.js';
import { testBackend } from '../support/db.js';
import { openTreeHarness, type TreeHarness } from './tree-harness.js';

const TEMPLATES = {
  ok: `digraph ok { a [type=function toolCode=echo toolInput="a"] b [type=function toolCode=echo toolInput="b"] a -> b }`,
  bad: `digraph bad { a [type=function toolCode=fail toolInput="no"] }`,
  mid: `digraph mid { inner [type=agent agentCode=ok task="inner"] after [type=function toolCode=echo toolInput="after"] inner -> after }`,
};
const AGENTS = [
  { code: 'ok', kind: 'workflow', template: 'ok' },
  { code: 'bad', kind: 'workflow', template: 'bad' },
  { code: 'mid', kind: 'workflow', template: 'mid', agents: ['ok'] },
];
const ADA: Actor = { driver: 'operator', name: 'ada' };

type Move = { kind: 'step' } | { kind: 'cancel' | 'pause' | 'resume'; plan: number };
interface RandomTree {
  agents: Array<'ok' | 'bad' | 'mid'>;
  retries: boolean;
  onFailure: 'stop' | 'continue';
  moves: Move[];
}

const randomTree: fc.Arbitrary<RandomTree> = fc.record({
  agents: fc.array(fc.constantFrom<'ok' | 'bad' | 'mid'>('ok', 'bad', 'mid'), { minLength: 1, maxLength: 3 }),
  retries: fc.boolean(),
  onFailure: fc.constantFrom<'stop' | 'continue'>('stop', 'continue'),
  moves: fc.array(
    fc.oneof(
      { weight: 6, arbitrary: fc.constant<Move>({ kind: 'step' }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constantFrom<'cancel' | 'pause' | 'resume'>('cancel', 'pause', 'resume'), plan: fc.nat(5) }) },
    ),
    { minLength: 4, maxLength: 24 },
  ),
});

function rootDot(t: RandomTree): string {
  const nodes = t.agents.map((a, i) => `n${i} [type=agent agentCode=${a} task="task ${i}"${t.retries ? ' retries=1 retryDelay=1ms' : ''}]`);
  const edges = t.agents.slice(1).map((_, i) => `n${i} -> n${i + 1}`);
  return `digraph root { onFailure=${t.onFailure} tail [type=function toolCode=echo toolInput="tail"] ${nodes.join(' ')} ${edges.join(' ')} n${t.agents.length - 1} -> tail }`;
}

describe(`the plan stack's state machine (${testBackend()})`, () => {
  let h: TreeHarness;
  afterEach(async () => h?.cleanup());

  it('holds under random worker steps and cascading commands', async () => {
    await fc.assert(
      fc.asyncProperty(randomTree, async (t) => {
        h = await openTreeHarness({
          agents: AGENTS,
          templates: TEMPLATES,
          tools: [{ code: 'fail', run: () => Promise.reject(Object.assign(new Error('failed on purpose'), { retryable: true })) }],
        });
        try {
          const root = await h.create(rootDot(t));
          for (const move of t.moves) {
            if (move.kind === 'step') await h.step();
            else {
              const plans = await treePlans(h, root);
              const target = plans[move.plan % plans.length]!;
              const command = move.kind === 'cancel' ? cancelTree : move.kind === 'pause' ? pauseTree : resumeTree;
              await command(h.store, target.id, ADA, `${move.kind} by the property`).catch((error: unknown) => {
                if (!(error instanceof DotplanError)) throw error;
              });
            }
            await checkInvariants(h, root);
          }
          await h.releaseHanded();
          // Root first: a resume cascades, so a child it un-paused is running when its turn comes.
          for (const { id } of await treePlans(h, root)) if ((await h.store.plans.get(id)).status === 'paused') await resumeTree(h.store, id, ADA, 'run out');
          await h.runUntilIdle();
          await checkInvariants(h, root);
          await checkRunOut(h, root);
        } finally {
          await h.cleanup();
        }
      }),
      { numRuns: testBackend() === 'postgres' ? 12 : 25 },
    );
  }, 300_000);
});

async function treePlans(h: TreeHarness, root: string): Promise<PlanRecord[]> {
  return (await h.store.plans.list()).filter((p) => p.id === root || p.rootPlanId === root);
}

async function checkInvariants(h: TreeHarness, root: string): Promise<void> {
  const plans = await treePlans(h, root);
  const byId = new Map(plans.map((p) => [p.id, p]));
  for (const plan of plans) {
    const events = await h.store.events.list(plan.id, { kind: 'status' });
    let planStatus: string | undefined;
    const nodeStatus = new Map<string, string>();
    for (const e of events) {
      if (e.nodeId === undefined) {
        if (planStatus !== undefined)
          expect(canMovePlan(e.from as PlanStatus, e.to as PlanStatus, e.driver), `${plan.id}: ${e.from} → ${e.to} by ${e.driver}`).toBe(true);
        planStatus = e.to;
      } else {
        const before = nodeStatus.get(e.nodeId);
        if (before !== undefined) {
          expect(e.from, `${plan.id}/${e.nodeId} moved from ${e.from}, but it was ${before}`).toBe(before);
          expect(canMoveNode(e.from as NodeStatus, e.to as NodeStatus, e.driver), `${plan.id}/${e.nodeId}: ${e.from} → ${e.to} by ${e.driver}`).toBe(true);
        }
        nodeStatus.set(e.nodeId, e.to);
      }
    }
    expect(planStatus).toBe(plan.status);
    const nodes = await h.store.plans.nodes(plan.id);
    for (const node of nodes) {
      if (nodeStatus.has(node.id)) expect(nodeStatus.get(node.id), `${plan.id}/${node.id}'s last event`).toBe(node.status);
      if (node.status === 'running' && node.leaseOwner === undefined) {
        const child = node.childPlanId === undefined ? undefined : byId.get(node.childPlanId);
        expect(child, `${plan.id}/${node.id} runs with no lease and no child`).toBeDefined();
        expect(FINISHED_PLAN_STATUSES.has(child!.status), `${plan.id}/${node.id} waits on ${child!.id}, which is ${child!.status}`).toBe(false);
      }
    }
    if (plan.status === 'completed') for (const node of nodes) expect(['done', 'skipped']).toContain(node.status);
    if (plan.status === 'cancelled') {
      for (const other of plans)
        if (isBelow(other, plan.id, byId)) expect(FINISHED_PLAN_STATUSES.has(other.status), `${other.id} below cancelled ${plan.id}`).toBe(true);
    }
  }
  const attempts = new Set<string>();
  for (const plan of plans) {
    if (!plan.parent) continue;
    const key = `${plan.parent.planId}/${plan.parent.nodeId}/${plan.parent.attempt}`;
    expect(attempts.has(key), `two children for ${key}`).toBe(false);
    attempts.add(key);
  }
}

function isBelow(plan: PlanRecord, ancestor: string, byId: Map<string, PlanRecord>): boolean {
  for (let p = plan.parent ? byId.get(plan.parent.planId) : undefined; p; p = p.parent ? byId.get(p.parent.planId) : undefined)
    if (p.id === ancestor) return true;
  return false;
}

async function checkRunOut(h: TreeHarness, root: string): Promise<void> {
  const plans = await treePlans(h, root);
  for (const plan of plans) expect(FINISHED_PLAN_STATUSES.has(plan.status), `${plan.id} is ${plan.status} after the run`).toBe(true);
  for (const plan of plans) {
    for (const node of await h.store.plans.nodes(plan.id)) {
      if (node.type !== 'agent' || node.childPlanId === undefined) continue;
      const child = plans.find((p) => p.id === node.childPlanId)!;
      if (node.status === 'done') expect(child.status).toBe('completed');
      if (child.status === 'completed' && node.attempts === child.parent!.attempt) expect(node.status).toBe('done');
    }
  }
}

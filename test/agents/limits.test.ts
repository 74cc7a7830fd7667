/**
 * The plan stack's limits: a self-recursive agent stops at `limits.maxPlanDepth` with
 * PLAN_DEPTH_EXCEEDED naming the chain and the setting; a tree that would make more than
 * `limits.maxChildPlans` children fails the node that asked with CHILD_PLANS_EXCEEDED.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { openTreeHarness, type TreeHarness } from './tree-harness.js';

describe('plan stack limits', () => {
  let h: TreeHarness;
  afterEach(async () => h?.cleanup());

  it('a self-recursive agent stops at depth 4 with PLAN_DEPTH_EXCEEDED naming the chain', async () => {
    h = await openTreeHarness({
      agents: [{ code: 'rec', kind: 'workflow', template: 'rec', agents: ['rec'] }],
      templates: { rec: `digraph rec { again [type=agent agentCode=rec task="once more"] }` },
    });
    const root = await h.create(`digraph root { label="Recursion" start [type=agent agentCode=rec task="go"] }`);
    await h.runUntilIdle();
    const plans = await h.store.plans.list();
    expect(Math.max(...plans.map((p) => p.depth ?? 0))).toBe(4);
    expect(plans.filter((p) => p.rootPlanId === root)).toHaveLength(4);
    const deepest = plans.find((p) => p.depth === 4)!;
    const again = await h.store.plans.node(deepest.id, 'again');
    expect(again.status).toBe('failed');
    expect(again.error).toBe(
      'PLAN_DEPTH_EXCEEDED: Recursion › rec_001 › rec_002 › rec_003 › rec_004 › again → rec would be 5 plans below the root, over limits.maxPlanDepth=4; raise the setting or stop the recursion',
    );
    const top = await h.store.plans.get(root);
    expect(top.status).toBe('failed');
    expect((await h.store.plans.node(root, 'start')).error).toContain('PLAN_DEPTH_EXCEEDED');
  });

  it('maxChildPlans: the node that would make one too many fails with CHILD_PLANS_EXCEEDED', async () => {
    h = await openTreeHarness({
      agents: [{ code: 'one', kind: 'workflow', template: 'one' }],
      templates: { one: `digraph one { x [type=function toolCode=echo toolInput="x"] }` },
      limits: { maxChildPlans: 2 },
    });
    const root = await h.create(`digraph root { a [type=agent agentCode=one] b [type=agent agentCode=one] c [type=agent agentCode=one] a -> b -> c }`);
    await h.runUntilIdle();
    expect((await h.store.plans.node(root, 'a')).status).toBe('done');
    expect((await h.store.plans.node(root, 'b')).status).toBe('done');
    const c = await h.store.plans.node(root, 'c');
    expect(c.status).toBe('failed');
    expect(c.error).toMatch(
      /^CHILD_PLANS_EXCEEDED: the tree of p_\w+ already made 2 child plans, limits\.maxChildPlans=2 \(at .* › c → one\); raise the setting$/,
    );
  });
});

/**
 * An agent node handed over by a write (the end of the child before it, say) has its child started in
 * that same write: the worker is handed the child's first node, not the agent node, and the agent node
 * already waits on its child — the claim and the child in one transaction, on SQLite and PostgreSQL.
 * A node whose input refers to other nodes' outputs is handed over itself: its worker reads them and
 * starts the child as it runs it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/defaults.js';
import { applyRevision } from '../../src/operations/apply-revision.js';
import type { ClaimedNode } from '../../src/store/types.js';
import { AttemptAbort } from '../../src/execute/attempt-abort.js';
import { runClaim } from '../../src/worker/run-claim.js';
import { openTreeHarness, type TreeHarness } from './tree-harness.js';

const LEASE = { owner: 'w', leaseMs: 30_000 };
const retryDefaults = defaultConfig().retry;

describe('an agent node handed over by a write starts its child in that write', () => {
  let h: TreeHarness;
  afterEach(async () => h?.cleanup());

  /** The worker's part for a claimed node: run it by its kind (an agent node starts its child, handing over its first node). */
  async function run(claim: ClaimedNode) {
    return runClaim(claim, new AttemptAbort(), {
      plans: h.store.plans,
      tools: h.tools,
      retryDefaults,
      log: () => undefined,
      children: h.children,
      handOff: { ...LEASE, limit: 1 },
    });
  }

  /** A child's one node finished as its worker reports it, with the starter that may start the next agent node's child. */
  async function finish(claim: ClaimedNode, output: string) {
    return h.store.queue.finish([{ claim, result: { kind: 'done', output }, jitter: 0 }], { ...LEASE, limit: 1, retryDefaults, children: h.children });
  }

  it("hands over the child's first node in place of the agent node; input that refers to outputs leaves the node to its worker", async () => {
    h = await openTreeHarness({
      agents: [{ code: 'one', kind: 'workflow', template: 'one' }],
      templates: { one: `digraph one { params="what" output="{{nodes.step.output}}" step [type=function toolCode=template toolInput="did {{params.what}}"] }` },
    });
    const root = await h.create(`digraph root {
      a [type=agent agentCode=one agentParams="{\\"what\\": \\"a\\"}"]
      b [type=agent agentCode=one agentParams="{\\"what\\": \\"b\\"}"]
      c [type=agent agentCode=one agentParams="{\\"what\\": \\"{{nodes.b.output}} again\\"}"]
      a -> b -> c
    }`);
    const [claimA] = await h.store.queue.claim({ ...LEASE, limit: 1 });
    const startedA = await run(claimA!);
    expect(startedA.kind).toBe('delegated');
    const [stepA] = startedA.kind === 'delegated' ? (startedA.claimed ?? []) : [];
    expect(stepA).toMatchObject({ nodeId: 'step', rootPlanId: root });

    // a's child ends: a is done, b is handed over with its child started in the same write.
    const afterA = await finish(stepA!, 'did a');
    expect(afterA.results).toEqual([{ status: 'done' }]);
    expect((await h.store.plans.node(root, 'a')).status).toBe('done');
    const b = await h.store.plans.node(root, 'b');
    expect(b.status).toBe('running');
    expect(b.childPlanId).toMatch(/^p_/);
    expect(b.leaseOwner).toBeUndefined(); // it waits on its child, holding no lease
    expect(afterA.claimed.map((c) => [c.planId, c.nodeId])).toEqual([[b.childPlanId, 'step']]);
    const childB = await h.store.plans.get(b.childPlanId!);
    // The handed claim says what the stored rows say (it is made from the values written, not read back).
    const stepRow = await h.store.plans.node(childB.id, 'step');
    expect(afterA.claimed[0]).toEqual({
      planId: childB.id,
      nodeId: 'step',
      type: 'function',
      attributes: stepRow.attributes,
      attempts: stepRow.attempts,
      token: expect.any(String),
      leaseExpiresAt: expect.any(Date),
      params: childB.params,
      planAttributes: childB.attributes,
      planAgent: 'one',
      rootPlanId: root,
      startedWith: (await h.store.plans.nodes(childB.id)).length, // the child's one node: its end need not read its nodes
    });
    expect(stepRow).toMatchObject({ status: 'running', leaseOwner: 'w', attempts: 1 });
    expect(childB).toMatchObject({ status: 'running', parent: { planId: root, nodeId: 'b', attempt: 1 }, instance: 'one_002', params: { what: 'b' } });
    // The audit log: b claimed by the worker, then its child made and its first node claimed by the same worker.
    expect((await h.store.events.list(root)).find((e) => e.nodeId === 'b' && e.to === 'running')?.actor).toBe('w');
    expect((await h.store.events.list(childB.id)).find((e) => e.nodeId === 'step' && e.to === 'running')?.actor).toBe('w');

    // b's child ends: c refers to b's output, so c itself is handed over, its child not started yet.
    const afterB = await finish(afterA.claimed[0]!, 'did b');
    expect(afterB.claimed.map((c) => [c.planId, c.nodeId])).toEqual([[root, 'c']]);
    expect((await h.store.plans.node(root, 'c')).childPlanId).toBeUndefined();
    const startedC = await run(afterB.claimed[0]!);
    const [stepC] = startedC.kind === 'delegated' ? (startedC.claimed ?? []) : [];
    expect((await h.store.plans.get(stepC!.planId)).params).toEqual({ what: 'did b again' });

    const afterC = await finish(stepC!, 'did c');
    expect(afterC.claimed).toEqual([]);
    expect(await h.store.plans.get(root)).toMatchObject({ status: 'completed' });
    expect((await h.store.plans.nodes(root)).map((n) => [n.id, n.output])).toEqual([
      ['a', 'did a'],
      ['b', 'did b'],
      ['c', 'did c'],
    ]);
  });

  it('two agent nodes handed over by one write each get their child: numbered in turn, the first larger than the row ids the write reserved ahead', async () => {
    // The end of a's child reads ahead what a next child needs (the tree's counts, 8 row ids): b's child has 10 nodes
    // and reads its own; c's child reads the counts b's child wrote.
    const steps = Array.from({ length: 10 }, (_, i) => `s${i} [type=function toolCode=template toolInput="step ${i}"]`).join(' ');
    const chain = Array.from({ length: 9 }, (_, i) => `s${i} -> s${i + 1}`).join(' ');
    h = await openTreeHarness({
      agents: [
        { code: 'one', kind: 'workflow', template: 'one' },
        { code: 'ten', kind: 'workflow', template: 'ten' },
      ],
      templates: {
        one: `digraph one { step [type=function toolCode=template toolInput="did"] }`,
        ten: `digraph ten { ${steps} ${chain} }`,
      },
    });
    const root = await h.create(`digraph root {
      a [type=agent agentCode=one]
      b [type=agent agentCode=ten]
      c [type=agent agentCode=one]
      a -> b
      a -> c
    }`);
    const [claimA] = await h.store.queue.claim({ ...LEASE, limit: 1 });
    const startedA = await run(claimA!);
    const [stepA] = startedA.kind === 'delegated' ? (startedA.claimed ?? []) : [];
    const after = await h.store.queue.finish([{ claim: stepA!, result: { kind: 'done', output: 'did' }, jitter: 0 }], {
      ...LEASE,
      limit: 2,
      retryDefaults,
      children: h.children,
    });
    const b = await h.store.plans.node(root, 'b');
    const c = await h.store.plans.node(root, 'c');
    expect([b.status, c.status]).toEqual(['running', 'running']);
    const [childB, childC] = await Promise.all([h.store.plans.get(b.childPlanId!), h.store.plans.get(c.childPlanId!)]);
    expect([childB.instance, childC.instance]).toEqual(['ten_001', 'one_002']);
    expect((await h.store.plans.nodes(childB.id)).map((n) => n.id)).toEqual(Array.from({ length: 10 }, (_, i) => `s${i}`));
    expect(after.claimed.map((claim) => [claim.planId, claim.nodeId])).toEqual([
      [childB.id, 's0'],
      [childC.id, 'step'],
    ]);
    // Both children run to their ends, and with them the root.
    let work = after.claimed;
    while (work.length > 0) {
      const next = await h.store.queue.finish(
        work.map((claim) => ({ claim, result: { kind: 'done', output: claim.nodeId }, jitter: 0 })),
        { ...LEASE, limit: 2, retryDefaults, children: h.children },
      );
      work = next.claimed;
    }
    expect(await h.store.plans.get(root)).toMatchObject({ status: 'completed' });
  });

  it('two children failing in one write fail their agent nodes together, each naming its child; the plan fails with both', async () => {
    // Several children ending at once (not completed) have their parent nodes read together (tree/child-end.ts).
    h = await openTreeHarness({
      agents: [{ code: 'one', kind: 'workflow', template: 'one' }],
      templates: { one: `digraph one { step [type=function toolCode=template toolInput="did" retries=0] }` },
    });
    const root = await h.create(`digraph root {
      a [type=agent agentCode=one retries=0]
      b [type=agent agentCode=one retries=0]
      after [type=function toolCode=template toolInput="after"]
      a -> after
      b -> after
    }`);
    const claims = await h.store.queue.claim({ ...LEASE, limit: 2 });
    expect(claims.map((c) => c.nodeId)).toEqual(['a', 'b']);
    const steps = [];
    for (const claim of claims) {
      const started = await run(claim);
      steps.push(...(started.kind === 'delegated' ? (started.claimed ?? []) : []));
    }
    expect(steps.map((c) => c.nodeId)).toEqual(['step', 'step']);
    const failed = await h.store.queue.finish(
      steps.map((claim) => ({ claim, result: { kind: 'failed', error: `broke in ${claim.planId}`, retryable: false }, jitter: 0 })),
      { ...LEASE, limit: 2, retryDefaults, children: h.children },
    );
    expect(failed.results).toEqual([{ status: 'failed' }, { status: 'failed' }]);
    const [a, b] = await Promise.all([h.store.plans.node(root, 'a'), h.store.plans.node(root, 'b')]);
    expect([a.status, b.status]).toEqual(['failed', 'failed']);
    expect(a.error).toContain(`child plan ${a.childPlanId} (one_001) failed`);
    expect(a.error).toContain(`broke in ${a.childPlanId}`);
    expect(b.error).toContain(`child plan ${b.childPlanId} (one_002) failed`);
    expect((await h.store.plans.node(root, 'after')).status).toBe('pending');
    expect(await h.store.plans.get(root)).toMatchObject({ status: 'failed' });
  });
  it('a child edited after its start has its nodes read at its end: the node the edit added is in its result', async () => {
    h = await openTreeHarness({
      agents: [{ code: 'one', kind: 'workflow', template: 'one' }],
      templates: { one: `digraph one { step [type=function toolCode=template toolInput="did it"] }` },
    });
    const root = await h.create(`digraph root { a [type=agent agentCode=one] b [type=agent agentCode=one] a -> b }`);
    const [claimA] = await h.store.queue.claim({ ...LEASE, limit: 1 });
    const startedA = await run(claimA!);
    const [stepA] = startedA.kind === 'delegated' ? (startedA.claimed ?? []) : [];
    const afterA = await finish(stepA!, 'did a');
    // b is handed over with its child started: the worker knows the child's nodes (its one node) at its start.
    const [stepB] = afterA.claimed;
    expect(stepB).toMatchObject({ nodeId: 'step', startedWith: 1 });
    // An operator adds a node to b's child, skipped, while its first node runs: the child is at revision 2.
    const childB = (await h.store.plans.node(root, 'b')).childPlanId!;
    const edit = `digraph one { step [type=function toolCode=template toolInput="did it"] note [type=function toolCode=template toolInput="n" status=skipped] }`;
    const report = await applyRevision({ store: h.store, tools: h.tools, config: defaultConfig() }, childB, edit, {
      by: { driver: 'operator', name: 'ada' },
      source: 'edit.dot',
    });
    expect(report.applied).toBe(true);
    // Its end reads its nodes, as they now are: the result names both sinks.
    const afterB = await finish(stepB!, 'did b');
    expect(afterB.results).toEqual([{ status: 'done' }]);
    expect((await h.store.plans.get(childB)).status).toBe('completed');
    expect(JSON.parse((await h.store.plans.node(root, 'b')).output!)).toEqual({ step: 'did b', note: null });
    // a's child, never edited, ended with what the finish knew of it: its one node's output.
    expect(JSON.parse((await h.store.plans.node(root, 'a')).output!)).toEqual({ step: 'did a' });
  });
});

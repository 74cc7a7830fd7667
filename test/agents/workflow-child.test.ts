/**
 * An agent node runs a child plan (seed 004's AEP → EP): the child is made from the agent's template
 * with what the node passes, the node waits on it holding no lease, and the child's last step
 * finishes the node with the child's result — on SQLite and PostgreSQL.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { openTreeHarness, type TreeHarness } from './tree-harness.js';

const SUMMARY = `digraph summary {
  params="topic, audience=everyone"
  output="{{nodes.write.output}}"
  draft [type=function toolCode=template toolInput="Notes on {{params.topic}}"]
  write [type=function toolCode=template toolInput="{{nodes.draft.output}} for {{params.audience}}"]
  draft -> write
}`;

describe('agent nodes run child plans', () => {
  let h: TreeHarness;
  afterEach(async () => h?.cleanup());

  it('a workflow agent: child made from its template with agentParams and inherited values; the node is done with its output', async () => {
    h = await openTreeHarness({ agents: [{ code: 'summariser', kind: 'workflow', template: 'summary' }], templates: { summary: SUMMARY } });
    const root = await h.create(`digraph root {
      params="audience=ops"
      fetch [type=function toolCode=template toolInput="DOT"]
      sum [type=agent agentCode=summariser task="Summarise {{nodes.fetch.output}}" agentParams="{\\"topic\\": \\"{{nodes.fetch.output}} files\\"}" inherit="params.audience"]
      after [type=function toolCode=template toolInput="got: {{nodes.sum.output}}"]
      fetch -> sum -> after
    }`);
    await h.runUntilIdle();
    const plan = await h.store.plans.get(root);
    expect(plan.status).toBe('completed');
    const sum = await h.store.plans.node(root, 'sum');
    expect(sum.status).toBe('done');
    expect(sum.output).toBe('Notes on DOT files for ops');
    expect(sum.childPlanId).toMatch(/^p_/);
    expect((await h.store.plans.node(root, 'after')).output).toBe('got: Notes on DOT files for ops');
    const child = await h.store.plans.get(sum.childPlanId!);
    expect(child).toMatchObject({
      status: 'completed',
      parent: { planId: root, nodeId: 'sum', attempt: 1 },
      rootPlanId: root,
      depth: 1,
      agentCode: 'summariser',
      instance: 'summariser_001',
      params: { topic: 'DOT files', audience: 'ops' },
    });
    const events = await h.store.events.list(root, { kind: 'child' });
    expect(events).toHaveLength(1);
    expect(events[0]!.reason).toContain(`started child plan ${child.id} (summariser_001`);
    // The child is written as its start leaves it, its first node handed to the worker that started it:
    // its audit log tells the same story as a plan started after its rows — created, started, ready, claimed — then its run.
    const story = (await h.store.events.list(child.id)).map((e) => `${e.nodeId ?? 'plan'} ${e.kind} ${e.from}→${e.to} ${e.driver}`);
    expect(story).toEqual([
      'plan revision → engine',
      'plan status →draft engine',
      'plan status draft→running engine',
      'draft status pending→ready engine',
      'draft status ready→running engine',
      'draft status running→done engine',
      'write status pending→ready engine',
      'write status ready→running engine',
      'write status running→done engine',
      'plan status running→completed engine',
    ]);
    // Made by the engine for the agent node: its creation names the instance, as the parent's `child` event does.
    const created = (await h.store.events.list(child.id)).filter((e) => e.from === '' || e.kind === 'revision');
    expect(created.map((e) => e.actor)).toEqual(['summariser_001', 'summariser_001']);
    const claimedBy = (await h.store.events.list(child.id)).find((e) => e.nodeId === 'draft' && e.to === 'running')!.actor;
    expect(claimedBy).toBe((await h.store.events.list(root)).find((e) => e.nodeId === 'sum' && e.to === 'running')!.actor);
    expect((await h.store.plans.node(child.id, 'draft')).attempts).toBe(1);
  });

  it('a child too large for one statement (320 nodes) is written in several, the last with the commit, and runs to the end', async () => {
    const steps = Array.from({ length: 320 }, (_, i) => `s${i} [type=function toolCode=template toolInput="{{params.topic}} ${i}"]`).join('\n');
    h = await openTreeHarness({
      agents: [{ code: 'wide', kind: 'workflow', template: 'wide' }],
      templates: { wide: `digraph wide { params="topic" ${steps} }` },
    });
    const root = await h.create(`digraph root { big [type=agent agentCode=wide agentParams="{\\"topic\\": \\"t\\"}"] }`);
    await h.runUntilIdle();
    const big = await h.store.plans.node(root, 'big');
    expect(big.status).toBe('done');
    const outputs = JSON.parse(big.output!) as Record<string, string>;
    expect(Object.keys(outputs)).toHaveLength(320);
    expect(outputs.s319).toBe('t 319');
    expect((await h.store.plans.nodes(big.childPlanId!)).filter((n) => n.status === 'done')).toHaveLength(320);
  });

  it('without output=, the child result is its sink nodes outputs as JSON; a failed child fails the node naming the child', async () => {
    const noOutput = SUMMARY.replace('output="{{nodes.write.output}}"', '');
    const failing = `digraph f { boom [type=function toolCode=fail toolInput="broken on purpose"] }`;
    h = await openTreeHarness({
      agents: [
        { code: 'summariser', kind: 'workflow', template: 'summary' },
        { code: 'breaker', kind: 'workflow', template: 'failing' },
      ],
      templates: { summary: noOutput, failing },
      tools: [
        {
          code: 'fail',
          run: (input: unknown) => {
            throw Object.assign(new Error(String(input)), { retryable: false });
          },
        },
      ],
    });
    const root = await h.create(`digraph root {
      a [type=agent agentCode=summariser agentParams="{\\"topic\\": \\"x\\"}"]
      b [type=agent agentCode=breaker]
    }`);
    await h.runUntilIdle();
    const a = await h.store.plans.node(root, 'a');
    expect(JSON.parse(a.output!)).toEqual({ write: 'Notes on x for everyone' });
    const b = await h.store.plans.node(root, 'b');
    expect(b.status).toBe('failed');
    expect(b.error).toContain(`child plan ${b.childPlanId} (breaker_001) failed`);
    expect((await h.store.plans.get(root)).status).toBe('failed');
  });

  it('a failed child is retried by the configured retry policy: a new attempt with a new child, the old one kept', async () => {
    let calls = 0;
    h = await openTreeHarness({
      agents: [{ code: 'flaky', kind: 'workflow', template: 'flaky' }],
      templates: { flaky: `digraph f { once [type=function toolCode=failOnce] }` },
      tools: [
        {
          code: 'failOnce',
          run: () => {
            calls += 1;
            // Not retryable inside the child: the child fails, and its agent node's retry makes a new one.
            if (calls === 1) throw Object.assign(new Error('the first child breaks'), { retryable: false });
            return 'the second child works';
          },
        },
      ],
      retry: { retries: 1, retryDelay: '10ms' },
    });
    const root = await h.create(`digraph root { a [type=agent agentCode=flaky] }`);
    await h.runUntilIdle();
    const a = await h.store.plans.node(root, 'a');
    expect(a.status).toBe('done');
    expect(a.attempts).toBe(2);
    expect(JSON.parse(a.output!)).toEqual({ once: 'the second child works' });
    const children = (await h.store.plans.list()).filter((p) => p.parent?.planId === root);
    expect(children.map((c) => [c.instance, c.parent?.attempt, c.status]).sort()).toEqual([
      ['flaky_001', 1, 'failed'],
      ['flaky_002', 2, 'completed'],
    ]);
    expect(a.childPlanId).toBe(children.find((c) => c.instance === 'flaky_002')!.id);
  });

  it("a child plan may call only its agent's agents: AGENT_NOT_ALLOWED names both, and the fix; no grandchild is made", async () => {
    h = await openTreeHarness({
      agents: [
        { code: 'research', kind: 'workflow', template: 'research' },
        { code: 'approver', kind: 'workflow', template: 'approve' },
      ],
      templates: {
        research: `digraph research { check [type=agent agentCode=approver task="approve it"] }`,
        approve: `digraph approve { ok [type=function toolCode=echo toolInput="fine"] }`,
      },
    });
    const root = await h.create(`digraph root { r [type=agent agentCode=research task="research it"] }`);
    await h.runUntilIdle();
    const research = (await h.store.plans.node(root, 'r')).childPlanId!;
    const check = await h.store.plans.node(research, 'check');
    expect(check.status).toBe('failed');
    expect(check.error).toContain('AGENT_NOT_ALLOWED: agent research may not call agent approver; add "approver" to research\'s agents');
    expect(check.childPlanId).toBeUndefined();
    expect((await h.store.plans.list()).map((p) => p.instance ?? 'root').sort()).toEqual(['research_001', 'root']);
    const r = await h.store.plans.node(root, 'r');
    expect(r.status).toBe('failed');
    expect(r.error).toContain(`child plan ${research} (research_001) failed`);
  });

  it('an unknown agent fails the node with AGENT_UNKNOWN and a suggestion; detach=true is done once the child exists', async () => {
    h = await openTreeHarness({ agents: [{ code: 'summariser', kind: 'workflow', template: 'summary' }], templates: { summary: SUMMARY } });
    const root = await h.create(`digraph root {
      x [type=agent agentCode=sumariser]
      d [type=agent agentCode=summariser detach=true agentParams="{\\"topic\\": \\"y\\"}"]
    }`);
    await h.runUntilIdle();
    const x = await h.store.plans.node(root, 'x');
    expect(x.status).toBe('failed');
    expect(x.error).toMatch(/AGENT_UNKNOWN.*"sumariser".*did you mean "summariser"/);
    const d = await h.store.plans.node(root, 'd');
    expect(d.status).toBe('done');
    expect(d.output).toBe(d.childPlanId);
    expect((await h.store.plans.get(d.childPlanId!)).status).toBe('completed');
  });
});

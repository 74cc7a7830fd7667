/**
 * The shipped approval template, driven entirely through the CLI as a user would: create the plan,
 * run a worker, answer the question, and the plan takes the branch the answer chose — the other
 * branch is skipped, the join (`notify`) runs either way, the plan completes.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitUntil } from '../support/cli.js';
import { openWorkspace, showPlan, statuses, type Workspace } from './workspace.js';

describe('approval template', () => {
  let ws: Workspace;
  beforeEach(async () => {
    ws = await openWorkspace();
  });
  afterEach(async () => {
    await ws.cleanup();
  });

  async function createApproval(): Promise<string> {
    const out = await ws.ok(['plan', 'create', '--template', 'approval', '--set', 'item=a new laptop', '--set', 'requester=Ada', '--json']);
    return (JSON.parse(out) as { id: string }).id;
  }

  it('answer "yes": approved runs, rejected is skipped, notify tells the outcome', async () => {
    const planId = await createApproval();
    const first = await ws.dotplan(['worker', '--until-idle']);
    expect(first.code).toBe(0);
    expect(await statuses(ws, planId)).toEqual({
      plan: 'running',
      request: 'done',
      approve: 'awaiting_input',
      approved: 'pending',
      rejected: 'pending',
      notify: 'pending',
    });
    // The question was asked with its reference resolved.
    const asked = (await showPlan(ws, planId)).nodes.find((n) => n.id === 'approve') as { question?: string };
    expect(asked.question).toBe('Ada asks for a new laptop (amount: unspecified). Approve? (yes/no)');

    const answered = await ws.dotplan(['answer', planId, 'approve', 'yes']);
    expect(answered).toMatchObject({ code: 0 });
    expect(answered.stdout).toContain('answered "yes"');
    expect((await ws.dotplan(['worker', '--until-idle'])).code).toBe(0);

    const plan = await showPlan(ws, planId);
    expect(await statuses(ws, planId)).toEqual({ plan: 'completed', request: 'done', approve: 'done', approved: 'done', rejected: 'skipped', notify: 'done' });
    const byId = new Map(plan.nodes.map((n) => [n.id, n]));
    expect(byId.get('approved')!.output).toBe('Approved: order a new laptop for Ada.');
    expect(byId.get('rejected')!.output).toBeUndefined();
    expect(byId.get('notify')!.output).toBe('To Ada: your request (Ada asks for a new laptop (amount: unspecified).) was answered: yes.');
  });

  it('answer "no" to a running worker: rejected runs, approved is skipped', async () => {
    const planId = await createApproval();
    // PostgreSQL: the answer, given by another process, wakes the worker (hourly poll). SQLite: the worker polls every second.
    ws.spawn(['worker', '--poll', ws.backend === 'postgres' ? '0 0 * * * *' : '* * * * * *']);
    await waitUntil(async () => (await ws.store.plans.node(planId, 'approve')).status === 'awaiting_input', 'the question to be asked');

    expect((await ws.dotplan(['answer', planId, 'approve', 'no'])).code).toBe(0);
    const answeredAt = Date.now();
    await waitUntil(async () => (await ws.store.plans.get(planId)).status === 'completed', 'the plan to complete', 10_000);
    if (ws.backend === 'postgres') expect(Date.now() - answeredAt).toBeLessThan(5_000);

    expect(await statuses(ws, planId)).toEqual({ plan: 'completed', request: 'done', approve: 'done', approved: 'skipped', rejected: 'done', notify: 'done' });
    const nodes = await ws.nodes(planId);
    expect(nodes.get('approve')!.answer).toBe('no');
    expect(nodes.get('rejected')!.output).toBe('Rejected: a new laptop will not be ordered.');
    expect(nodes.get('notify')!.output).toContain('was answered: no.');
    const skip = (await ws.store.events.list(planId)).find((e) => e.nodeId === 'approved' && e.to === 'skipped');
    expect(skip).toMatchObject({ driver: 'engine', from: 'pending' });
  });
});

/**
 * Plans wait for people for hours or weeks (issue 9): a question is announced when it starts waiting
 * and reminded every `remindEvery` until answered, then never again — one notice per interval however
 * many workers run, since the due time is a stored column a worker claims; `answerTimeout` takes the
 * node's default once; `reviewTimeout` applies `onReviewTimeout` once. A real HTTP receiver, real
 * worker processes, short intervals.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dingtalkRobot } from '../notify/chat-apps.js';
import { startReceiver } from '../notify/receivers.js';
import { spawnDotplan, waitUntil } from '../support/cli.js';
import { testBackend } from '../support/db.js';
import { openWorkspace, statuses, workflow, type Workspace } from './workspace.js';

interface Received {
  at: number;
  kind: string;
  reminder: number;
  nodeId?: string;
}

describe('reminders and timeouts', () => {
  let ws: Workspace;
  let server: Server;
  let received: Received[];
  let url: string;
  beforeEach(async () => {
    ws = await openWorkspace();
    received = [];
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const notice = JSON.parse(body) as Omit<Received, 'at'>;
        received.push({ at: Date.now(), kind: notice.kind, reminder: notice.reminder, ...(notice.nodeId ? { nodeId: notice.nodeId } : {}) });
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  });
  afterEach(async () => {
    await ws.cleanup();
    await new Promise((resolve) => server.close(resolve));
  });

  const asking = (extra = '') =>
    workflow('asks', {
      nodes: [`ask [type=confirm question="Ship it?" remindEvery="1s"${extra}]`, 'after [type=function toolCode=echo toolInput="x"]'],
      edges: ['ask -> after'],
    });
  const worker = (extra: Record<string, string> = {}) =>
    spawnDotplan(['worker', '--quiet'], { cwd: ws.dir, env: { ...ws.env, DOTPLAN_NOTIFY_WEBHOOK: url, ...extra } });

  it('announces a question, reminds every interval until it is answered, then stops', async () => {
    const planId = await ws.createPlan(asking());
    const running = worker();
    await waitUntil(async () => received.length >= 3, 'the first notice and two reminders', 10_000);
    await ws.ok(['answer', planId, 'ask', 'yes']);
    const answeredAt = Date.now();
    await waitUntil(async () => (await statuses(ws, planId)).plan === 'completed', 'the plan to complete');
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    running.kill('SIGTERM');
    await running.exited;

    expect(received[0]).toMatchObject({ kind: 'question', reminder: 0, nodeId: 'ask' });
    expect(received.slice(1).every((r) => r.reminder >= 1)).toBe(true);
    expect(received.filter((r) => r.at > answeredAt + 500)).toEqual([]); // none after the answer
    for (let i = 1; i < received.length; i++) expect(received[i]!.at - received[i - 1]!.at).toBeGreaterThan(700); // one per interval
    const notices = (await ws.store.events.list(planId)).filter((e) => e.kind === 'notice' && e.detail?.channel === 'webhook');
    expect(notices.length).toBe(received.length); // each one recorded
  });

  it.runIf(testBackend() === 'postgres')('sends one reminder per interval with three workers on one database, not three', async () => {
    // Besides the webhook, a signed DingTalk robot that checks each call's signature as DingTalk does.
    const robot = await startReceiver(dingtalkRobot('SEC-ding'));
    const notify = JSON.stringify([{ type: 'dingtalk', url: `${robot.url}?access_token=T`, secret: 'SEC-ding' }]);
    try {
      const planId = await ws.createPlan(asking());
      const workers = [worker({ DOTPLAN_NOTIFY: notify }), worker({ DOTPLAN_NOTIFY: notify }), worker({ DOTPLAN_NOTIFY: notify })];
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      for (const w of workers) w.kill('SIGTERM');
      await Promise.all(workers.map((w) => w.exited));
      expect(received.length).toBeGreaterThanOrEqual(3);
      expect(received.length).toBeLessThanOrEqual(7); // about one a second over five seconds; three workers racing would send 15
      for (let i = 1; i < received.length; i++) expect(received[i]!.at - received[i - 1]!.at).toBeGreaterThan(700);
      expect(robot.received).toHaveLength(received.length);
      const toRobot = (await ws.store.events.list(planId)).filter((e) => e.kind === 'notice' && e.detail?.channel === 'dingtalk');
      expect(toRobot.map((e) => e.detail?.ok)).toEqual(received.map(() => true)); // every signature accepted
    } finally {
      await robot.close();
    }
  });

  it("takes the node's default when answerTimeout passes, once", async () => {
    const planId = await ws.createPlan(asking(' answerTimeout="1500ms" default="later"'));
    const running = worker();
    await waitUntil(async () => (await statuses(ws, planId)).plan === 'completed', 'the timeout to answer for the person', 10_000);
    running.kill('SIGTERM');
    await running.exited;
    expect(await ws.store.plans.node(planId, 'ask')).toMatchObject({ status: 'done', answer: 'later' });
    const answers = (await ws.store.events.list(planId)).filter((e) => e.kind === 'answer');
    expect(answers).toEqual([expect.objectContaining({ driver: 'engine', reason: expect.stringMatching(/^timeout: no answer within answerTimeout=1500ms/) })]);
  });

  it('applies onReviewTimeout once when nobody reviews in time', async () => {
    const file = ws.write(
      'reviewed.dot',
      workflow('reviewed', {
        graph: { review: 'required', reviewTimeout: '3s', onReviewTimeout: 'approve' },
        nodes: ['a [type=function toolCode=echo toolInput="A"]'],
      }),
    );
    const planId = (JSON.parse(await ws.ok(['plan', 'create', '--dot', file, '--json'])) as { id: string }).id;
    const running = worker();
    await waitUntil(async () => (await statuses(ws, planId)).plan === 'completed', 'the review timeout to approve the plan', 10_000);
    running.kill('SIGTERM');
    await running.exited;
    const reviews = (await ws.store.events.list(planId)).filter((e) => e.kind === 'review');
    expect(reviews).toEqual([expect.objectContaining({ driver: 'engine', detail: { decision: 'approved', timeout: true } })]);
    // The review was announced while it waited (3 s leave a starting worker time to announce it first).
    await waitUntil(async () => received.some((r) => r.kind === 'review'), 'the review notice to arrive');
  });
});

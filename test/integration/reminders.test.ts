/**
 * Plans wait for people for hours or weeks (issue 9): a question is announced when it starts waiting
 * and reminded every `remindEvery` until answered, then never again — one notice per interval however
 * many workers run, since the due time is a stored column a worker claims; `answerTimeout` takes the
 * node's default once; `reviewTimeout` applies `onReviewTimeout` once. A real HTTP receiver, real
 * workers (three worker processes where several workers are the point), short intervals.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dingtalkRobot } from '../notify/chat-apps.js';
import { startReceiver } from '../notify/receivers.js';
import { openDotplan } from '../../src/operations/open.js';
import { waitUntil } from '../support/cli.js';
import { testBackend } from '../support/db.js';
import { openWorkspace, statuses, workflow, type Workspace } from './workspace.js';

interface Received {
  at: number;
  kind: string;
  reminder: number;
  planId: string;
  nodeId?: string;
  since: string;
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
        received.push({
          at: Date.now(),
          kind: notice.kind,
          reminder: notice.reminder,
          planId: notice.planId,
          since: notice.since,
          ...(notice.nodeId ? { nodeId: notice.nodeId } : {}),
        });
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
  const worker = (extra: Record<string, string> = {}) => ws.spawn(['worker', '--quiet'], { env: { DOTPLAN_NOTIFY_WEBHOOK: url, ...extra } });
  const workerProcess = (extra: Record<string, string> = {}) => ws.spawnProcess(['worker', '--quiet'], { env: { DOTPLAN_NOTIFY_WEBHOOK: url, ...extra } });
  const of = (planId: string) => received.filter((r) => r.planId === planId);

  it('announces a question, reminds every interval until it is answered, then stops', async () => {
    const planId = await ws.createPlan(asking());
    const running = worker();
    await waitUntil(async () => of(planId).length >= 3, 'the first notice and two reminders');
    await ws.ok(['answer', planId, 'ask', 'yes']);
    const answeredAt = Date.now();
    await waitUntil(async () => (await statuses(ws, planId)).plan === 'completed', 'the plan to complete');
    // Proof that reminders went on being sent after the answer: another plan's question, asked now, is reminded twice.
    const other = await ws.createPlan(asking());
    await waitUntil(async () => of(other).filter((r) => r.reminder >= 2).length > 0, "two reminders of another plan's question");
    running.stop();
    await running.exited;

    const mine = of(planId);
    expect(mine[0]).toMatchObject({ kind: 'question', reminder: 0, nodeId: 'ask' });
    expect(mine.slice(1).every((r) => r.reminder >= 1)).toBe(true);
    expect(mine.filter((r) => r.at > answeredAt + 500)).toEqual([]); // none after the answer
    for (let i = 1; i < mine.length; i++) expect(mine[i]!.at - mine[i - 1]!.at).toBeGreaterThan(700); // one per interval
    const notices = (await ws.store.events.list(planId)).filter((e) => e.kind === 'notice' && e.detail?.channel === 'webhook');
    expect(notices.length).toBe(mine.length); // each one recorded
  });

  it.runIf(testBackend() === 'postgres')('sends one reminder per interval with three workers on one database, not three', async () => {
    // Besides the webhook, a signed DingTalk robot that checks each call's signature as DingTalk does.
    const robot = await startReceiver(dingtalkRobot('SEC-ding'));
    const notify = JSON.stringify([{ type: 'dingtalk', url: `${robot.url}?access_token=T`, secret: 'SEC-ding' }]);
    try {
      const planId = await ws.createPlan(asking());
      const workers = [workerProcess({ DOTPLAN_NOTIFY: notify }), workerProcess({ DOTPLAN_NOTIFY: notify }), workerProcess({ DOTPLAN_NOTIFY: notify })];
      await waitUntil(async () => received.length >= 5, 'the first notice and four reminders');
      for (const w of workers) w.kill('SIGTERM');
      await Promise.all(workers.map((w) => w.exited));
      // Each notice once, about one interval apart: three workers racing would send each one three times.
      expect(received[0]!.reminder).toBe(0);
      for (let i = 1; i < received.length; i++) expect(received[i]!.reminder).toBeGreaterThan(received[i - 1]!.reminder);
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
    await waitUntil(async () => (await statuses(ws, planId)).plan === 'completed', 'the timeout to answer for the person');
    running.stop();
    await running.exited;
    expect(await ws.store.plans.node(planId, 'ask')).toMatchObject({ status: 'done', answer: 'later' });
    const answers = (await ws.store.events.list(planId)).filter((e) => e.kind === 'answer');
    expect(answers).toEqual([expect.objectContaining({ driver: 'engine', reason: expect.stringMatching(/^timeout: no answer within answerTimeout=1500ms/) })]);
  });

  it('counts reminders and answerTimeout from the move into waiting: a label edit meanwhile restarts nothing', async () => {
    const planId = await ws.createPlan(asking(' answerTimeout="6s" default="later"'));
    const operator = await openDotplan({ config: { databaseUrl: ws.url }, cwd: ws.dir });
    try {
      const running = worker();
      await waitUntil(async () => received.length >= 2, 'the first notice and a reminder', 15_000);
      const asked = (await ws.store.events.list(planId)).find((e) => e.nodeId === 'ask' && e.to === 'awaiting_input')!;
      expect(Math.abs(Date.parse(received[0]!.since) - asked.at.getTime())).toBeLessThan(100); // written with the move

      // An operator's edit of a display attribute while the question waits (in process: it lands at once).
      const shown = await operator.show(planId);
      expect(shown).toContain('question="Ship it?"');
      expect((await operator.apply(planId, shown.replace('question="Ship it?"', 'label="Ship it (edited)", question="Ship it?"'))).applied).toBe(true);
      const editedAt = Date.now();

      await waitUntil(async () => received.some((r) => r.at > editedAt + 200), 'a reminder after the edit', 15_000);
      expect(received.map((r) => r.since)).toEqual(received.map(() => received[0]!.since)); // one "since" for the whole wait
      await waitUntil(async () => (await statuses(ws, planId)).plan === 'completed', 'the timeout to answer', 15_000);
      running.stop();
      await running.exited;
      const answered = (await ws.store.events.list(planId)).find((e) => e.kind === 'answer')!;
      expect(answered.reason).toMatch(/^timeout: no answer within answerTimeout=6s/);
      // Due 6 s after the question (counting from the edit would make it 6 s after the edit).
      expect(answered.at.getTime() - asked.at.getTime()).toBeGreaterThanOrEqual(6_000);
      expect(answered.at.getTime() - editedAt).toBeLessThan(6_000);
    } finally {
      await operator.close();
    }
  });

  it('applies onReviewTimeout once when nobody reviews in time', async () => {
    // The worker is up before the plan exists, so it announces the review at once, long before the 3 s pass.
    const running = ws.spawn(['worker'], { env: { DOTPLAN_NOTIFY_WEBHOOK: url } });
    await running.waitForOutput(/^worker .* on (sqlite|postgres)/);
    const file = ws.write(
      'reviewed.dot',
      workflow('reviewed', {
        graph: { review: 'required', reviewTimeout: '3s', onReviewTimeout: 'approve' },
        nodes: ['a [type=function toolCode=echo toolInput="A"]'],
      }),
    );
    const planId = (JSON.parse(await ws.ok(['plan', 'create', '--dot', file, '--json'])) as { id: string }).id;
    await waitUntil(async () => (await statuses(ws, planId)).plan === 'completed', 'the review timeout to approve the plan');
    running.stop();
    await running.exited;
    const reviews = (await ws.store.events.list(planId)).filter((e) => e.kind === 'review');
    expect(reviews).toEqual([expect.objectContaining({ driver: 'engine', detail: { decision: 'approved', timeout: true } })]);
    // The review was announced while it waited.
    await waitUntil(async () => received.some((r) => r.kind === 'review'), 'the review notice to arrive');
    const events = await ws.store.events.list(planId);
    const announced = events.find((e) => e.kind === 'notice' && e.detail?.channel === 'webhook')!;
    expect(announced.id).toBeLessThan(reviews[0]!.id);
  });
});

/**
 * Notices reach chat apps, from a real worker process: a signed DingTalk robot, a signed Feishu bot,
 * a Slack incoming webhook and a signed generic webhook — each a real HTTP receiver here that checks
 * the request as the app would — plus three that fail (a 500, one that never answers, a refused
 * port). The failing ones are retried and recorded, and the plan still runs to its end once
 * answered. A plan's `notify` attribute picks notifiers by name. Each outcome is recorded when it
 * happens, so the audit log is in the order things happened.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dingtalkRobot, feishuBot, signedWebhook } from '../notify/chat-apps.js';
import { refusedUrl, startReceiver, type Receiver } from '../notify/receivers.js';
import { runDotplan, waitUntil } from '../support/cli.js';
import { openWorkspace, workflow, type Workspace } from './workspace.js';

describe('notifications to chat apps', () => {
  let ws: Workspace;
  const receivers: Receiver[] = [];
  const receiver = async (...args: Parameters<typeof startReceiver>) => {
    const r = await startReceiver(...args);
    receivers.push(r);
    return r;
  };
  beforeEach(async () => {
    ws = await openWorkspace();
  });
  afterEach(async () => {
    await ws.cleanup();
    for (const r of receivers.splice(0)) await r.close();
  });

  it('sends each question to every notifier; failing ones are retried, recorded and stop nothing', async () => {
    const dingtalk = await receiver(dingtalkRobot('SEC-ding'));
    const feishu = await receiver(feishuBot('SEC-fs'));
    const slack = await receiver({ status: 200, body: 'ok' });
    const hook = await receiver(signedWebhook('SEC-hook'));
    const broken = await receiver({ status: 500, body: 'internal error' });
    const silent = await receiver('hang');
    const refused = await refusedUrl();
    ws.write(
      'dotplan.config.json',
      JSON.stringify({
        notify: {
          targets: [
            { type: 'dingtalk', url: `${dingtalk.url}?access_token=T`, secret: 'env:DING_SECRET' },
            { type: 'feishu', url: feishu.url, secret: 'SEC-fs' },
            { type: 'slack', url: slack.url },
            { type: 'webhook', name: 'audit', url: hook.url, secret: 'SEC-hook' },
            { type: 'webhook', name: 'broken', url: broken.url },
            { type: 'webhook', name: 'silent', url: silent.url, timeout: '300ms' },
            { type: 'slack', name: 'refused', url: refused },
          ],
          retries: 2,
          retryDelay: '50ms',
        },
      }),
    );
    const everyone = await ws.createPlan(
      workflow('release', {
        nodes: ['ship [type=confirm question="Ship release 1.2?" options="yes,no,later"]', 'after [type=function toolCode=echo toolInput="shipped"]'],
        edges: ['ship -> after'],
      }),
    );
    const dingOnly = await ws.createPlan(
      workflow('hotfix', { graph: { notify: 'dingtalk, pager' }, nodes: ['ok [type=confirm question="Deploy the hotfix?"]'] }),
    );

    const first = await runDotplan(['worker', '--until-idle', '--quiet'], { cwd: ws.dir, env: { ...ws.env, DING_SECRET: 'SEC-ding' } });
    expect(first.code, first.stderr).toBe(0);

    // Every working receiver accepted the first plan's question once (a bad signature would be an error event).
    const texts = (r: Receiver, pick: (json: Record<string, unknown>) => unknown) => r.received.map((q) => String(pick(q.json)));
    expect(texts(feishu, (j) => (j.content as { text: string }).text)).toEqual([expect.stringContaining('Ship release 1.2? [yes / no / later]')]);
    expect(texts(slack, (j) => j.text)).toEqual([expect.stringContaining(`dotplan answer ${everyone} ship`)]);
    expect(hook.received.map((q) => q.json)).toEqual([expect.objectContaining({ planId: everyone, nodeId: 'ship', options: ['yes', 'no', 'later'] })]);
    // DingTalk is the only notifier the second plan names; "pager" is not configured, and the event says so.
    const dingTexts = texts(dingtalk, (j) => (j.text as { content: string }).content);
    expect(dingTexts).toHaveLength(2);
    expect(dingTexts).toEqual(expect.arrayContaining([expect.stringContaining('Deploy the hotfix?'), expect.stringContaining('Ship release 1.2?')]));
    // The failing ones: three attempts each (retries: 2), each outcome an event, the reason on the console.
    expect(broken.received).toHaveLength(3);
    expect(silent.received).toHaveLength(3);
    expect(first.stderr).toContain('notify: refused (slack) failed after 3 attempts: ');
    expect(first.stderr).toContain('ECONNREFUSED');

    type Sent = { ok: unknown; attempts: unknown; reason: string | undefined };
    const notices = async (planId: string): Promise<Record<string, Sent>> =>
      Object.fromEntries(
        (await ws.store.events.list(planId))
          .filter((e) => e.kind === 'notice')
          .map((e): [string, Sent] => [String(e.detail?.channel), { ok: e.detail?.ok, attempts: e.detail?.attempts, reason: e.reason }]),
      );
    const sent = await notices(everyone);
    expect(Object.keys(sent).sort()).toEqual(['audit', 'broken', 'console', 'dingtalk', 'feishu', 'refused', 'silent', 'slack']);
    for (const ok of ['console', 'dingtalk', 'feishu', 'slack', 'audit']) expect(sent[ok], ok).toMatchObject({ ok: true, attempts: 1 });
    expect(sent.broken).toMatchObject({
      ok: false,
      attempts: 3,
      reason: 'question to broken (webhook) failed after 3 attempts: answered 500 Internal Server Error: internal error',
    });
    expect(sent.silent).toMatchObject({ ok: false, attempts: 3, reason: expect.stringContaining('did not answer within 300 ms') });
    const hotfix = await notices(dingOnly);
    expect(Object.keys(hotfix).sort()).toEqual(['console', 'dingtalk', 'pager']);
    expect(hotfix.pager?.reason).toContain('names "pager", which is not configured (configured: dingtalk, feishu, slack, audit, broken, silent, refused)');

    // The plan goes on: answered, it runs to its end.
    await ws.ok(['answer', everyone, 'ship', 'YES']);
    const second = await runDotplan(['worker', '--until-idle', '--quiet'], { cwd: ws.dir, env: { ...ws.env, DING_SECRET: 'SEC-ding' } });
    expect(second.code, second.stderr).toBe(0);
    const plan = JSON.parse(await ws.ok(['plan', 'show', everyone, '--format', 'json'])) as { status: string; nodes: Array<{ id: string; answer?: string }> };
    expect(plan.status).toBe('completed');
    expect(plan.nodes.find((n) => n.id === 'ship')?.answer).toBe('yes');
  }, 60_000);

  it("records each notifier's outcome when it happens: a fast delivery comes before an answer given while a slow one still fails", async () => {
    let release = () => undefined as void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const fast = await receiver({ status: 200, body: 'ok' });
    const slow = await receiver({ status: 500, body: 'gave up', after: released }); // answers (an error) only when the test says so
    ws.write(
      'dotplan.config.json',
      JSON.stringify({
        notify: {
          targets: [
            { type: 'webhook', name: 'fast', url: fast.url },
            { type: 'webhook', name: 'slow', url: slow.url, timeout: '60s' },
          ],
          retries: 0,
        },
      }),
    );
    const planId = await ws.createPlan(workflow('asks', { nodes: ['ask [type=confirm question="Ship it?"]'] }));
    const worker = ws.spawn(['worker', '--quiet']);
    const notices = async () => (await ws.store.events.list(planId)).filter((e) => e.kind === 'notice');
    await waitUntil(async () => (await notices()).some((e) => e.detail?.channel === 'fast'), 'the fast delivery in the audit log, while the slow one hangs');
    expect(slow.received).toHaveLength(1); // still waiting for its answer
    await ws.ok(['answer', planId, 'ask', 'yes']);
    release();
    await waitUntil(async () => (await notices()).some((e) => e.detail?.channel === 'slow'), 'the slow failure in the audit log');
    worker.stop();
    await worker.exited;

    const order = (await ws.store.events.list(planId))
      .filter((e) => e.kind === 'notice' || e.kind === 'answer')
      .map((e) => (e.kind === 'answer' ? 'answer' : `${String(e.detail?.channel)}:${e.detail?.ok === true ? 'ok' : 'failed'}`));
    expect(order).toEqual(['console:ok', 'fast:ok', 'answer', 'slow:failed']);
  }, 60_000);
});

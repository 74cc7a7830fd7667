/**
 * Sending one notice to real HTTP receivers: each chat app's format and signature as its receiving
 * side checks it, and the retry rules — an error status, a timeout and a refused connection are
 * retried with backoff; an answer another try cannot change is not; nothing is ever thrown.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { sendOne, type SendPolicy } from '../../src/notify/send.js';
import type { Notice } from '../../src/notify/notice.js';
import type { NotifierConfig } from '../../src/notify/targets.js';
import { dingtalkRobot, feishuBot, signedWebhook } from './chat-apps.js';
import { refusedUrl, startReceiver, type Receiver } from './receivers.js';
import { waitUntil } from '../support/wait.js';

const notice: Notice = {
  kind: 'question',
  planId: 'p_1',
  planTitle: 'Release',
  nodeId: 'approve',
  question: 'Ship release 1.2?',
  options: ['yes', 'no', 'later'],
  reminder: 2,
  since: new Date('2026-11-23T10:00:00Z'),
};
const policy: SendPolicy = { retries: 2, retryDelayMs: 20 };
const target = (type: NotifierConfig['type'], url: string, extra: Partial<NotifierConfig> = {}): NotifierConfig => ({
  name: type,
  type,
  url,
  timeoutMs: 2_000,
  ...extra,
});

describe('notifiers', () => {
  const receivers: Receiver[] = [];
  const receiver = async (...args: Parameters<typeof startReceiver>) => {
    const r = await startReceiver(...args);
    receivers.push(r);
    return r;
  };
  afterEach(async () => {
    for (const r of receivers.splice(0)) await r.close();
  });

  describe('formats and signatures', () => {
    it('DingTalk: a text message whose timestamp and sign the robot accepts; a wrong secret is refused and not retried', async () => {
      const robot = await receiver(dingtalkRobot('SEC-ding'));
      const url = `${robot.url}?access_token=abc`;
      expect(await sendOne(target('dingtalk', url, { secret: 'SEC-ding' }), notice, policy)).toEqual({
        name: 'dingtalk',
        type: 'dingtalk',
        ok: true,
        attempts: 1,
      });
      expect(robot.received[0]!.url.searchParams.get('access_token')).toBe('abc');
      const content = (robot.received[0]!.json as { text: { content: string } }).text.content;
      expect(content).toContain('Reminder (2): plan p_1 asks: Ship release 1.2? [yes / no / later]');
      expect(content).toContain('Answer with: dotplan answer p_1 approve yes');

      const wrong = await sendOne(target('dingtalk', url, { secret: 'not-the-secret' }), notice, policy);
      expect(wrong).toMatchObject({ ok: false, attempts: 1, error: 'answered error 310000 (sign not match)' });
    });

    it('DingTalk: its rate-limit code (130101) is retried', async () => {
      let calls = 0;
      const robot = await receiver(() => ({
        status: 200,
        body: JSON.stringify(++calls === 1 ? { errcode: 130101, errmsg: 'send too fast' } : { errcode: 0 }),
      }));
      expect(await sendOne(target('dingtalk', robot.url), notice, policy)).toMatchObject({ ok: true, attempts: 2 });
    });

    it('Feishu and Lark: a text message with the signature in the body', async () => {
      for (const type of ['feishu', 'lark'] as const) {
        const bot = await receiver(feishuBot('SEC-fs'));
        expect(await sendOne(target(type, bot.url, { secret: 'SEC-fs' }), notice, policy)).toMatchObject({ ok: true, attempts: 1 });
        expect((bot.received[0]!.json as { content: { text: string } }).content.text).toContain('Ship release 1.2?');
        expect(await sendOne(target(type, bot.url, { secret: 'wrong' }), notice, policy)).toMatchObject({
          ok: false,
          attempts: 1,
          error: expect.stringContaining('error 19021'),
        });
      }
    });

    it('Slack: {"text"} to an incoming webhook', async () => {
      const slack = await receiver({ status: 200, body: 'ok' });
      expect(await sendOne(target('slack', slack.url), notice, policy)).toMatchObject({ ok: true });
      expect(Object.keys(slack.received[0]!.json)).toEqual(['text']);
      expect(slack.received[0]!.json.text).toContain('Ship release 1.2?');
    });

    it('webhook: the notice as JSON with the answer command, signed with the shared secret, one delivery id across retries', async () => {
      let calls = 0;
      const check = signedWebhook('SEC-hook');
      const hook = await receiver((request) => (++calls === 1 ? { status: 503 } : check(request)));
      expect(await sendOne(target('webhook', hook.url, { secret: 'SEC-hook', headers: { authorization: 'Bearer t0ken' } }), notice, policy)).toMatchObject({
        ok: true,
        attempts: 2,
      });
      const [first, second] = hook.received;
      expect(second!.json).toMatchObject({
        kind: 'question',
        planId: 'p_1',
        nodeId: 'approve',
        question: 'Ship release 1.2?',
        options: ['yes', 'no', 'later'],
        reminder: 2,
        since: '2026-11-23T10:00:00.000Z',
        answerCommand: 'dotplan answer p_1 approve yes',
      });
      expect(second!.headers).toMatchObject({ authorization: 'Bearer t0ken', 'x-dotplan-event': 'question' });
      expect(second!.headers['x-dotplan-delivery']).toBe(first!.headers['x-dotplan-delivery']);
      expect(await sendOne(target('webhook', hook.url, { secret: 'other' }), notice, policy)).toMatchObject({
        ok: false,
        attempts: 1,
        error: 'answered 401 Unauthorized: bad signature',
      });
    });
  });

  describe('failures', () => {
    it('a 500 is retried with growing waits, then reported (never thrown)', async () => {
      const failing = await receiver({ status: 500, body: 'boom' });
      const retries: number[] = [];
      const result = await sendOne(target('webhook', failing.url), notice, { retries: 3, retryDelayMs: 40, onRetry: (_t, _a, _e, wait) => retries.push(wait) });
      expect(result).toEqual({ name: 'webhook', type: 'webhook', ok: false, attempts: 4, error: 'answered 500 Internal Server Error: boom' });
      expect(failing.received).toHaveLength(4);
      expect(retries).toHaveLength(3);
      // 40, 80, 160 ms, each within ±25 %; the receiver saw the gaps.
      retries.forEach((wait, i) => expect(wait).toBeGreaterThanOrEqual(40 * 2 ** i * 0.75));
      const gaps = failing.received.slice(1).map((r, i) => r.at - failing.received[i]!.at);
      expect(gaps[2]).toBeGreaterThan(gaps[0]!);
    });

    it('a receiver that never answers times out and is retried', async () => {
      const hanging = await receiver('hang');
      const result = await sendOne(target('slack', hanging.url, { timeoutMs: 200 }), notice, { retries: 1, retryDelayMs: 10 });
      expect(result).toMatchObject({ ok: false, attempts: 2, error: `${new URL(hanging.url).host} did not answer within 200 ms` });
      expect(hanging.received).toHaveLength(2);
    });

    it('a refused connection is retried and named', async () => {
      const url = await refusedUrl();
      expect(await sendOne(target('webhook', url), notice, { retries: 2, retryDelayMs: 10 })).toMatchObject({
        ok: false,
        attempts: 3,
        error: `${new URL(url).host} could not be reached: ECONNREFUSED`,
      });
    });

    it('a 404 is not retried; a 429 waits for its Retry-After', async () => {
      const gone = await receiver({ status: 404, body: 'no_service' });
      expect(await sendOne(target('slack', gone.url), notice, policy)).toMatchObject({ ok: false, attempts: 1, error: 'answered 404 Not Found: no_service' });
      let calls = 0;
      const limited = await receiver(() => (++calls === 1 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 200 }));
      expect(await sendOne(target('webhook', limited.url), notice, policy)).toMatchObject({ ok: true, attempts: 2 });
      expect(limited.received[1]!.at - limited.received[0]!.at).toBeGreaterThanOrEqual(950);
    });

    it('a stopping worker abandons the retries at once', async () => {
      const failing = await receiver({ status: 502 });
      const stop = new AbortController();
      const sending = sendOne(target('webhook', failing.url), notice, { retries: 5, retryDelayMs: 60_000, signal: stop.signal });
      await waitUntil(() => failing.received.length > 0, 'the first attempt to arrive');
      stop.abort();
      // Stopped during the first attempt's answer or during the wait before the second: either way, no second attempt.
      expect(await sending).toMatchObject({ ok: false, attempts: 1, error: expect.stringMatching(/(abandoned|not retried): the worker is stopping/) });
      expect(failing.received).toHaveLength(1);
    });
  });
});

/**
 * With the server's public address configured (`serve.publicUrl`), a notice links to the page where it
 * is answered: the chat message ends with `Open: <url>` and the webhook body carries `link`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Announcer } from '../../src/notify/announcer.js';
import type { Notice } from '../../src/notify/notice.js';
import { startReceiver, type Receiver } from './receivers.js';

const question: Notice = { kind: 'question', planId: 'p_1', planTitle: 'Release', nodeId: 'ship it', question: 'Ship?', reminder: 0, since: new Date() };
const review: Notice = { kind: 'review', planId: 'p_2', planTitle: 'Plan', reminder: 0, since: new Date() };

let receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  receivers = [];
});

async function announced(notice: Notice, publicUrl?: string): Promise<{ printed: string[]; slack: string; webhook: Record<string, unknown> }> {
  const [slack, hook] = await Promise.all([startReceiver(), startReceiver()]);
  receivers.push(slack, hook);
  const printed: string[] = [];
  const announcer = new Announcer({
    targets: [
      { name: 'slack', type: 'slack', url: slack.url, timeoutMs: 2_000 },
      { name: 'hook', type: 'webhook', url: hook.url, timeoutMs: 2_000 },
    ],
    retries: 0,
    retryDelayMs: 10,
    print: (line) => printed.push(line),
    record: async () => undefined,
    ...(publicUrl !== undefined ? { publicUrl } : {}),
  });
  await announcer.announce(notice);
  return { printed, slack: String(slack.received[0]!.json.text), webhook: hook.received[0]!.json };
}

describe('notices with the UI’s public address', () => {
  it('link a question to its node on its plan’s page, in the chat text, the console and the webhook body', async () => {
    const { printed, slack, webhook } = await announced(question, 'https://plans.example.com/');
    const link = 'https://plans.example.com/#/plans/p_1?node=ship%20it';
    expect(slack).toContain(`Open: ${link}`);
    expect(printed[0]).toContain(`Open: ${link}`);
    expect(webhook.link).toBe(link);
  });

  it('link a review to its plan', async () => {
    const { slack } = await announced(review, 'https://plans.example.com');
    expect(slack).toContain('Open: https://plans.example.com/#/plans/p_2');
  });

  it('say nothing of a UI when no public address is configured', async () => {
    const { slack, webhook } = await announced(question);
    expect(slack).not.toContain('Open:');
    expect(webhook.link).toBeUndefined();
  });
});

import { commandLine } from '../model/command-line.js';
import type { Notice } from './attention.js';

/**
 * Tells people that something waits for them — a node's question, a plan's review — the first time
 * and at each reminder: a console line always, and a POST of JSON to a webhook when one is configured
 * (`notify.webhookUrl`). The body carries `text`, which chat-bot webhooks (Slack, Mattermost, Teams
 * connectors, ...) display as the message, plus the details.
 */
export type { Notice } from './attention.js';

export function noticeText(notice: Pick<Notice, 'planId' | 'reminder'> & Partial<Notice>): string {
  const prefix = notice.reminder > 0 ? `Reminder (${notice.reminder}): ` : '';
  if (notice.kind === 'review') {
    return `${prefix}plan ${notice.planId} "${notice.planTitle ?? ''}" waits for your review\nApprove with: ${commandLine('dotplan', 'plan', 'approve', notice.planId)} (or plan reject --reason, plan modify)`;
  }
  const options = notice.options?.length ? ` [${notice.options.join(' / ')}]` : '';
  return `${prefix}plan ${notice.planId} asks: ${notice.question ?? `node ${notice.nodeId ?? ''} is waiting for an answer`}${options}\nAnswer with: ${commandLine('dotplan', 'answer', notice.planId, notice.nodeId ?? '')} "<your answer>"`;
}

/** POSTs the notice; a failing webhook is reported, never fatal to the worker. */
export async function postNotice(webhookUrl: string, notice: Notice, signal?: AbortSignal): Promise<void> {
  const response = await fetch(webhookUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text: noticeText(notice), ...notice }),
    signal: signal ?? AbortSignal.timeout(10_000),
  });
  if (!response.ok) throw new Error(`webhook ${new URL(webhookUrl).host} answered ${response.status} ${response.statusText}`);
}

import { commandLine } from '../model/command-line.js';
import type { QuestionAsked } from './worker.js';

/**
 * Tells people that a node waits for their answer: a console line always, and a POST of JSON to a
 * webhook when one is configured (`notify.webhookUrl`). The body carries `text`, which chat-bot
 * webhooks (Slack, Mattermost, Teams connectors, ...) display as the message, plus the details.
 */
export interface QuestionNotice {
  planId: string;
  nodeId: string;
  question: string;
  component?: string;
  payload?: string;
  /** How many times this question was sent before (0 for the first notice). */
  reminder: number;
}

export function questionNotice(asked: QuestionAsked, reminder = 0): QuestionNotice {
  return { ...asked, reminder };
}

export function noticeText(notice: QuestionNotice): string {
  const prefix = notice.reminder > 0 ? `Reminder (${notice.reminder}): ` : '';
  return `${prefix}plan ${notice.planId} asks: ${notice.question}\nAnswer with: ${commandLine('dotplan', 'answer', notice.planId, notice.nodeId)} "<your answer>"`;
}

/** POSTs the notice; a failing webhook is reported, never fatal to the worker. */
export async function postNotice(webhookUrl: string, notice: QuestionNotice, signal?: AbortSignal): Promise<void> {
  const response = await fetch(webhookUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text: noticeText(notice), ...notice }),
    signal: signal ?? AbortSignal.timeout(10_000),
  });
  if (!response.ok) throw new Error(`webhook ${new URL(webhookUrl).host} answered ${response.status} ${response.statusText}`);
}

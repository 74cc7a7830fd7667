import { answerCommand } from '../model/command-line.js';
import type { Waiting } from '../model/waiting.js';

/**
 * What a notice says: something waits for a person — a node's question or a plan's review — sent the
 * first time it starts waiting and at each reminder. Every notifier renders the same words (`text`);
 * the generic webhook also sends the fields.
 */
export interface Notice extends Waiting {
  /** 0: the first notice; n: the n-th reminder. */
  reminder: number;
  /** The plan's `notify` graph attribute: the configured notifiers (by name) its notices go to. */
  notifiers?: string[];
  /** A question in a child plan: where it is from the root (`<root title> › research › searcher_001 › approve`). */
  path?: string;
  /** Where to act on it in the web UI, when the server's public address is configured (`serve.publicUrl`). */
  link?: string;
  /** A sample from `dotplan notify test`: nothing waits and nothing is to be answered (the webhook body says `"test": true`). */
  test?: true;
}

/** The notice in words: what waits, the options, and the command that answers it; a test says so first. */
export function noticeText(notice: Pick<Notice, 'planId' | 'reminder'> & Partial<Notice>): string {
  const text = waitingText(notice) + (notice.link !== undefined ? `\nOpen: ${notice.link}` : '');
  return notice.test ? `[TEST] dotplan notify test: a sample of the notices people get; nothing waits, nothing to answer.\n${text}` : text;
}

function waitingText(notice: Pick<Notice, 'planId' | 'reminder'> & Partial<Notice>): string {
  const prefix = notice.reminder > 0 ? `Reminder (${notice.reminder}): ` : '';
  if (notice.kind === 'review') {
    return `${prefix}plan ${notice.planId} "${notice.planTitle ?? ''}" waits for your review\nApprove with: ${answerCommand({ kind: 'review', planId: notice.planId })} (or plan reject --reason, plan modify)`;
  }
  const options = notice.options?.length ? ` [${notice.options.join(' / ')}]` : '';
  const command = answerCommand({ ...notice, kind: 'question' });
  const where = notice.path !== undefined ? `\nIn: ${notice.path}` : '';
  return `${prefix}plan ${notice.planId} asks: ${notice.question ?? `node ${notice.nodeId ?? ''} is waiting for an answer`}${options}${where}\nAnswer with: ${command}`;
}

/** The generic webhook's JSON body: `text` (what chat-bot webhooks show) and the details. */
export function noticeBody(notice: Notice): Record<string, unknown> {
  const { notifiers: _notifiers, ...fields } = notice;
  return { text: noticeText(notice), ...fields, answerCommand: answerCommand(notice), since: notice.since.toISOString() };
}

import * as engine from '../engine/index.js';
import { commaList } from '../model/attributes.js';
import { parseDuration } from '../model/duration.js';
import { waitingFrom } from '../model/waiting.js';
import type { Notice } from '../notify/notice.js';
import type { DueNotice, Store } from '../store/index.js';

/**
 * People in the loop, from the worker's side (issue 9): each round it looks for questions and reviews
 * due a notice — the first one when they start waiting, then a reminder every `remindEvery` (node,
 * plan, else the configured interval) until answered or decided — claims each one in the store (one
 * worker wins, however many run) and hands it to the host to send. The same rounds apply
 * `answerTimeout` (the node's `default`, else it fails) and `reviewTimeout` (`onReviewTimeout`).
 */
export type { Notice } from '../notify/notice.js';

/** How often a worker looks for due notices and timeouts at most. */
const SWEEP_EVERY_MS = 1_000;

export class Attention {
  #last = 0;

  constructor(
    private readonly store: Store,
    /** `sends`: whether anyone takes notices now; a worker nobody listens to claims none (they stay due for one that sends them). */
    private readonly options: { remindEveryMs: number; send: (notice: Notice) => void; sends: () => boolean },
  ) {}

  /**
   * One look, at most once a second (unless forced): claims and sends what is due, applies timeouts.
   * Returns 0 when it looked, else the ms until it may look again.
   */
  async sweep(force = false): Promise<number> {
    const started = Date.now();
    if (!force && started - this.#last < SWEEP_EVERY_MS) return SWEEP_EVERY_MS - (started - this.#last);
    this.#last = started;
    const due = await this.store.attention.due(50);
    if (due.length === 0) return 0;
    const now = await this.store.attention.now();
    for (const item of due) {
      const timeout = timeoutAt(item);
      if (timeout !== undefined && timeout.at <= now) {
        await this.#timeOut(item, timeout.why);
        continue;
      }
      if (!this.options.sends()) continue;
      const next = Math.min(now + this.#interval(item), timeout?.at ?? Infinity);
      if (!(await this.store.attention.claim(item, next))) continue; // another worker sent it
      const reminder = item.remindAt === null ? 0 : Math.max(1, Math.round((now - item.since.getTime()) / this.#interval(item)));
      this.options.send(notice(item, reminder));
    }
    return 0;
  }

  /** When the next notice is due (for the worker's wake-up timer); none when nobody takes notices (timeouts then wait for the poll). */
  async nextDue(): Promise<Date | undefined> {
    return this.options.sends() ? this.store.attention.nextDue() : undefined;
  }

  #interval(item: DueNotice): number {
    const text = item.attributes?.remindEvery ?? item.planAttributes.remindEvery;
    return (text !== undefined ? parseDuration(text) : undefined) ?? this.options.remindEveryMs;
  }

  async #timeOut(item: DueNotice, why: string): Promise<void> {
    if (item.kind === 'question') {
      await this.store.plans.change(item.planId, { nodes: [item.nodeId!] }, (snapshot) => engine.answerTimedOut(snapshot, item.nodeId!, why));
    } else {
      await this.store.plans.change(item.planId, { candidates: true }, (snapshot, candidates) => engine.reviewTimedOut(snapshot, why, candidates));
    }
  }
}

/** When the question or review times out, if it does. */
function timeoutAt(item: DueNotice): { at: number; why: string } | undefined {
  const key = item.kind === 'question' ? 'answerTimeout' : 'reviewTimeout';
  const text = item.kind === 'question' ? item.attributes?.[key] : item.planAttributes[key];
  const ms = text !== undefined ? parseDuration(text) : undefined;
  return ms === undefined ? undefined : { at: item.since.getTime() + ms, why: `no ${item.kind === 'question' ? 'answer' : 'decision'} within ${key}=${text}` };
}

function notice(item: DueNotice, reminder: number): Notice {
  const notifiers = item.planAttributes.notify;
  return { ...waitingFrom(item), reminder, ...(notifiers !== undefined ? { notifiers: commaList(notifiers) } : {}) };
}

import * as engine from '../engine/index.js';
import { commaList } from '../model/attributes.js';
import { parseDuration } from '../model/duration.js';
import { waitingFrom } from '../model/waiting.js';
import type { Notice } from '../notify/notice.js';
import { pathOf, type DueNotice, type Store } from '../store/index.js';

/**
 * People in the loop, from the worker's side (issue 9): each round it works out when the waits that
 * began since the last look time out, applies the timeouts that have come — `answerTimeout` (the
 * node's `default`, else it fails), `reviewTimeout` (`onReviewTimeout`) — earliest first, whether or
 * not anyone takes notices here, then looks for questions and reviews due a notice — the first one
 * when they start waiting, then a reminder every `remindEvery` (node, plan, else the configured
 * interval) until answered or decided — claims each one in the store (one worker wins, however many
 * run) and hands it to the host to send. Every time counts from the wait's one `since`.
 */
export type { Notice } from '../notify/notice.js';

/** How often a worker looks for due notices and timeouts at most. */
const SWEEP_EVERY_MS = 1_000;
/** Waits read at once; a look reads more batches while they come full, up to BATCHES. */
const BATCH = 50;
const BATCHES = 20;

export class Attention {
  #last = 0;

  constructor(
    private readonly store: Store,
    /** `sends`: whether anyone takes notices now; a worker nobody listens to claims none (they stay due for one that sends them). */
    private readonly options: { remindEveryMs: number; send: (notice: Notice) => void; sends: () => boolean },
  ) {}

  /**
   * One look, at most once a second (unless forced): works out new waits' timeouts, applies those
   * that have come, claims and sends what is due. Returns 0 when it looked, else the ms until it may look again.
   */
  async sweep(force = false): Promise<number> {
    const started = Date.now();
    if (!force && started - this.#last < SWEEP_EVERY_MS) return SWEEP_EVERY_MS - (started - this.#last);
    this.#last = started;
    const { attention } = this.store;
    await batches(
      () => attention.unscheduled(BATCH),
      (wait) => attention.schedule(wait, timeoutOf(wait)?.at),
    );
    await batches(
      () => attention.timedOut(BATCH),
      (wait) => this.#timeOut(wait),
    );
    if (!this.options.sends()) return 0;
    const due = await attention.due(BATCH);
    if (due.length === 0) return 0;
    const now = await attention.now();
    // Where each question is, from the root (for a child plan's), for all of them in one read.
    const chains = await this.store.tree.chainsOf([...new Set(due.map((item) => item.planId))]);
    for (const item of due) {
      const next = Math.min(now + this.#interval(item), item.timeoutAt ?? Infinity);
      if (!(await attention.claim(item, next))) continue; // another worker sent it
      const reminder = item.remindAt === null ? 0 : Math.max(1, Math.round((now - item.since.getTime()) / this.#interval(item)));
      this.options.send(notice(item, reminder, pathOf(chains.get(item.planId) ?? [], item.nodeId)));
    }
    return 0;
  }

  /** When the next timeout or notice is due (for the worker's wake-up timer); notices only when someone takes them here. */
  nextDue(): Promise<Date | undefined> {
    return this.store.attention.nextDue(this.options.sends());
  }

  #interval(item: DueNotice): number {
    const text = item.attributes?.remindEvery ?? item.planAttributes.remindEvery;
    return (text !== undefined ? parseDuration(text) : undefined) ?? this.options.remindEveryMs;
  }

  async #timeOut(item: DueNotice): Promise<void> {
    const why = timeoutOf(item)?.why ?? `the ${item.kind === 'question' ? 'answer' : 'review'} timed out`;
    if (item.kind === 'question') {
      await this.store.plans.change(item.planId, { nodes: [item.nodeId!] }, (snapshot) => engine.answerTimedOut(snapshot, item.nodeId!, why));
    } else {
      await this.store.plans.change(item.planId, { candidates: true }, (snapshot, candidates) => engine.reviewTimedOut(snapshot, why, candidates));
    }
  }
}

/**
 * Reads waits batch by batch and acts on each, while batches come full (what is acted on leaves the
 * set read). One that fails does not hold up those after it; the first failure is thrown at the end.
 */
async function batches(read: () => Promise<DueNotice[]>, act: (wait: DueNotice) => Promise<void>): Promise<void> {
  const failures: unknown[] = [];
  for (let round = 0; round < BATCHES; round++) {
    const waits = await read();
    for (const wait of waits) await act(wait).catch((error: unknown) => failures.push(error));
    if (waits.length < BATCH || failures.length > 0) break;
  }
  if (failures.length > 0) throw failures[0];
}

/** When the question or review times out (its answerTimeout or reviewTimeout after it started waiting), if it does. */
function timeoutOf(item: DueNotice): { at: number; why: string } | undefined {
  const key = item.kind === 'question' ? 'answerTimeout' : 'reviewTimeout';
  const text = item.kind === 'question' ? item.attributes?.[key] : item.planAttributes[key];
  const ms = text !== undefined ? parseDuration(text) : undefined;
  return ms === undefined ? undefined : { at: item.since.getTime() + ms, why: `no ${item.kind === 'question' ? 'answer' : 'decision'} within ${key}=${text}` };
}

function notice(item: DueNotice, reminder: number, path: string | undefined): Notice {
  const notifiers = item.planAttributes.notify;
  return { ...waitingFrom(item), reminder, ...(notifiers !== undefined ? { notifiers: commaList(notifiers) } : {}), ...(path !== undefined ? { path } : {}) };
}

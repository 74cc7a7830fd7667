import type { AttemptOutcome, FinishRequest, HandOff, NodeRecord, Store } from '../store/types.js';

/**
 * Group commit for attempt outcomes: outcomes that arrive while a write is in flight go together in
 * the next `finishAttempts` transaction, so a burst of short nodes costs a few transactions, not one
 * each.
 */
export class FinishBatcher {
  private queue: Array<{ request: FinishRequest; resolve: (r: NodeRecord | Error) => void }> = [];
  private flushing: Promise<void> | undefined;

  /** `handOff`: asked before each write for the worker's hand-off (undefined: none, e.g. stopping). */
  constructor(
    private readonly store: Store,
    private readonly handOff: () => HandOff | undefined = () => undefined,
  ) {}

  finish(token: string, outcome: AttemptOutcome): Promise<NodeRecord | Error> {
    return new Promise((resolve) => {
      this.queue.push({ request: { token, outcome }, resolve });
      this.flushing ??= this.flushLoop();
    });
  }

  /** Resolves once everything queued so far is written. */
  async drain(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  private async flushLoop(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, 500);
      try {
        const results = await this.store.finishAttempts(batch.map((b) => b.request), this.handOff());
        batch.forEach((b, i) => b.resolve(results[i] ?? new Error('no result')));
      } catch (error) {
        batch.forEach((b) => b.resolve(error instanceof Error ? error : new Error(String(error))));
      }
    }
    this.flushing = undefined;
  }
}

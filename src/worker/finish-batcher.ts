import type { AttemptResult } from '../engine/attempts.js';
import type { AttemptReport, ClaimedNode, FinishOptions, WorkQueue } from '../store/types.js';

/** How the batcher reaches its worker: free slots before a write, the work that write claimed after. */
export interface BatcherHost {
  /** Options of the next write; `limit` is the slots it may fill (reserved until `launch`). */
  options(): FinishOptions;
  /** Starts what a write claimed for this worker and returns the unused reservation. */
  launch(claimed: ClaimedNode[], reserved: number): void;
}

/**
 * Group commit for attempt ends: ends that arrive while a write is in flight go together in the
 * next `finish`, so a burst of short nodes costs a few writes, not one each. Each write also
 * claims, for the same worker, up to its free slots of the work it makes ready.
 */
export class FinishBatcher {
  private queue: Array<{ report: AttemptReport; resolve: (r: { status: string } | Error) => void }> = [];
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly queueStore: WorkQueue,
    private readonly host: BatcherHost,
  ) {}

  finish(claim: ClaimedNode, result: AttemptResult): Promise<{ status: string } | Error> {
    return new Promise((resolve) => {
      this.queue.push({ report: { claim, result, jitter: Math.random() }, resolve });
      this.flushing ??= this.flushLoop();
    });
  }

  /** Ends waiting for the next write. */
  get queued(): number {
    return this.queue.length;
  }

  /** Whether ends are queued or being written. */
  get busy(): boolean {
    return this.flushing !== undefined;
  }

  /** Resolves once everything queued so far is written. */
  async drain(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  private async flushLoop(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, 500);
      const options = this.host.options();
      let claimed: ClaimedNode[] = [];
      try {
        const outcome = await this.queueStore.finish(
          batch.map((b) => b.report),
          options,
        );
        claimed = outcome.claimed;
        batch.forEach((b, i) => b.resolve(outcome.results[i] ?? new Error('no result')));
      } catch (error) {
        batch.forEach((b) => b.resolve(error instanceof Error ? error : new Error(String(error))));
      } finally {
        this.host.launch(claimed, options.limit);
      }
    }
    this.flushing = undefined;
  }
}

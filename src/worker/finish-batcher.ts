import type { AttemptResult } from '../engine/attempts.js';
import type { AttemptReport, ClaimedNode, FinishOptions, WorkQueue } from '../store/types.js';

interface Pending {
  report: AttemptReport;
  resolve: (r: { status: string } | Error) => void;
}

/** How the batcher reaches its worker: free slots before a write, the work that write claimed after. */
export interface BatcherHost {
  /** Options of the next write; `limit` is the slots it may fill (reserved until `launch`). */
  options(): FinishOptions;
  /** Starts what a write claimed for this worker and returns the unused reservation. */
  launch(claimed: ClaimedNode[], reserved: number): void;
  /** A write failed: true when the database could not be reached (the ends are written again after a backoff). */
  unreachable(error: unknown): boolean;
  /** A write reached the database. */
  reached(): void;
  /** How long to wait after the `failures`-th write in a row that could not reach the database. */
  retryDelay(failures: number): number;
}

/**
 * Group commit for attempt ends: ends that arrive while a write is in flight go together in the
 * next `finish`, so a burst of short nodes costs a few writes, not one each. Each write also
 * claims, for the same worker, up to its free slots of the work it makes ready. A write that cannot
 * reach the database is kept and written again after a backoff until it can: a result is never
 * dropped, nor failed, because the database was away (`stalled` meanwhile).
 */
export class FinishBatcher {
  private queue: Pending[] = [];
  private writing: Pending[] = [];
  private flushing: Promise<void> | undefined;
  /** Writes in a row that could not reach the database. */
  private failures = 0;

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

  /** Whether ends wait because the database could not be reached at the last write. */
  get stalled(): boolean {
    return this.failures > 0;
  }

  /** The lease tokens of the ends not written yet (their leases are still held). */
  get tokens(): string[] {
    return [...this.writing, ...this.queue].map((b) => b.report.claim.token);
  }

  /** Resolves once everything queued so far is written. */
  async drain(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  private async flushLoop(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.queue.length > 0) {
      const batch = (this.writing = this.queue.splice(0, 500));
      const options = this.host.options();
      let claimed: ClaimedNode[] = [];
      let retryMs: number | undefined;
      try {
        const outcome = await this.queueStore.finish(
          batch.map((b) => b.report),
          options,
        );
        this.failures = 0;
        this.host.reached();
        claimed = outcome.claimed;
        batch.forEach((b, i) => b.resolve(outcome.results[i] ?? new Error('no result')));
      } catch (error) {
        if (this.host.unreachable(error)) {
          this.queue.unshift(...batch); // written again, first, once the database is back
          retryMs = this.host.retryDelay(++this.failures);
        } else batch.forEach((b) => b.resolve(error instanceof Error ? error : new Error(String(error))));
      } finally {
        this.writing = [];
        this.host.launch(claimed, options.limit);
      }
      if (retryMs !== undefined) await new Promise((resolve) => setTimeout(resolve, retryMs));
    }
    this.flushing = undefined;
  }
}

import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { EventEmitter } from 'node:events';
import type { RetryDefaults } from '../engine/retry-policy.js';
import type { ClaimedNode, Store } from '../store/types.js';
import type { ToolCatalogue } from '../tools/types.js';
import { FinishBatcher } from './finish-batcher.js';
import { Poller } from './poller.js';
import { AttemptAborted, runClaim } from './run-claim.js';

export interface WorkerOptions {
  store: Store;
  tools: ToolCatalogue;
  /** node-cron schedule of the safety-net poll. */
  poll: string;
  concurrency: number;
  leaseMs: number;
  retryDefaults: RetryDefaults;
  /** Stop by itself once nothing is ready, running or due for retry (questions do not count). */
  untilIdle?: boolean;
  /** Lease owner name; default host:pid:random. */
  owner?: string;
}

/** Events a worker emits for its host (CLI progress, tests). */
export interface WorkerEventMap {
  'worker:error': [error: unknown];
  'tool:log': [planId: string, nodeId: string, message: string];
  'worker:idle': [];
}

/**
 * A worker: claims ready nodes (atomically, with a lease), runs them with at most `concurrency` at
 * once, renews the leases while they run, writes their outcomes in group commits, and takes over
 * nodes whose lease expired. It polls on a cron schedule and wakes at once on the store's wake-ups
 * (in-process on SQLite, LISTEN/NOTIFY on PostgreSQL).
 */
export class Worker extends EventEmitter<WorkerEventMap> {
  readonly owner: string;
  private readonly inflight = new Map<string, { claim: ClaimedNode; controller: AbortController }>();
  private readonly finisher: FinishBatcher;
  private readonly poller: Poller;
  private unsubscribe: (() => void) | undefined;
  private renewTimer: NodeJS.Timeout | undefined;
  private dueTimer: NodeJS.Timeout | undefined;
  private lastExpiry = 0;
  private stopped: Promise<void> | undefined;
  private idleResolve: (() => void) | undefined;
  readonly idle: Promise<void>;

  constructor(private readonly options: WorkerOptions) {
    super();
    this.owner = options.owner ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.finisher = new FinishBatcher(options.store);
    this.poller = new Poller({ cron: options.poll, tick: () => this.tick(), onError: (e) => this.emit('worker:error', e) });
    this.idle = new Promise((resolve) => (this.idleResolve = resolve));
  }

  start(): this {
    this.unsubscribe = this.options.store.onWake(() => this.poller.wake());
    const every = Math.max(50, Math.floor(this.options.leaseMs / 3));
    this.renewTimer = setInterval(() => void this.renewLeases(), every);
    this.poller.start();
    return this;
  }

  /** Cuts the wait for the next poll short. */
  wake(): void {
    this.poller.wake();
  }

  get running(): number {
    return this.inflight.size;
  }

  /**
   * Graceful stop: no new claims; running attempts are aborted and released back to `ready`
   * (the attempt is not counted) unless `drain` is set, in which case they finish first.
   */
  stop(options: { drain?: boolean } = {}): Promise<void> {
    this.stopped ??= (async () => {
      this.unsubscribe?.();
      clearTimeout(this.dueTimer);
      await this.poller.stop();
      if (!options.drain) for (const { controller } of this.inflight.values()) controller.abort(new AttemptAborted('shutdown'));
      while (this.inflight.size > 0) await new Promise((r) => setTimeout(r, 10));
      await this.finisher.drain();
      clearInterval(this.renewTimer);
    })();
    return this.stopped;
  }

  /** One round: take over expired leases, claim what fits, and (with untilIdle) notice the end. */
  private async tick(): Promise<boolean> {
    if (this.stopped) return false;
    const { store, concurrency, leaseMs } = this.options;
    const now = Date.now();
    if (now - this.lastExpiry >= Math.min(leaseMs, 5_000)) {
      this.lastExpiry = now;
      await store.expireLeases({ defaultRetries: this.options.retryDefaults.retries });
    }
    const free = concurrency - this.inflight.size;
    if (free <= 0) return false;
    const claims = await store.claimReady({ owner: this.owner, limit: free, leaseMs });
    for (const claim of claims) this.launch(claim);
    if (claims.length === free) return true;
    if (this.inflight.size === 0) await this.checkIdle();
    return false;
  }

  private launch(claim: ClaimedNode): void {
    const controller = new AbortController();
    this.inflight.set(claim.token, { claim, controller });
    void (async () => {
      try {
        const outcome = await runClaim(claim, controller.signal, {
          store: this.options.store,
          tools: this.options.tools,
          retryDefaults: this.options.retryDefaults,
          log: (planId, nodeId, message) => this.emit('tool:log', planId, nodeId, message),
        });
        const result = await this.finisher.finish(claim.token, outcome);
        if (result instanceof Error && !controller.signal.aborted) this.emit('worker:error', result);
      } catch (error) {
        this.emit('worker:error', error);
      } finally {
        this.inflight.delete(claim.token);
        this.poller.wake();
      }
    })();
  }

  private async renewLeases(): Promise<void> {
    if (this.inflight.size === 0) return;
    const tokens = [...this.inflight.keys()];
    try {
      const renewed = new Set(await this.options.store.renewLeases(this.owner, tokens, this.options.leaseMs));
      for (const token of tokens) {
        if (!renewed.has(token)) this.inflight.get(token)?.controller.abort(new AttemptAborted('lease lost'));
      }
    } catch (error) {
      this.emit('worker:error', error);
    }
  }

  /** Schedules a wake for the next retry and, with untilIdle, stops when nothing is left to do. */
  private async checkIdle(): Promise<void> {
    const counts = await this.options.store.countActive();
    clearTimeout(this.dueTimer);
    if (counts.nextDueAt) {
      const wait = Math.max(0, counts.nextDueAt.getTime() - Date.now());
      this.dueTimer = setTimeout(() => this.poller.wake(), Math.min(wait + 5, 2 ** 31 - 1));
    }
    if (counts.ready === 0 && counts.running === 0 && counts.retryPending === 0) {
      this.emit('worker:idle');
      if (this.options.untilIdle) {
        this.idleResolve?.();
        void this.stop();
      }
    }
  }
}

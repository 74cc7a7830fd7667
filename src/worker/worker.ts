import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { EventEmitter } from 'node:events';
import type { RetryDefaults } from '../engine/retry-policy.js';
import type { ClaimedNode, HandOff, NodeRecord, Store } from '../store/types.js';
import type { ToolCatalogue } from '../tools/types.js';
import { FinishBatcher } from './finish-batcher.js';
import { Poller } from './poller.js';
import { AttemptAborted, runClaim } from './run-claim.js';

/** Attempts a lost lease may cost a node that sets no `retries` (nor its plan), at least. */
const EXPIRY_RETRIES = 2;

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
  /** A node now waits for a person's answer (its question resolved). */
  'question:asked': [node: NodeRecord];
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
  /** The last claim took all it could: more ready work may be waiting. */
  private backlog = true;
  /** Slots promised to a hand-off in progress (see handOff). */
  private reserved = 0;
  private stopped: Promise<void> | undefined;
  private idleResolve: (() => void) | undefined;
  readonly idle: Promise<void>;

  constructor(private readonly options: WorkerOptions) {
    super();
    this.owner = options.owner ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.finisher = new FinishBatcher(options.store, () => this.handOff());
    this.poller = new Poller({ cron: options.poll, tick: () => this.tick(), onError: (e) => this.emit('worker:error', e) });
    this.idle = new Promise((resolve) => (this.idleResolve = resolve));
  }

  start(): this {
    // `finished` wake-ups are this process's own writes, announced after commit: the slots they free
    // are handled in launch(), so they matter only to notice idleness once nothing runs.
    this.unsubscribe = this.options.store.onWake((event) => (event.reason !== 'finished' || this.inflight.size === 0) && this.poller.wake());
    // PostgreSQL's LISTEN starts with that subscription: look again once it is active, so that work
    // committed by other processes in the meantime does not wait for the next poll.
    void (this.options.store as Partial<{ listening: Promise<void> }>).listening?.then(() => this.poller.wake());
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
      // A crashed worker is not the node's fault: unless the node or plan sets `retries`, a lost
      // lease may cost at least EXPIRY_RETRIES attempts (the configured default retries is often 0).
      await store.expireLeases({ defaultRetries: Math.max(this.options.retryDefaults.retries, EXPIRY_RETRIES) });
    }
    const free = concurrency - this.inflight.size - this.reserved;
    if (free <= 0) {
      this.backlog = true;
      return false;
    }
    const claims = await store.claimReady({ owner: this.owner, limit: free, leaseMs });
    for (const claim of claims) this.launch(claim);
    this.backlog = claims.length === free;
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
        // The tool is done: its slot is free while the outcome is written (group commit), so that
        // with a backlog the next claims overlap the write. Without one, new work announces itself
        // (a ready wake-up) and a claim now would find nothing.
        const written = this.finisher.finish(claim.token, outcome);
        this.inflight.delete(claim.token);
        if (this.backlog) this.poller.wake();
        const result = await written;
        if (result instanceof Error && !controller.signal.aborted) this.emit('worker:error', result);
        else if (!(result instanceof Error) && outcome.status === 'awaiting_input') this.emit('question:asked', result);
        // A round that ran while the outcome was being written still counted this node as running:
        // look again so that idleness is noticed. Outcomes the store announces after commit
        // (`finished`, `ready`) do that through onWake; the others (awaiting_input, a lost lease) here.
        // A retry due later (ready, runAfter ahead) is not announced either: the next round schedules its wake.
        const announced =
          !(result instanceof Error) && (result.status === 'done' || result.status === 'failed' || (result.status === 'ready' && !(result.runAfter && result.runAfter.getTime() > Date.now())));
        if (this.inflight.size === 0 && !announced) this.poller.wake();
      } catch (error) {
        this.emit('worker:error', error);
      } finally {
        if (this.inflight.delete(claim.token)) this.poller.wake();
      }
    })();
  }

  /**
   * The slots a write may fill with the work its outcomes make ready (claimed in the same
   * transaction): a chain's next step starts without a wake-up, a claim or a commit of its own.
   */
  private handOff(): HandOff | undefined {
    if (this.stopped) return undefined;
    let reserved = 0;
    let open = true;
    return {
      owner: this.owner,
      leaseMs: this.options.leaseMs,
      reserve: () => {
        reserved = this.stopped ? 0 : Math.max(0, this.options.concurrency - this.inflight.size - this.reserved);
        this.reserved += reserved;
        return reserved;
      },
      launch: (claims) => {
        if (!open) return;
        open = false;
        this.reserved -= reserved;
        for (const claim of claims) {
          if (this.stopped) void this.finisher.finish(claim.token, { status: 'released' });
          else this.launch(claim);
        }
        if (claims.length < reserved && this.backlog) this.poller.wake(); // a round may have gone without these slots
      },
    };
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

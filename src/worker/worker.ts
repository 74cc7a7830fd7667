import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { hostname } from 'node:os';
import type { ClaimedNode, FinishOptions, WakeEvent } from '../store/types.js';
import { reconnectDelay } from '../store/unreachable.js';
import { AttemptAbort } from '../execute/attempt-abort.js';
import { DatabaseHealth } from './db-health.js';
import { FinishBatcher } from './finish-batcher.js';
import { LeaseKeeper } from './lease-keeper.js';
import { LlmSlot } from './llm-slot.js';
import { Attention } from './attention.js';
import { Poller } from './poller.js';
import { AttemptAborted, runClaim } from './run-claim.js';
import { ToolLogs } from './tool-logs.js';
import { WakeTimer } from './wake-timer.js';
import { asked, type WorkerEventMap, type WorkerOptions } from './worker-events.js';

export type { QuestionAsked, WorkerEventMap, WorkerOptions } from './worker-events.js';

const EXPIRY_CHECK_MS = 5_000;
/** The first and the longest wait before looking again for work that was due at a look ahead and not taken (Worker.lookAhead). */
const RELOOK_FIRST_MS = 10;
const RELOOK_MAX_MS = 1_000;
/** How often at most the outbox of cancels owed to external agents is looked at. */
const CANCELS_CHECK_MS = 1_000;
/** Finished attempts whose results wait to be written, per slot, before the worker stops claiming. */
const UNWRITTEN_PER_SLOT = 4;

/**
 * A worker: claims ready nodes (atomically, with a lease), runs at most `concurrency` at once,
 * renews their leases, writes their ends in group commits — each write handing it the work it
 * made ready — and takes over nodes whose lease ran out. It polls on a cron schedule and wakes
 * at once on the store's wake-ups, and at the next retry due or lease expiry it knows of. A service
 * gets one from `dotplan.worker()`, calls `start()`, and `stop()` when it shuts down (running
 * attempts go back to `ready` for another worker, unless it drains them); with `untilIdle` it stops
 * by itself once nothing is left to do and `idle` resolves.
 */
export class Worker extends EventEmitter<WorkerEventMap> {
  /** Its name as lease owner and in events (`host:pid:random` unless given). */
  readonly owner: string;
  private readonly inflight = new Map<string, { claim: ClaimedNode; abort: AttemptAbort }>();
  private readonly finisher: FinishBatcher;
  private readonly poller: Poller;
  private unsubscribe: (() => void) | undefined;
  private renewTimer: NodeJS.Timeout | undefined;
  private releaseTools: (() => Promise<void>) | undefined;
  /** Renews the leases of the nodes it runs, off the main thread (src/worker/lease-keeper.ts). */
  private readonly leases: LeaseKeeper;
  private dueTimer: NodeJS.Timeout | undefined;
  /** The wait before the next look for work that was due and not taken; 0 when the last look found none. */
  private relookMs = 0;
  private lastExpiry = 0;
  /** The last claim took all it could: more ready work may be waiting. */
  private backlog = true;
  /** Slots promised to claims and writes in flight (they may claim work for this worker). */
  private reserved = 0;
  private stopped: Promise<void> | undefined;
  private idleResolve: (() => void) | undefined;
  private readonly llm: LlmSlot | undefined;
  private readonly attention: Attention;
  /** Wakes the loop when the next notice or timeout is due. */
  private readonly noticesDue = new WakeTimer(() => this.poller.wake());
  private readonly toolLogs: ToolLogs;
  private cancelsRound: Promise<unknown> | undefined;
  private cancelsAt = 0;
  private readonly health: DatabaseHealth;
  /** A renewal failed: leases are renewed before any expiry is looked for (so that this worker's own are not taken for expired). */
  private renewDue = false;
  /** With `untilIdle`: resolves when the worker found nothing left to do and stopped. */
  readonly idle: Promise<void>;

  /** @internal A service gets its worker from `dotplan.worker()`. */
  constructor(private readonly options: WorkerOptions) {
    super();
    this.owner = options.owner ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.health = new DatabaseHealth({ lost: (error) => this.emit('database:lost', error), back: (downMs) => this.emit('database:back', downMs) });
    this.finisher = new FinishBatcher(options.store.queue, {
      options: () => this.finishOptions(),
      launch: (claimed, reserved) => this.launchClaimed(claimed, reserved),
      unreachable: (error) => this.health.failed(error),
      reached: () => this.health.reached(),
      retryDelay: reconnectDelay,
    });
    this.poller = new Poller({
      cron: options.poll,
      tick: () => this.tick(),
      // A round that could not reach the database is run again after a backoff (it reconnects then).
      onError: (error, failures) => (this.health.failed(error) ? reconnectDelay(failures) : void this.emit('worker:error', error)),
    });
    this.idle = new Promise((resolve) => (this.idleResolve = resolve));
    this.leases = new LeaseKeeper({
      target: options.store.target,
      queue: options.store.queue,
      ...(options.store.handOffCheckpoints ? { handOffCheckpoints: () => options.store.handOffCheckpoints!() } : {}),
      owner: this.owner,
      leaseMs: options.leaseMs,
      onLost: (tokens) => tokens.forEach((token) => this.inflight.get(token)?.abort.abort(new AttemptAborted('lease lost'))),
      // A renewal that could not reach the database is made again, here, before expired leases are looked for.
      onError: (error) => (this.health.failed(error) ? void (this.renewDue = true) : void this.emit('worker:error', error)),
    });
    this.toolLogs = new ToolLogs({ events: options.store.events, owner: this.owner, sink: options.log, onError: (e) => this.report(e) });
    this.attention = new Attention(options.store, {
      remindEveryMs: options.remindEveryMs ?? 3_600_000,
      send: (notice) => this.emit('notice', notice),
      sends: () => this.listenerCount('notice') > 0,
    });
    const drivers = { ...(options.planner ? { reflection: options.planner } : {}), ...(options.react ? { react: options.react } : {}) };
    if (Object.keys(drivers).length > 0) {
      this.llm = new LlmSlot(options.store, drivers, {
        owner: this.owner,
        leaseMs: options.leaseMs,
        slots: options.llmSlots ?? 1,
        onEnd: () => this.poller.wake(),
        onError: (error) => this.report(error),
      });
    }
  }

  /** Starts claiming and running ready nodes (and listening for wake-ups); returns the worker. */
  start(): this {
    const { events } = this.options.store;
    // `finished` and `plan` wake-ups free no work (what a plan's move frees wakes `ready`): they matter only
    // to notice idleness once nothing runs and no write is in flight (a write in flight brings the work it
    // claimed, or wakes after).
    this.unsubscribe = events.onWake((event) => (!idleOnly(event) || this.quiet()) && this.poller.wake());
    // Other processes' wake-ups reach this one once it listens: look again then.
    void events.listening.then(() => this.poller.wake());
    this.releaseTools = this.options.tools.hold?.();
    this.leases.start();
    this.renewTimer = setInterval(() => void this.renewLeases(), Math.max(50, Math.floor(this.options.leaseMs / 3)));
    this.poller.start();
    return this;
  }

  /** An error around the work: an unreachable database is noted once (`database:lost`), anything else is a `worker:error`. */
  private report(error: unknown): void {
    if (!this.health.failed(error)) this.emit('worker:error', error);
  }

  /** Cuts the wait for the next poll short. */
  wake(): void {
    this.poller.wake();
  }

  /**
   * Resolves once the leases of the nodes it runs are renewed by a thread of their own (`'thread'`,
   * with its own database connection: a long synchronous piece of work on the main thread cannot
   * make them expire), or by the main thread when no such thread can open the database
   * (`'main thread'`; e.g. a store that is not SQLite or PostgreSQL). Until then the main thread renews.
   */
  get leaseRenewal(): Promise<'thread' | 'main thread' | 'stopped'> {
    return this.leases.started;
  }

  /** How many nodes it runs right now. */
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
      await this.poller.stop();
      // After the loop's last round: a round in flight may have set the timers again.
      clearTimeout(this.dueTimer);
      this.noticesDue.clear();
      if (!options.drain) for (const { abort } of this.inflight.values()) abort.abort(new AttemptAborted('shutdown'));
      await this.llm?.stop();
      while (this.inflight.size > 0) await new Promise((r) => setTimeout(r, 10));
      await this.finisher.drain();
      await this.cancelsRound;
      // Once nothing runs: the last worker to let go ends the MCP server processes.
      await this.releaseTools?.();
      clearInterval(this.renewTimer);
      await this.leases.stop();
    })();
    return this.stopped;
  }

  /** One round: take over expired leases now and then, claim what fits, and look ahead when the queue ran dry. */
  private async tick(): Promise<boolean> {
    if (this.stopped) return false;
    const { store, leaseMs } = this.options;
    const now = Date.now();
    // After an outage this worker's own leases may have run out while it could not renew them: its
    // results are written and its leases renewed first, so that it does not take its own nodes for expired.
    if (this.renewDue) await this.renewLeases();
    if (now - this.lastExpiry >= Math.min(leaseMs, EXPIRY_CHECK_MS) && !this.finisher.stalled && !this.renewDue) {
      this.lastExpiry = now;
      await store.queue.expire({ retryDefaults: this.options.retryDefaults });
    }
    await this.#attend();
    this.#deliverCancels();
    // Results not yet written count against claiming more: a worker whose tools finish faster than
    // their results are written (SQLite, where the claim loop never waits) would otherwise hold many
    // nodes `running` that have in fact finished, and a crash then would run them again. Up to
    // UNWRITTEN_PER_SLOT per slot may wait (group commit needs some; measured: 1 per slot cost a
    // fifth of SQLite's throughput, 4 per slot a tenth).
    if (this.finisher.queued >= UNWRITTEN_PER_SLOT * this.options.concurrency) {
      this.backlog = true;
      return false;
    }
    const free = this.free();
    if (free <= 0) {
      // Slots reserved by a write in flight are filled by that write's own claim; only slots busy
      // with running work mean that ready work may be waiting for this worker.
      if (this.reserved === 0) this.backlog = true;
      return false;
    }
    const claimed = await this.claimInto(free, () => store.queue.claim({ owner: this.owner, limit: free, leaseMs }));
    this.health.reached();
    // Nodes parked on a detached remote task whose check is due, in the slots left (a worker that knows external agents only).
    const left = this.free();
    if (this.options.remote && claimed < free && left > 0) await this.claimInto(left, () => store.remote.takeChecks(this.owner, left, leaseMs));
    if (this.llm && (await this.llm.claim())) return true;
    this.backlog = claimed === free;
    if (this.backlog) return true;
    if (claimed > 0) this.relookMs = 0; // work was taken: what is still due is looked for again soon
    await this.lookAhead();
    return false;
  }

  /**
   * Cancels owed to external agents (a plan cancelled while one of its nodes' remote tasks was open):
   * delivered in the background, one round at a time, looked for once a second at most.
   */
  #deliverCancels(): void {
    const remote = this.options.remote;
    if (!remote || this.cancelsRound || Date.now() - this.cancelsAt < CANCELS_CHECK_MS) return;
    this.cancelsAt = Date.now();
    this.cancelsRound = remote
      .deliverCancels(this.owner)
      .catch((error: unknown) => this.report(error))
      .finally(() => (this.cancelsRound = undefined));
  }

  /** Notices and timeouts due: looked at once a second at most; a look skipped for that is made when the second is up. */
  async #attend(): Promise<void> {
    const wait = await this.attention.sweep();
    if (wait > 0) this.noticesDue.at(new Date(Date.now() + wait));
  }

  /** Nothing runs and no result is being written: the moment to look whether the worker is idle. */
  private quiet(): boolean {
    return this.inflight.size === 0 && this.reserved === 0 && !this.finisher.busy && !this.llm?.busy;
  }

  private free(): number {
    return this.stopped ? 0 : Math.max(0, this.options.concurrency - this.inflight.size - this.reserved);
  }

  /** Claims work for `slots` free slots and starts it; reserved meanwhile, as a write's are, so that a write sent then leaves them be. */
  private async claimInto(slots: number, claim: () => Promise<ClaimedNode[]>): Promise<number> {
    this.reserved += slots;
    let claimed: ClaimedNode[];
    try {
      claimed = await claim();
    } finally {
      this.reserved -= slots;
    }
    for (const node of claimed) this.launch(node); // in the same turn as the release: no write can count these slots free between
    return claimed.length;
  }

  private finishOptions(): FinishOptions {
    const limit = this.free();
    this.reserved += limit;
    const holding = new Set([...this.inflight.values()].map((i) => i.claim.planId));
    return {
      owner: this.owner,
      leaseMs: this.options.leaseMs,
      limit,
      retryDefaults: this.options.retryDefaults,
      holding,
      claimOthers: this.backlog,
      // An agent node the write hands over starts its child in that write (its worker no longer has to).
      ...(this.options.children ? { children: this.options.children } : {}),
    };
  }

  private launchClaimed(claimed: ClaimedNode[], reserved: number): void {
    this.reserved -= reserved;
    for (const claim of claimed) {
      if (this.stopped) void this.finisher.finish(claim, { kind: 'released' });
      else this.launch(claim);
    }
    // A round may have gone without these slots, or stopped while results waited to be written.
    if (this.backlog && (claimed.length < reserved || reserved === 0)) this.poller.wake();
  }

  private launch(claim: ClaimedNode): void {
    const abort = new AttemptAbort();
    this.inflight.set(claim.token, { claim, abort });
    this.leases.hold(claim.token);
    void (async () => {
      try {
        const result = await runClaim(claim, abort, {
          plans: this.options.store.plans,
          tools: this.options.tools,
          retryDefaults: this.options.retryDefaults,
          log: (entry) => this.toolLogs.log(entry),
          ...(this.options.judge ? { judge: this.options.judge } : {}),
          ...(this.options.children ? { children: this.options.children, handOff: { owner: this.owner, leaseMs: this.options.leaseMs, limit: 1 } } : {}),
          ...(this.options.remote ? { remote: this.options.remote } : {}),
        });
        await this.toolLogs.flushed(); // the attempt's log lines come before its end in the audit log
        // The tool is done: its slot is free while the end is written (group commit), and the write that
        // carries the end claims work for it.
        this.inflight.delete(claim.token); // its lease is kept (lease keeper) until the result is written
        // An agent node's child was started with the node's move to wait on it, in one write: nothing more to write.
        if (result.kind === 'delegated') {
          this.launchClaimed(result.claimed ?? [], 0); // the child's first nodes, handed to this worker
          return;
        }
        // A detached remote task: the node was parked on it (no lease) in one write; its next check is a worker's later.
        if (result.kind === 'parked') return;
        // The write claims for the slot it frees (finishOptions). A round woken now would claim for it
        // first, and the write would then claim nothing: a round trip more for every batch of ends.
        const outcome = await this.finisher.finish(claim, result);
        if (outcome instanceof Error) {
          if (!abort.aborted) this.report(outcome);
        } else if (result.kind === 'asked') this.emit('question:asked', asked(claim, result));
        // Look again so that idleness, or a retry due later, is noticed.
        if (this.quiet()) this.poller.wake();
      } catch (error) {
        this.report(error);
      } finally {
        this.leases.release(claim.token);
        if (this.inflight.delete(claim.token)) this.poller.wake();
      }
    })();
  }

  /**
   * The LLM slot's lease; the nodes' leases are the lease keeper's (its own thread). After the
   * database was unreachable, this worker's leases (of nodes running and of results waiting to be
   * written) are renewed here too, before it looks for expired ones.
   */
  private async renewLeases(): Promise<void> {
    await this.llm?.renew().catch((error: unknown) => this.report(error));
    if (!this.renewDue) return;
    try {
      await this.leases.renewNow();
      this.renewDue = false;
      this.health.reached();
    } catch (error) {
      this.renewDue = this.health.failed(error);
      if (!this.renewDue) this.emit('worker:error', error);
    }
  }

  /**
   * The queue ran dry: wake at the next retry due or lease expiry (a crashed worker's nodes are
   * taken over then, not at the next poll) and, with untilIdle, stop when nothing is left to do.
   */
  private async lookAhead(): Promise<void> {
    const outlook = await this.options.store.queue.outlook();
    clearTimeout(this.dueTimer);
    if (this.stopped) return;
    const untilWake = outlook.nextWakeAt ? Math.max(0, outlook.nextWakeAt.getTime() - Date.now()) : undefined;
    // Work due now that this round did not take: a node or an LLM backoff that fell due between the round's
    // claim and this look (due now, it is in no wake-up time), or work another worker is taking. Looked at
    // again soon, and later each time it is still there, so that work this worker cannot take costs little.
    const due = (outlook.ready > 0 && this.free() > 0) || (this.llm !== undefined && !this.llm.full && outlook.llmFree > 0);
    this.relookMs = due ? Math.min(this.relookMs === 0 ? RELOOK_FIRST_MS : this.relookMs * 2, RELOOK_MAX_MS) : 0;
    const relook = due && (untilWake === undefined || this.relookMs < untilWake);
    const wait = relook ? this.relookMs : untilWake;
    if (wait !== undefined) {
      this.dueTimer = setTimeout(
        () => {
          if (!relook) this.lastExpiry = 0; // a lease may have run out then
          this.poller.wake();
        },
        Math.min(wait + 5, 2 ** 31 - 1),
      );
    }
    const llmLeft = this.llm ? this.llm.busy || outlook.llmWork > 0 : false;
    const notices = await this.attention.nextDue();
    if (notices && (!outlook.nextWakeAt || notices < outlook.nextWakeAt)) this.noticesDue.at(notices);
    if (this.inflight.size === 0 && this.reserved === 0 && outlook.ready === 0 && outlook.running === 0 && outlook.retryPending === 0 && !llmLeft) {
      if (this.options.untilIdle) await this.attention.sweep(true); // what started waiting is announced before an --until-idle worker leaves
      this.emit('worker:idle');
      if (this.options.untilIdle) {
        this.idleResolve?.();
        void this.stop();
      }
    }
  }
}

/** A wake-up that brings no claimable work: nodes finished, a plan moved. */
function idleOnly(event: WakeEvent): boolean {
  return event.reason === 'finished' || event.reason === 'plan';
}

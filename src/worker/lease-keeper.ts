import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker as Thread } from 'node:worker_threads';
import type { DatabaseTarget } from '../store/connect.js';
import type { WorkQueue } from '../store/types.js';
import { HeldLeases } from './held-leases.js';
import type { FromLeaseThread, LeaseThreadData, ToLeaseThread } from './lease-messages.js';

export interface LeaseKeeperOptions {
  /** Where the store's data lives; without it (a store of another kind) leases are renewed on the main thread. */
  target: DatabaseTarget | undefined;
  /** Renews on the main thread when the lease thread cannot be used. */
  queue: WorkQueue;
  owner: string;
  leaseMs: number;
  /** These leases were lost: abort their attempts. */
  onLost: (tokens: string[]) => void;
  onError: (error: unknown) => void;
  /** Leases the thread reads from shared memory (HeldLeases); more are told to it by message. Default 1024. */
  slots?: number;
  /** SQLite file: the store's connection leaves the log's checkpoints to the thread while it runs (Store.handOffCheckpoints). */
  handOffCheckpoints?: () => Promise<() => Promise<void>>;
}

/** How often the lease thread checkpoints a SQLite file's write-ahead log (about SQLite's own 1,000 pages at the worker's fastest writes). */
const CHECKPOINT_MS = 50;

/** How the lease thread is renewing: on its own thread, or (when that is not possible) on the main thread. */
export type LeaseKeeping = 'starting' | 'thread' | 'main thread' | 'stopped';

/**
 * Keeps the leases of the nodes a worker runs: a `worker_threads` thread (`lease-thread.ts`) with
 * its own database connection renews them every third of the lease, whatever the main thread is
 * busy with; the main thread says which it holds (`hold` when a node is claimed, `release` when its
 * result is written or its attempt ends otherwise) in memory the thread reads when it renews
 * (HeldLeases: no message per node), and hears which were lost. When no thread can open the database (an in-memory
 * SQLite database, a store of another kind), the main thread renews them on its own timer instead,
 * with the same statement.
 */
export class LeaseKeeper {
  readonly #held = new Set<string>();
  /** The held leases the thread reads by itself; those that do not fit are told by message. */
  readonly #shared: HeldLeases;
  /** Leases taken and let go, not in shared memory, that the thread has not been told of yet (told once per turn of the event loop). */
  readonly #toHold = new Set<string>();
  readonly #toRelease = new Set<string>();
  #telling: NodeJS.Immediate | undefined;
  readonly #everyMs: number;
  #thread: Thread | undefined;
  #timer: NodeJS.Timeout | undefined;
  #stopped: Promise<void> | undefined;
  #mode: LeaseKeeping = 'starting';
  /** How the store's connection leaves its checkpoints to the thread (a SQLite file whose store can), decided at start. */
  #handOff: (() => Promise<() => Promise<void>>) | undefined;
  /** The checkpoints handed to the thread: resolves to their release. */
  #checkpoints: Promise<(() => Promise<void>) | undefined> | undefined;
  /** Resolves once the thread renews, or the main thread took over. */
  readonly started: Promise<Exclude<LeaseKeeping, 'starting'>>;
  #startedResolve!: (mode: Exclude<LeaseKeeping, 'starting'>) => void;

  constructor(private readonly options: LeaseKeeperOptions) {
    this.#everyMs = Math.max(50, Math.floor(options.leaseMs / 3));
    this.#shared = new HeldLeases(HeldLeases.memory(options.slots ?? 1024));
    this.started = new Promise((resolve) => (this.#startedResolve = resolve));
  }

  /** Who renews now. */
  get mode(): LeaseKeeping {
    return this.#mode;
  }

  start(): this {
    const { target, owner, leaseMs } = this.options;
    // Until the thread has its connection (a moment; longer from the TypeScript sources), the main thread renews.
    this.#timer = setInterval(() => void this.#renewHere(), this.#everyMs);
    if (!target) return (this.#onMainThread(), this);
    this.#handOff = target.kind === 'sqlite' ? this.options.handOffCheckpoints : undefined;
    const checkpoints = this.#handOff ? { checkpointMs: CHECKPOINT_MS } : {};
    const data: LeaseThreadData = { target, owner, leaseMs, everyMs: this.#everyMs, held: this.#shared.memory, ...checkpoints };
    try {
      this.#thread = newThread(data);
    } catch (error) {
      this.options.onError(error);
      return (this.#onMainThread(), this);
    }
    this.#thread.unref();
    this.#thread.on('message', (message: FromLeaseThread) => this.#heard(message));
    this.#thread.on('error', (error) => {
      this.options.onError(error);
      this.#thread = undefined;
      this.#onMainThread();
    });
    for (const token of this.#held) if (!this.#shared.has(token)) this.#toHold.add(token);
    this.#tell();
    return this;
  }

  /** A node was claimed by this worker: keep its lease. */
  hold(token: string): void {
    this.#held.add(token);
    if (this.#shared.add(token)) return;
    this.#toHold.add(token);
    this.#tell();
  }

  /** The node's result was written (or its attempt ended otherwise): its lease is no longer renewed. */
  release(token: string): void {
    if (!this.#held.delete(token)) return;
    if (this.#shared.delete(token)) return;
    // A lease let go before the thread heard of it: the thread need not hear of either.
    if (!this.#toHold.delete(token)) this.#toRelease.add(token);
    this.#tell();
  }

  /** Stops renewing and closes the thread's connection. */
  stop(): Promise<void> {
    this.#stopped ??= (async () => {
      clearInterval(this.#timer);
      clearImmediate(this.#telling);
      this.#telling = undefined;
      const thread = this.#thread;
      this.#mode = 'stopped';
      this.#startedResolve('stopped');
      // The store's connection checkpoints again before the thread that did it stops.
      await this.#takeBackCheckpoints();
      if (!thread) return;
      const done = new Promise<void>((resolve) => {
        thread.on('message', (message: FromLeaseThread) => 'stopped' in message && resolve());
        thread.once('exit', () => resolve());
      });
      thread.postMessage({ stop: true } satisfies ToLeaseThread);
      await done;
      await thread.terminate();
      this.#thread = undefined;
    })();
    return this.#stopped;
  }

  /** Tells the thread what changed, once this turn of the event loop is over (a burst of claims and ends is one message). */
  #tell(): void {
    this.#telling ??= setImmediate(() => {
      this.#telling = undefined;
      const message: ToLeaseThread = { hold: [...this.#toHold], release: [...this.#toRelease] };
      this.#toHold.clear();
      this.#toRelease.clear();
      if (this.#mode !== 'main thread' && (message.hold.length > 0 || message.release.length > 0)) this.#thread?.postMessage(message);
    });
  }

  #heard(message: FromLeaseThread): void {
    if ('ready' in message) {
      if (this.#mode !== 'starting') return;
      this.#mode = 'thread';
      this.#startedResolve('thread');
      // The thread checkpoints from its start: the store's connection can leave it to the thread now.
      // One that fails is reported, and the store's connection goes on checkpointing by itself.
      this.#checkpoints = this.#handOff?.().catch((error: unknown) => void this.options.onError(error));
    } else if ('lost' in message) {
      const lost = message.lost.filter((t) => this.#held.delete(t));
      for (const token of lost) this.#shared.delete(token);
      if (lost.length > 0) this.options.onLost(lost);
    } else if ('error' in message) {
      // Rebuilt with its code, so that the worker tells an unreachable database from other failures.
      this.options.onError(Object.assign(new Error(`renewing leases failed: ${message.error}`), message.code === undefined ? {} : { code: message.code }));
    } else if ('unavailable' in message) {
      this.#thread = undefined;
      this.#onMainThread();
    }
  }

  /** The fallback: renewals on the main thread's timer, for good. */
  #onMainThread(): void {
    void this.#takeBackCheckpoints();
    if (this.#stopped) return;
    this.#mode = 'main thread';
    this.#startedResolve('main thread');
  }

  /** The store's connection checkpoints at its commits again (the thread stops, or is gone). */
  async #takeBackCheckpoints(): Promise<void> {
    const handedOff = this.#checkpoints;
    this.#checkpoints = undefined;
    await (await handedOff)?.().catch((error: unknown) => this.options.onError(error));
  }

  /** A renewal on the main thread, while the thread starts or when it cannot be used. */
  async #renewHere(): Promise<void> {
    if (this.#mode === 'thread' || this.#mode === 'stopped') return;
    await this.renewNow().catch((error: unknown) => this.options.onError(error));
  }

  /** Renews every lease held now, on the calling thread (after an outage, say); throws what the database threw. */
  async renewNow(): Promise<void> {
    const tokens = [...this.#held];
    if (tokens.length === 0) return;
    const renewed = new Set(await this.options.queue.renew(this.options.owner, tokens, this.options.leaseMs));
    const lost = tokens.filter((t) => !renewed.has(t) && this.#held.delete(t));
    if (lost.length > 0) this.options.onLost(lost);
  }
}

/**
 * The thread: the compiled module beside this file, or — when this file runs from the TypeScript
 * sources (the tests) — the source module loaded through tsx by a one-line bootstrap.
 */
function newThread(data: LeaseThreadData): Thread {
  const compiled = new URL('./lease-thread.js', import.meta.url);
  if (!import.meta.url.endsWith('.ts') || existsSync(fileURLToPath(compiled))) return new Thread(compiled, { workerData: data });
  const source = new URL('./lease-thread.ts', import.meta.url).href;
  const bootstrap = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then(({ tsImport }) => tsImport(${JSON.stringify(source)}, ${JSON.stringify(source)}))`;
  return new Thread(bootstrap, { eval: true, workerData: data });
}

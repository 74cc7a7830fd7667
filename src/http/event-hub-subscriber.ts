import type { DotplanReads } from '../operations/dotplan-reads.js';
import type { EventRecord } from '../store/types.js';

/** Which events a stream gets: none given, every event; `planId`, that plan's; `rootPlanId`, the root's and all its descendants' (child plans made later too). */
export interface HubFilter {
  planId?: string;
  rootPlanId?: string;
}

/** Whether the event is one the filter selects, given its plan's root; undefined when that root could not be read. */
export function selects(filter: HubFilter, event: EventRecord, root: string | undefined): boolean | undefined {
  if (filter.planId !== undefined) return event.planId === filter.planId;
  if (filter.rootPlanId === undefined || event.planId === filter.rootPlanId) return true;
  return root === undefined ? undefined : root === filter.rootPlanId;
}

/**
 * One stream of an {@link EventHub}: what it asked for, the events waiting for its `send` (in id
 * order), and — while its backlog is read from the store — the live events held until it catches up.
 */
export class Subscriber {
  /** The newest id queued (at first `after`): only later ones are queued, so each event goes out once. */
  cursor: number;
  readonly queue = new Fifo<EventRecord>();
  /** Live events that came while the backlog was read; undefined once the stream is live. */
  held: EventRecord[] | undefined = [];
  /** Whether `send` is running (one event at a time, in order). */
  sending = false;
  /** Unsubscribed, overflowed, failed or closed: nothing more is sent. */
  ended = false;
  #drained: (() => void) | undefined;

  constructor(
    readonly filter: HubFilter,
    after: number,
    readonly send: (event: EventRecord) => void | Promise<void>,
    readonly onOverflow: (() => void) | undefined,
  ) {
    this.cursor = after;
  }

  /** Events it has waiting: queued for `send`, and held. */
  get waiting(): number {
    return this.queue.length + (this.held?.length ?? 0);
  }

  /** Resolves once its queue is empty (the last event handed to `send`) or it ended: room for the next page of its backlog. */
  drained(): Promise<void> {
    if (this.queue.length === 0 || this.ended) return Promise.resolve();
    return new Promise((resolve) => (this.#drained = resolve));
  }

  /** Resolves what waits in `drained`. */
  wake(): void {
    const drained = this.#drained;
    this.#drained = undefined;
    drained?.();
  }
}

/** First in, first out, without `Array.shift`'s copy of what is left on every take (queues reach thousands). */
export class Fifo<T> {
  #items: T[] = [];
  #head = 0;

  get length(): number {
    return this.#items.length - this.#head;
  }

  push(item: T): void {
    this.#items.push(item);
  }

  shift(): T | undefined {
    if (this.#head >= this.#items.length) return undefined;
    const item = this.#items[this.#head++];
    // Drop what was taken once it is most of the array.
    if (this.#head >= 1024 && this.#head * 2 >= this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }

  clear(): void {
    this.#items = [];
    this.#head = 0;
  }
}

/**
 * Each plan's root (its own id for a root), for the tree filter: read once per plan from the store
 * and kept (a plan's root never changes, plans are never deleted), the oldest forgotten past `limit`.
 */
export class PlanRoots {
  readonly #roots = new Map<string, string>();

  constructor(
    private readonly dotplan: DotplanReads,
    private readonly limit = 10_000,
  ) {}

  /** The plan's root, read from the store the first time. */
  async of(planId: string): Promise<string> {
    const known = this.#roots.get(planId);
    if (known !== undefined) return known;
    const plan = await this.dotplan.plan(planId);
    const root = plan.rootPlanId ?? plan.id;
    if (this.#roots.size >= this.limit) this.#roots.delete(this.#roots.keys().next().value as string);
    this.#roots.set(planId, root);
    return root;
  }
}

import { ConflictError, DotplanError, InvalidArgumentError, InvalidInputError } from '../errors/errors.js';
import type { DotplanReads } from '../operations/dotplan-reads.js';
import type { EventRecord, Following } from '../store/types.js';
import { PlanRoots, selects, Subscriber, type HubFilter } from './event-hub-subscriber.js';

export type { HubFilter } from './event-hub-subscriber.js';

/** Limits of an {@link EventHub}. */
export interface EventHubOptions {
  /** Streams at once (default 1000); one more is refused with `TOO_MANY_STREAMS`. */
  maxSubscribers?: number;
  /** Events read from the store per page of a stream's backlog (default 500; at most `maxQueued`). */
  backlogLimit?: number;
  /** Events a stream may have waiting for its `send` (or held while its backlog is read) before it is dropped (default 10,000). */
  maxQueued?: number;
}

/** A server that already serves as many live event streams as it may (`TOO_MANY_STREAMS`; HTTP 429). */
export class TooManyStreamsError extends DotplanError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('TOO_MANY_STREAMS', message, options);
    this.name = 'TooManyStreamsError';
  }
}

/** The one `follow` of the store a hub runs while it has streams. */
interface Feed {
  /** Resolves once the follow is started, from the newest id committed then. */
  ready: Promise<void>;
  /** The newest id handed to the streams (the id it started from before the first). */
  position: number;
  following?: Following;
}

/**
 * One live event feed per process, fanned out to many streams (the SSE endpoints of `dotplan serve`):
 * ONE `events.follow` of the store, whatever the number of streams — never a database poll per
 * client. It starts with the first stream and stops when the last one goes (an idle follow would
 * still read the database every half second; starting again costs one `lastId`).
 *
 * A stream that starts behind the feed reads its backlog from the store (`events.list`, a page at a
 * time, the next page once the last one went out) while the feed's events for it are held; then it
 * sends what was held and goes live. Events carry ids in commit order, so a stream skips every id not
 * above the last it queued: no gap and no duplicate at the seam. Each stream has its own queue and
 * its own `send` loop: a slow client waits alone, and one that falls `maxQueued` events behind is
 * dropped (`onOverflow`; it comes back with Last-Event-ID and resumes from the store).
 */
export class EventHub {
  readonly #subscribers = new Set<Subscriber>();
  readonly #roots: PlanRoots;
  readonly #maxSubscribers: number;
  readonly #maxQueued: number;
  readonly #page: number;
  #feed: Feed | undefined;
  /** Follows being stopped (close waits for them). */
  #stopping: Promise<void> = Promise.resolve();
  /** Streams with a tree filter: while there are none, no plan's root is looked up. */
  #trees = 0;
  #closed = false;

  constructor(
    private readonly dotplan: DotplanReads,
    options: EventHubOptions = {},
  ) {
    this.#maxSubscribers = positive(options.maxSubscribers ?? 1000, 'maxSubscribers');
    this.#maxQueued = positive(options.maxQueued ?? 10_000, 'maxQueued');
    this.#page = Math.min(positive(options.backlogLimit ?? 500, 'backlogLimit'), this.#maxQueued);
    this.#roots = new PlanRoots(dotplan);
  }

  /**
   * Delivers, in id order and exactly once each, every event matching `filter` with id > `after`:
   * first those already committed (read from the store in pages), then live ones. Resolves once the
   * stream is attached, with the function that detaches it. `send` may be async: the next event waits
   * for it, other streams do not. `onOverflow` is called when the hub ends the stream by itself —
   * more than `maxQueued` events waiting, a `send` that threw, the store unreadable — and the stream
   * should end (the client resumes with Last-Event-ID). A plan that does not exist is a
   * `NotFoundError`; one stream more than `maxSubscribers` a {@link TooManyStreamsError}.
   */
  async subscribe(filter: HubFilter, after: number, send: (event: EventRecord) => void | Promise<void>, onOverflow?: () => void): Promise<() => void> {
    if (!Number.isSafeInteger(after) || after < 0) throw InvalidArgumentError.about('after', `must be a whole number, 0 or more (got ${after})`, 'subscribe');
    if (filter.planId !== undefined && filter.rootPlanId !== undefined)
      throw new InvalidInputError('a stream follows one plan (planId) or one tree (rootPlanId), not both');
    const named = filter.planId ?? filter.rootPlanId;
    this.#room();
    if (named !== undefined) await this.dotplan.plan(named); // NotFoundError
    this.#room(); // again: attaching below is in the same turn as this check
    const subscriber = new Subscriber({ ...filter }, after, send, onOverflow);
    this.#subscribers.add(subscriber);
    if (filter.planId === undefined && filter.rootPlanId !== undefined) this.#trees += 1;
    const unsubscribe = () => this.#end(subscriber, false);
    const feed = this.#feed ?? this.#start();
    try {
      await feed.ready;
    } catch (error) {
      unsubscribe();
      throw error;
    }
    if (subscriber.ended) {
      if (this.#closed) throw closedError();
      return unsubscribe; // dropped already (its onOverflow was called)
    }
    // Nothing it wants came before the feed's position: every later event comes from the feed.
    if (after >= feed.position) this.#live(subscriber);
    else void this.#catchUp(subscriber);
    return unsubscribe;
  }

  /** How many streams are attached. */
  get size(): number {
    return this.#subscribers.size;
  }

  /** Whether the shared follow of the store runs (it does while there are streams). */
  get following(): boolean {
    return this.#feed !== undefined;
  }

  /** Stops the shared follow and drops every stream (their `onOverflow` is not called); later subscribes are refused. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const subscriber of [...this.#subscribers]) this.#end(subscriber, false);
    this.#stop();
    await this.#stopping;
  }

  /** Refuses a stream when the hub is closed or full. */
  #room(): void {
    if (this.#closed) throw closedError();
    if (this.#subscribers.size >= this.#maxSubscribers)
      throw new TooManyStreamsError(`this server already serves ${this.#maxSubscribers} live event streams: close one and try again`);
  }

  /** Starts the shared follow, from the newest event committed now. */
  #start(): Feed {
    const feed: Feed = { ready: Promise.resolve(), position: 0 };
    this.#feed = feed;
    feed.ready = (async () => {
      const from = await this.dotplan.events.lastId();
      if (this.#feed !== feed) return; // stopped before it started
      feed.position = from;
      const following = this.dotplan.events.follow({ after: from }, (event) => this.#dispatch(feed, event));
      feed.following = following;
      // It ends by itself only when it failed (a stopped one is no longer the hub's feed).
      following.ended.then(
        () => this.#lost(feed),
        () => this.#lost(feed),
      );
    })();
    feed.ready.catch(() => {
      if (this.#feed === feed) this.#feed = undefined; // the next stream starts another
    });
    return feed;
  }

  /** Hands an event of the feed to each stream it is for; true ends a feed that is no longer the hub's. */
  async #dispatch(feed: Feed, event: EventRecord): Promise<boolean> {
    // The tree filter needs the event's root; a stream with one may attach while it is looked up.
    let root: string | undefined;
    let unknown = false;
    while (root === undefined && !unknown && this.#trees > 0 && this.#feed === feed) {
      try {
        root = await this.#roots.of(event.planId);
      } catch {
        unknown = true;
      }
    }
    if (this.#feed !== feed) return true;
    // From here to the end in one turn: a stream attached later compares its `after` with this position.
    feed.position = event.id;
    for (const subscriber of this.#subscribers) {
      const wanted = selects(subscriber.filter, event, root);
      // Whether it is in the tree cannot be told: that stream ends, and resumes from the store, which knows.
      if (wanted === undefined) this.#end(subscriber, true);
      else if (wanted) this.#offer(subscriber, event);
    }
    return false;
  }

  /** A live event for a stream: held while its backlog is read, else queued. */
  #offer(subscriber: Subscriber, event: EventRecord): void {
    if (subscriber.held === undefined) return this.#enqueue(subscriber, event);
    subscriber.held.push(event);
    if (subscriber.waiting > this.#maxQueued) this.#end(subscriber, true);
  }

  /** Queues an event after the last one queued (older ones were queued already, or not asked for) and starts sending. */
  #enqueue(subscriber: Subscriber, event: EventRecord): void {
    if (subscriber.ended || event.id <= subscriber.cursor) return;
    subscriber.cursor = event.id;
    subscriber.queue.push(event);
    if (subscriber.waiting > this.#maxQueued) return this.#end(subscriber, true);
    void this.#pump(subscriber);
  }

  /** Sends a stream's queue, one event at a time, in order; a `send` that throws ends the stream. */
  async #pump(subscriber: Subscriber): Promise<void> {
    if (subscriber.sending) return;
    subscriber.sending = true;
    try {
      for (let event = subscriber.queue.shift(); event !== undefined && !subscriber.ended; event = subscriber.queue.shift()) {
        if (subscriber.queue.length === 0) subscriber.wake(); // room for the backlog's next page
        await subscriber.send(event);
      }
    } catch {
      this.#end(subscriber, true);
    } finally {
      subscriber.sending = false;
    }
  }

  /**
   * Reads a stream's backlog from the store, a page at a time, each once the last went out; a page
   * short of full means the store had nothing more for it when read, and whatever was committed
   * after that read was seen by the feed since the stream attached: it is held, and sent next.
   */
  async #catchUp(subscriber: Subscriber): Promise<void> {
    const { planId, rootPlanId } = subscriber.filter;
    try {
      for (;;) {
        const page = await this.dotplan.events.list({
          ...(planId !== undefined ? { planId } : rootPlanId !== undefined ? { rootPlanId } : {}),
          after: subscriber.cursor,
          limit: this.#page,
        });
        for (const event of page) this.#enqueue(subscriber, event);
        if (page.length < this.#page || subscriber.ended) break;
        await subscriber.drained();
      }
      this.#live(subscriber);
    } catch {
      this.#end(subscriber, true); // the store could not be read: the client resumes later
    }
  }

  /** Sends what was held for the stream (after what it has) and hands it the feed's events from now on. */
  #live(subscriber: Subscriber): void {
    const held = subscriber.held ?? [];
    subscriber.held = undefined;
    for (const event of held) this.#enqueue(subscriber, event);
  }

  /** Detaches a stream (once); `overflowed`: the hub ended it, and says so. The last one out stops the feed. */
  #end(subscriber: Subscriber, overflowed: boolean): void {
    if (subscriber.ended) return;
    subscriber.ended = true;
    this.#subscribers.delete(subscriber);
    if (subscriber.filter.planId === undefined && subscriber.filter.rootPlanId !== undefined) this.#trees -= 1;
    subscriber.queue.clear();
    subscriber.held = undefined;
    subscriber.wake();
    if (overflowed) {
      try {
        subscriber.onOverflow?.();
      } catch {
        // The stream's own business: the hub is done with it.
      }
    }
    if (this.#subscribers.size === 0) this.#stop();
  }

  /** Stops the shared follow, if one runs (close waits for it). */
  #stop(): void {
    const feed = this.#feed;
    if (feed === undefined) return;
    this.#feed = undefined;
    const stopped = feed.ready
      .then(() => feed.following?.stop())
      .then(
        () => undefined,
        () => undefined, // it failed: nothing left to stop
      );
    this.#stopping = Promise.all([this.#stopping, stopped]).then(() => undefined);
  }

  /** The feed failed (the store unreadable): every stream ends, to resume from the store; the next one starts a feed again. */
  #lost(feed: Feed): void {
    if (this.#feed !== feed) return;
    this.#feed = undefined;
    for (const subscriber of [...this.#subscribers]) this.#end(subscriber, true);
  }
}

function closedError(): ConflictError {
  return new ConflictError('the event hub is closed: the server is shutting down');
}

/** A whole number of 1 or more, or an error naming the option. */
function positive(value: number, option: string): number {
  if (!Number.isSafeInteger(value) || value < 1) throw InvalidArgumentError.about(option, `must be a whole number, 1 or more (got ${value})`, 'EventHub');
  return value;
}

import type { EventInput } from '../engine/step.js';
import type { EventKind } from '../model/types.js';
import type { EventRecord, Following, Store } from '../store/types.js';
import { checked } from './arguments.js';

/** Which events: the same query for {@link DotplanEvents.list} and {@link DotplanEvents.follow}. */
export interface EventQuery {
  /** One plan's events (a plan that does not exist is a `NotFoundError`); default: every plan's. */
  planId?: string;
  /** A tree's events: the root plan's and every child plan's of the plan stack below it (children made later too), interleaved. */
  rootPlanId?: string;
  /** Only events after this id (ids grow in the order events are committed); default 0, from the first. */
  after?: number;
  /** Only events of this kind. */
  kind?: EventKind;
  /** At most this many: `list` returns the first ones, `follow` ends after the last one. Default: no limit. */
  limit?: number;
}

/**
 * The audit log: every status move, answer, revision, review, notice and tool log, oldest first, each
 * with who and why. `list` reads what is committed; `follow` reads that and then each event committed
 * later, by this process or another, until its callback returns true, the `limit` is reached or it
 * is stopped.
 */
export class DotplanEvents {
  /** @internal */
  constructor(private readonly store: Store) {}

  /** The events the query selects, oldest first. */
  async list(query: EventQuery = {}): Promise<EventRecord[]> {
    checked('events.list', { query });
    const { planId, after, kind, limit, rootPlanId } = query;
    if (rootPlanId !== undefined) {
      await this.store.plans.get(rootPlanId);
      return this.store.events.listTree(rootPlanId, defined({ after, kind, limit }));
    }
    if (planId === undefined) return this.store.events.listAll({ ...defined({ after, kind }), limit: limit ?? Number.MAX_SAFE_INTEGER });
    await this.store.plans.get(planId);
    return this.store.events.list(planId, defined({ after, kind, limit }));
  }

  /**
   * Calls `onEvent` for each event the query selects, in order — those committed already, then each
   * one committed later — until `onEvent` returns true (that event ends the feed), `limit` events
   * were seen, or `stop()` is called. A plan that does not exist rejects `ended` with a `NotFoundError`.
   */
  follow(query: EventQuery, onEvent: (event: EventRecord) => Promise<boolean | void> | boolean | void): Following {
    checked('events.follow', { query, onEvent });
    const { planId, after, kind, limit, rootPlanId } = query;
    let seen = 0;
    const following = this.store.events.follow(defined({ planId, rootPlanId, after }), async (event) => {
      if (kind !== undefined && event.kind !== kind) return false;
      seen += 1;
      return (await onEvent(event)) === true || (limit !== undefined && seen >= limit);
    });
    const named = planId ?? rootPlanId;
    const exists = named === undefined ? Promise.resolve() : this.store.plans.get(named).then(() => undefined);
    const ended = exists.then(
      () => following.ended,
      async (error: unknown) => {
        await following.stop();
        throw error;
      },
    );
    return { ended, stop: () => following.stop().then(() => ended) };
  }

  /** The newest event's id, 0 when there is none: `follow({ after: await lastId() })` follows what happens from now on. */
  lastId(): Promise<number> {
    return this.store.events.lastId();
  }

  /** Records events that are not status moves (an `Announcer`'s `record`: notices sent or failed). */
  append(events: readonly EventInput[]): Promise<void> {
    checked('events.append', { events });
    return this.store.events.append(events);
  }
}

/** The object without its undefined properties (for options read with exactOptionalPropertyTypes). */
function defined<T extends object>(object: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as { [K in keyof T]: Exclude<T[K], undefined> };
}

import type { EventInput } from '../engine/step.js';
import { FINISHED_PLAN_STATUSES } from '../state/plan-moves.js';
import type { EventKind, PlanStatus } from '../model/types.js';
import { insertEvents, listEvents } from './sql/events.js';
import type { Db } from './sql/executor.js';
import type { EventFeed, EventRecord, Following, WakeEvent } from './types.js';
import { isDatabaseUnreachable, reconnectDelay } from './unreachable.js';
import type { Wakes } from './wake.js';

/** How often a follower reads anyway, in case a wake-up was missed. */
const SAFETY_POLL_MS = 500;
/**
 * PostgreSQL hands out event ids when rows are inserted, not when they commit: a transaction holding
 * id 10 may commit after one holding id 11 was read. A follower of every event therefore goes past a
 * missing id only once it has stayed missing this long (a transaction that was rolled back leaves its
 * ids missing for good), re-reading meanwhile every GAP_POLL_MS.
 */
export const GAP_WAIT_MS = 1_000;
const GAP_POLL_MS = 10;

/** The audit log and the wake-ups: read, append, follow in order. */
export class SqlEventFeed implements EventFeed {
  constructor(
    private readonly db: Db,
    private readonly wakes: Wakes,
  ) {}

  list(planId: string, options: { nodeId?: string; after?: number; upTo?: number; kind?: EventKind; limit?: number } = {}): Promise<EventRecord[]> {
    return listEvents(this.db, { planId, ...options });
  }

  listAll(options: { after?: number; limit?: number; kind?: EventKind } = {}): Promise<EventRecord[]> {
    return listEvents(this.db, { after: options.after, kind: options.kind, limit: options.limit ?? 1000 });
  }

  async lastId(): Promise<number> {
    const [row] = await this.db.all<{ id: number | null }>(`SELECT MAX(id) AS "id" FROM events`);
    return Number(row?.id ?? 0);
  }

  async append(events: readonly EventInput[]): Promise<void> {
    if (events.length === 0) return;
    await this.db.tx((q) => insertEvents(q, events));
  }

  /** The events of a tree (the root's and every child plan's, those made later too), interleaved in commit order. */
  listTree(rootPlanId: string, options: { after?: number; kind?: EventKind; limit?: number } = {}): Promise<EventRecord[]> {
    return listEvents(this.db, { rootPlanId, ...options });
  }

  follow(
    options: { planId?: string; rootPlanId?: string; after?: number },
    onEvent: (event: EventRecord) => Promise<boolean | void> | boolean | void,
  ): Following {
    let stopped = false;
    let wake: (() => void) | undefined;
    const unsubscribe = this.onWake(() => wake?.());
    // Until the delay is up, a wake-up (a commit, the database back) or `stop()`.
    const waitFor = (ms: number) =>
      new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, ms).unref();
      });
    const read = (after: number) =>
      options.planId !== undefined
        ? this.list(options.planId, { after })
        : options.rootPlanId !== undefined
          ? this.listTree(options.rootPlanId, { after })
          : this.listAll({ after });
    // Only a follower of every event sees the ids missing in between (others skip other plans' ids).
    const minding = options.planId === undefined && options.rootPlanId === undefined && this.db.dialect === 'postgres';
    let gapSince: number | undefined;
    const ended = (async () => {
      let after = options.after ?? 0;
      let failures = 0;
      try {
        for (;;) {
          let events: EventRecord[];
          try {
            events = await read(after);
            failures = 0;
          } catch (error) {
            // An unreachable database: read again from the same place after a backoff (nothing is missed); stopped, give up.
            if (!isDatabaseUnreachable(error) || stopped) throw error;
            await waitFor(reconnectDelay(++failures));
            continue;
          }
          let held = false;
          if (minding) {
            const ready = contiguousFrom(after, events);
            if (ready < events.length) {
              gapSince ??= Date.now();
              held = Date.now() - gapSince < GAP_WAIT_MS;
              if (held) events = events.slice(0, ready);
            }
            if (!held) gapSince = undefined;
          }
          for (const event of events) {
            after = event.id;
            if (await onEvent(event)) return event;
          }
          if (stopped && !held) return undefined;
          await waitFor(held ? GAP_POLL_MS : SAFETY_POLL_MS);
        }
      } finally {
        unsubscribe();
      }
    })();
    return {
      ended,
      async stop() {
        stopped = true; // one last read, so that nothing committed before the stop is missed
        wake?.();
        return ended;
      },
    };
  }

  onWake(listener: (event: WakeEvent) => void): () => void {
    return this.wakes.on(listener);
  }

  get listening(): Promise<void> {
    return this.wakes.listening;
  }
}

/** How many of `events` (in id order) follow `after` without a missing id. */
function contiguousFrom(after: number, events: readonly EventRecord[]): number {
  let count = 0;
  while (count < events.length && events[count]!.id === after + count + 1) count += 1;
  return count;
}

/** Whether an event ends its plan (completed, failed, cancelled, rejected). */
export function endsPlan(event: EventRecord): boolean {
  return event.nodeId === undefined && event.kind === 'status' && FINISHED_PLAN_STATUSES.has(event.to as PlanStatus);
}

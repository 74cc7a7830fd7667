import { FINISHED_PLAN_STATUSES } from '../state/plan-moves.js';
import type { PlanStatus } from '../model/types.js';
import type { EventRecord, Store } from '../store/types.js';

/**
 * Follows committed events in order, woken by the store's wake-ups with a short safety poll (a
 * wake-up from another process may not reach this one on SQLite). `read(after)` fetches the events
 * after an id; `onEvent` returning true ends the feed.
 */
export function followEvents(
  store: Store,
  read: (after: number) => Promise<EventRecord[]>,
  onEvent: (event: EventRecord) => Promise<boolean | void> | boolean | void,
  options: { after?: number; pollMs?: number } = {},
): { ended: Promise<EventRecord | undefined>; stop(): Promise<EventRecord | undefined> } {
  let stopped = false;
  let wake: (() => void) | undefined;
  const unsubscribe = store.onWake(() => wake?.());
  const ended = (async () => {
    let after = options.after ?? 0;
    try {
      for (;;) {
        for (const event of await read(after)) {
          after = event.id;
          if (await onEvent(event)) return event;
        }
        if (stopped) return undefined;
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, options.pollMs ?? 250);
        });
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

/** One plan's events until it reaches a finished status; resolves with that plan event. */
export function watchPlan(store: Store, planId: string, onEvent: (event: EventRecord) => Promise<void> | void) {
  return followEvents(store, (after) => store.listEvents(planId, { after }), async (event) => {
    await onEvent(event);
    return event.nodeId === undefined && FINISHED_PLAN_STATUSES.has(event.to as PlanStatus);
  });
}

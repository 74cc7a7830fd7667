import type { EventRecord, Store } from '../store/types.js';

/**
 * Follows one plan's events as they are committed (woken by the store, with a short safety poll),
 * handing each to `onEvent` in order, until the plan reaches a finished status.
 */
export function watchPlan(store: Store, planId: string, onEvent: (event: EventRecord) => Promise<void> | void, pollMs = 250): { finished: Promise<EventRecord>; stop(): void } {
  let after = 0;
  let stopped = false;
  let wake: (() => void) | undefined;
  const unsubscribe = store.onWake(() => wake?.());
  const finished = (async () => {
    try {
      while (!stopped) {
        for (const event of await store.listEvents(planId, { after })) {
          after = event.id;
          await onEvent(event);
          if (event.nodeId === undefined && ['completed', 'failed', 'cancelled', 'rejected'].includes(event.to)) return event;
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, pollMs);
        });
      }
      throw new Error('stopped');
    } finally {
      unsubscribe();
    }
  })();
  return { finished, stop: () => void (stopped = true) };
}

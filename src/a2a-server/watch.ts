import { coerceError } from '../errors/errors.js';
import type { EventHub } from '../http/event-hub.js';
import type { DotplanReads } from '../operations/dotplan-reads.js';
import type { EventRecord } from '../store/types.js';
import { isSettled, readFacts, type PlanFacts } from './task-view.js';

/**
 * A blocking SendMessage waits for the plan to ask something or end. It follows the plan's events on
 * the server's shared event feed (one follow of the database for every stream and wait, not a poll
 * per request) and reads the plan again after each status move or review. It gives up after
 * `waitMs` — plans may run for days; the client then polls GetTask — and at once when the server
 * stops (the feed is closed), answering with the plan as it stands.
 */

/** How often a wait checks whether the server is stopping (no database read). */
const TICK_MS = 250;

/** Events that can change the task's state: status moves (a node that asks, the plan's own) and review decisions. */
const MOVES = new Set<EventRecord['kind']>(['status', 'review']);

export async function settle(dotplan: DotplanReads, hub: EventHub, planId: string, after: number, waitMs: number): Promise<PlanFacts> {
  let facts = await readFacts(dotplan, planId);
  if (isSettled(facts) || waitMs <= 0) return facts;
  return new Promise<PlanFacts>((resolve, reject) => {
    let finished = false;
    let reading: Promise<void> | undefined;
    let again = false;
    let unsubscribe: (() => void) | undefined;
    const finish = (error?: unknown) => {
      if (finished) return;
      finished = true;
      clearTimeout(deadline);
      clearInterval(tick);
      unsubscribe?.();
      if (error !== undefined) reject(coerceError(error));
      else resolve(facts);
    };
    // Reads the plan again (one read at a time; a move during a read makes one more).
    const reread = () => {
      if (reading !== undefined) return void (again = true);
      reading = readFacts(dotplan, planId)
        .then((read) => {
          facts = read;
          if (isSettled(read)) finish();
        })
        .catch(finish)
        .finally(() => {
          reading = undefined;
          if (again && !finished) {
            again = false;
            reread();
          }
        });
    };
    const deadline = setTimeout(() => finish(), waitMs);
    // The shared feed stops only when its last stream goes or the hub closes: with this wait attached, that is the server stopping.
    const tick = setInterval(() => {
      if (unsubscribe !== undefined && !hub.following) finish();
    }, TICK_MS);
    const filter = facts.plan.parent === undefined ? { rootPlanId: planId } : { planId };
    hub
      .subscribe(
        filter,
        after,
        (event) => {
          if (MOVES.has(event.kind)) reread();
        },
        () => finish(),
      )
      .then((detach) => {
        // Events after `after` come from the store first: what moved since the first read is not missed.
        unsubscribe = detach;
        if (finished) detach();
      })
      .catch(() => finish()); // the server is stopping, or serves as many streams as it may: answer with what is known
  });
}

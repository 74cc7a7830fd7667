/**
 * Random plans and a deterministic single worker to drive them, for the property tests that hold
 * two paths (or two backends) to the same result: each node's outcome depends only on its id and
 * attempt, claims come in (run_after, id) order, and retries are due at once.
 */
import fc from 'fast-check';
import type { AttemptResult } from '../../src/engine/attempts.js';
import { retry } from '../../src/engine/commands.js';
import { InvalidInputError } from '../../src/errors/errors.js';
import type { Attributes, PlanGraph } from '../../src/model/types.js';
import type { AttemptReport, ClaimedNode, FinishOptions, FinishOutcome, Store } from '../../src/store/types.js';
import { graphOf } from './fixtures.js';

export type Outcome = 'yes' | 'no' | 'fail' | 'flaky';

export interface RandomPlan {
  graph: PlanGraph;
  outcomes: Record<string, Outcome>;
  /** Slots the worker has free when it finishes a node (the hand-off). */
  slots: number;
  /** Most nodes the worker claims at once when it has none in hand (several parents of a join claimed together). */
  claims: number;
  /** Once the plan has ended, an operator retries its failed nodes (which then succeed) and it runs on. */
  retry: boolean;
}

export const randomPlan = plans(2, false);

/** Random plans whose last node joins every other (a join's parents claimed and finished in every order). */
export const joinedPlan = plans(4, true);

function plans(min: number, joined: boolean): fc.Arbitrary<RandomPlan> {
  return fc
    .integer({ min, max: 9 })
    .chain((n) =>
      fc.record({
        n: fc.constant(n),
        edges: fc.uniqueArray(
          fc.tuple(fc.nat(n - 1), fc.nat(n - 1)).filter(([a, b]) => a < b && !(joined && b === n - 1)),
          { selector: ([a, b]) => `${a}-${b}`, maxLength: 2 * n },
        ),
        whens: fc.array(fc.constantFrom(undefined, undefined, 'yes', '!yes'), { minLength: 20, maxLength: 20 }),
        outcomes: fc.array(fc.constantFrom<Outcome>('yes', 'yes', 'no', 'fail', 'flaky'), { minLength: n, maxLength: n }),
        onFailure: fc.constantFrom('stop', 'continue'),
        slots: fc.integer({ min: 0, max: 2 }),
        claims: fc.integer({ min: 1, max: 3 }),
        retry: fc.boolean(),
      }),
    )
    .map(({ n, edges, whens, outcomes, onFailure, slots, claims, retry }) => {
      const nodes: Record<string, Attributes> = {};
      for (let i = 0; i < n; i++) nodes[`n${i}`] = outcomes[i] === 'flaky' ? { retries: '1', retryDelay: '0ms' } : {};
      const joins = joined ? Array.from({ length: n - 1 }, (_, i): [number, number] => [i, n - 1]) : [];
      const graph = graphOf(
        nodes,
        [...edges, ...joins].map(([a, b], i) => [`n${a}`, `n${b}`, whens[i % whens.length]]),
        { mode: 'workflow', onFailure },
      );
      return { graph, outcomes: Object.fromEntries(outcomes.map((o, i) => [`n${i}`, o])), slots, claims, retry };
    });
}

/** What the node's tool does on this attempt. */
export function resultOf(outcome: Outcome, attempt: number): AttemptResult {
  if (outcome === 'fail' || (outcome === 'flaky' && attempt === 1))
    return { kind: 'failed', error: `attempt ${attempt} broke`, retryable: outcome === 'flaky' };
  return { kind: 'done', output: outcome === 'no' ? 'no' : 'yes' };
}

export type Finish = (reports: readonly AttemptReport[], options: FinishOptions) => Promise<FinishOutcome>;

/**
 * Runs the plan to its end with one worker that finishes each node alone, using `finish`; with
 * `plan.retry`, an operator then retries each failed node (which succeeds from then on) and the
 * plan runs to its end again. A failed node whose parent runs again waits for it (edges hold for
 * every driver: its retry is refused until then), so it is retried in a later round.
 */
export async function drive(store: Store, planId: string, plan: RandomPlan, finish: Finish): Promise<void> {
  const retried = new Set<string>();
  await runToEnd(store, planId, plan, finish, retried);
  if (!plan.retry) return;
  for (let round = 0; round < 50; round++) {
    let any = false;
    for (const node of await store.plans.nodes(planId)) {
      if (node.status !== 'failed' || retried.has(node.id)) continue;
      try {
        await store.plans.change(planId, { nodes: [node.id], candidates: true }, (snapshot, candidates) =>
          retry(snapshot, node.id, { driver: 'operator', name: 'ops' }, 'retried', candidates),
        );
      } catch (error) {
        if (error instanceof InvalidInputError && /cannot be ready yet/.test(error.message)) continue;
        throw error;
      }
      retried.add(node.id);
      any = true;
    }
    if (!any) return;
    await runToEnd(store, planId, plan, finish, retried);
  }
  throw new Error('the retries did not end');
}

async function runToEnd(store: Store, planId: string, plan: RandomPlan, finish: Finish, retried: ReadonlySet<string>): Promise<void> {
  const options = { owner: 'w', leaseMs: 60_000, retryDefaults: { retries: 0, retryDelay: '0ms' } };
  let queue: ClaimedNode[] = [];
  for (let guard = 0; guard < 200; guard++) {
    if (queue.length === 0) queue = (await store.queue.claim({ ...options, limit: plan.claims })).filter((c) => c.planId === planId);
    const claim = queue.shift();
    if (!claim) {
      // Nothing left to claim: the plan must have ended (a plan left running would leave ready nodes behind for the next one).
      const { status } = await store.plans.get(planId);
      if (status === 'running')
        throw new Error(
          `plan ${planId} is still running with nothing to claim: ${JSON.stringify((await store.plans.nodes(planId)).map((n) => [n.id, n.status]))}`,
        );
      return;
    }
    const outcome = retried.has(claim.nodeId) ? 'yes' : plan.outcomes[claim.nodeId]!;
    const { results, claimed } = await finish([{ claim, result: resultOf(outcome, claim.attempts), jitter: 0.5 }], {
      ...options,
      limit: plan.slots,
    });
    if (results[0] instanceof Error) throw results[0];
    queue.push(...claimed);
  }
  throw new Error('the plan did not end');
}

/** The rows and events a run left, without ids and times. */
export async function outcomeOf(store: Store, planId: string) {
  const nodes = (await store.plans.nodes(planId)).map((n) => ({
    id: n.id,
    status: n.status,
    attempts: n.attempts,
    output: n.output,
    error: n.error,
    waiting: n.waiting,
    taken: n.taken,
    skippedBy: n.skippedBy,
    leaseOwner: n.leaseOwner,
    finished: n.finishedAt !== undefined,
  }));
  const events = (await store.events.list(planId)).map((e) => ({
    node: e.nodeId ?? null,
    kind: e.kind,
    driver: e.driver,
    actor: e.actor ?? null,
    from: e.from,
    to: e.to,
    reason: e.reason ?? null,
  }));
  const record = await store.plans.get(planId);
  const newest = Math.max(...(await store.plans.nodes(planId)).map((n) => n.updatedAt.getTime()));
  // The plan's updatedAt follows its nodes: never older than the newest of them.
  return { plan: { status: record.status, error: record.error, current: record.updatedAt.getTime() >= newest }, nodes, events };
}

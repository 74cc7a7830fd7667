/**
 * The state machine holds whatever people, operators and workers do, on the suite's backend: a
 * random workflow plan (function and confirm nodes, `when` edges, onFailure stop or continue,
 * failing and retried tools) goes through a random sequence of moves — a worker claims, finishes,
 * fails, asks and releases; a person answers or the answer times out; an operator retries, skips,
 * pauses, resumes and cancels, often where the move is refused, and edits the plan through the
 * revision path (`plan apply` of what `plan show` wrote: a node added behind another, a status set by
 * hand, or the live fields left out). After every move, over the whole stored plan and its audit log:
 *
 * - every status event is a move its driver may make (the tables in src/state: NODE_MOVES, and the
 *   plan's moves), from the status the node or plan had, and the last one is the status it has;
 * - a completed plan's nodes are all done or skipped, a cancelled plan's all finished;
 * - a node is `running` exactly when it holds a lease;
 * - while the plan can go on, a node is `awaiting_input` exactly when its question waits for a
 *   person (the inbox lists it);
 * - every node's readiness counters (`waiting`, `taken`) are their definition recomputed from its
 *   parents (src/engine/readiness.ts);
 * - edges hold for every driver: no node is made ready, claimed or asks its question while a parent
 *   of it has not finished, and no node is `ready` while one has not — whoever wrote the status (an
 *   operator's edit that marks a node ready before its parent has finished is refused, naming it);
 * - no worker report or command fails because the engine refused a move of its own.
 *
 * The property reads the tables, not a copy of them: a move added to or taken from NODE_MOVES
 * changes what it accepts. Taking away a move the engine makes (an untaken branch's skip, a
 * release, a question asked, a timeout) makes it fail.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDot, writeDot } from '../../src/dot/index.js';
import { ConflictError, DotplanError } from '../../src/errors/errors.js';
import { LIVE_ATTRIBUTES } from '../../src/engine/initial-state.js';
import { isFinished, isTaken } from '../../src/engine/readiness.js';
import type { Driver, NodeStatus, PlanStatus } from '../../src/model/types.js';
import { canMoveNode, IllegalTransitionError } from '../../src/state/node-moves.js';
import { canMovePlan, IllegalPlanTransitionError } from '../../src/state/plan-moves.js';
import type { ClaimedNode, NodeRecord } from '../../src/store/types.js';
import { connect, resolveDatabase, type Connection } from '../../src/store/connect.js';
import { testBackend } from '../support/db.js';
import { Attention } from '../../src/worker/attention.js';
import { resultOf, type Outcome } from './drive.js';
import { openHarness, retryDefaults, type Harness } from './harness.js';

interface RandomNode {
  confirm: boolean;
  /** A confirm node's answerTimeout (1 ms: due at the next look), with or without a default answer. */
  timeout: 'none' | 'default' | 'fail';
  /** What the node's tool does (function nodes). */
  outcome: Outcome;
}

interface RandomPlan {
  nodes: RandomNode[];
  edges: Array<{ from: number; to: number; when?: string }>;
  onFailure: 'stop' | 'continue';
}

const randomPlan: fc.Arbitrary<RandomPlan> = fc.integer({ min: 2, max: 7 }).chain((n) =>
  fc.record({
    nodes: fc.array(
      fc.record({
        confirm: fc.constantFrom(false, false, true),
        timeout: fc.constantFrom('none' as const, 'none' as const, 'default' as const, 'fail' as const),
        outcome: fc.constantFrom<Outcome>('yes', 'yes', 'no', 'fail', 'flaky'),
      }),
      { minLength: n, maxLength: n },
    ),
    edges: fc.uniqueArray(
      fc.record({
        from: fc.nat(n - 1),
        to: fc.nat(n - 1),
        when: fc.constantFrom<string | undefined>(undefined, undefined, 'yes', '!yes'),
      }),
      { selector: (e) => `${Math.min(e.from, e.to)}-${Math.max(e.from, e.to)}`, maxLength: 2 * n },
    ),
    onFailure: fc.constantFrom('stop' as const, 'continue' as const),
  }),
);

type MoveKind = 'claim' | 'finish' | 'release' | 'timeout' | 'answer' | 'retry' | 'skip' | 'pause' | 'resume' | 'cancel' | 'edit';

interface Move {
  kind: MoveKind;
  /** Which node, claim or answer (an index, taken modulo what there is). */
  pick: number;
  /** How many nodes a claim takes, or a finish hands back to the worker; an edit's kind (EDITS). */
  count: number;
  /** Whether an operator or person move goes to a node where it is allowed (else to any node, usually refused). */
  eligible: boolean;
}

/** How often each move comes up: mostly a worker's, often a person's, now and then an operator's. */
const WEIGHTS: Record<MoveKind, number> = {
  claim: 8,
  finish: 12,
  release: 2,
  timeout: 2,
  answer: 6,
  retry: 4,
  skip: 3,
  pause: 2,
  resume: 4,
  cancel: 1,
  edit: 4,
};

/**
 * What an operator's edit does, by the move's `count`: add a node behind another, retry or skip a node
 * by its status, leave every live field out, or mark ready a node whose parent has not finished.
 */
const EDITS = ['add', 'retry', 'skip', 'leave-out', 'early'] as const;

const move: fc.Arbitrary<Move> = fc.record({
  kind: fc.oneof(...Object.entries(WEIGHTS).map(([kind, weight]) => ({ arbitrary: fc.constant(kind as MoveKind), weight }))),
  pick: fc.nat(),
  count: fc.integer({ min: 0, max: 4 }),
  eligible: fc.constantFrom(true, true, true, false),
});

const TIMEOUTS = { none: '', default: ' answerTimeout="1ms" default="no"', fail: ' answerTimeout="1ms"' };

/** The plan as DOT text: node `n<i>`, edges from the lower index to the higher (a DAG). */
function dotOf(plan: RandomPlan): string {
  const nodes = plan.nodes.map((node, i) =>
    node.confirm
      ? `  n${i} [type=confirm question="Go on after n${i}?" options="yes,no"${TIMEOUTS[node.timeout]}]`
      : `  n${i} [type=function toolCode=echo toolInput="n${i}"${node.outcome === 'flaky' ? ' retries=1 retryDelay="0ms"' : ''}]`,
  );
  const edges = plan.edges
    .filter((e) => e.from !== e.to)
    .map((e) => `  n${Math.min(e.from, e.to)} -> n${Math.max(e.from, e.to)}${e.when ? ` [when=${JSON.stringify(e.when)}]` : ''}`);
  return `digraph random {\n  mode=workflow\n  onFailure=${plan.onFailure}\n${nodes.join('\n')}\n${edges.join('\n')}\n}\n`;
}

/** What each command asks of the table: the driver and the status it moves its node to (its eligible nodes are those the table lets it move). */
const COMMANDS = {
  answer: { driver: 'person', to: 'done' },
  retry: { driver: 'operator', to: 'ready' },
  skip: { driver: 'operator', to: 'skipped' },
} as const satisfies Record<string, { driver: Driver; to: NodeStatus }>;

describe(`the state machine under random moves (${testBackend()})`, () => {
  let h: Harness;
  /** A second connection, for what the store does not read back (the claims' `held` mark). */
  let raw: Connection;
  beforeAll(async () => {
    h = await openHarness(testBackend());
    raw = await connect(resolveDatabase(h.store.url));
  });
  afterAll(async () => {
    await raw?.db.close();
    await h?.close();
  });

  /** A worker's claim of up to `count` ready nodes; another plan's (from an earlier run) is released. */
  async function claim(planId: string, count: number): Promise<ClaimedNode[]> {
    const claimed = await h.store.queue.claim({ owner: 'w', limit: count, leaseMs: 60_000 });
    const others = claimed.filter((c) => c.planId !== planId);
    if (others.length > 0) await h.finish(others, { kind: 'released' }, { owner: 'w' });
    return claimed.filter((c) => c.planId === planId);
  }

  async function play(planId: string, plan: RandomPlan, held: ClaimedNode[], m: Move): Promise<void> {
    const by = { by: 'pat', reason: 'random move' };
    const nodes = await h.store.plans.nodes(planId);
    const target = (command: keyof typeof COMMANDS) => {
      const { driver, to } = COMMANDS[command];
      const eligible = nodes.filter((n) => canMoveNode(n.status, to, driver));
      const from = m.eligible && eligible.length > 0 ? eligible : nodes;
      return from[m.pick % from.length]!.id;
    };
    switch (m.kind) {
      case 'claim':
        held.push(...(await claim(planId, m.count + 1)));
        return;
      case 'finish':
      case 'release': {
        const [c] = held.splice(m.pick % Math.max(held.length, 1), 1);
        if (!c) return;
        const random = c.nodeId.startsWith('n') ? plan.nodes[Number(c.nodeId.slice(1))]! : undefined; // x<k>: added by an edit, it succeeds
        const result =
          m.kind === 'release'
            ? ({ kind: 'released' } as const)
            : random?.confirm
              ? ({ kind: 'asked' } as const)
              : resultOf(random?.outcome ?? 'yes', c.attempts);
        const { results, claimed } = await h.store.queue.finish([{ claim: c, result, jitter: 0.5 }], {
          owner: 'w',
          leaseMs: 60_000,
          limit: m.count,
          retryDefaults,
        });
        // A result that comes too late (the node was skipped or cancelled meanwhile) is refused, and changes nothing.
        const [outcome] = results;
        if (outcome instanceof Error && !(outcome instanceof ConflictError)) throw outcome;
        // A report the store could not write as it was (the engine refused a move of its own) fails the node instead: a broken state machine.
        if (!(outcome instanceof Error) && outcome?.status === 'failed' && result.kind !== 'failed')
          throw new Error(`${c.nodeId}: the worker's ${result.kind} report was not stored: ${(await h.store.plans.node(planId, c.nodeId)).error}`);
        for (const more of claimed) {
          if (more.planId === planId) held.push(more);
          else await h.finish(more, { kind: 'released' }, { owner: 'w' });
        }
        return;
      }
      case 'timeout':
        // A worker's look at what waits for people: answerTimeouts that have passed are applied.
        await new Attention(h.store, { remindEveryMs: 3_600_000, send: () => undefined, sends: () => false }).sweep(true);
        return;
      case 'answer': {
        const node = target('answer');
        return refusedOrDone(h.ops.answer(planId, node, m.pick % 2 === 0 ? 'yes' : 'no', by), { driver: 'person', node });
      }
      case 'retry': {
        const node = target('retry');
        return refusedOrDone(h.ops.retry(planId, node, by), { driver: 'operator', node });
      }
      case 'skip': {
        const node = target('skip');
        return refusedOrDone(h.ops.skip(planId, node, by), { driver: 'operator', node });
      }
      case 'pause':
        return refusedOrDone(h.ops.pause(planId, by), { driver: 'operator' });
      case 'resume':
        return refusedOrDone(h.ops.resume(planId, by), { driver: 'operator' });
      case 'cancel':
        return refusedOrDone(h.ops.cancel(planId, by), { driver: 'operator' });
      case 'edit':
        return edit(planId, m, nodes.length, by);
    }
  }

  /**
   * An operator's edit of what `plan show` wrote, through the revision path: refused whole (a report
   * with its problems) or applied; it never throws but for a broken state machine.
   */
  async function edit(planId: string, m: Move, count: number, by: { by: string; reason: string }): Promise<void> {
    const graph = readDot(await h.ops.show(planId));
    const kind = EDITS[m.count % EDITS.length]!;
    const picked = graph.nodes[m.pick % graph.nodes.length]!;
    let node = picked.id;
    if (kind === 'add') {
      node = `x${count}`;
      graph.nodes.push({ id: node, attributes: { type: 'function', toolCode: 'echo', toolInput: node } });
      graph.edges.push({ from: picked.id, to: node, attributes: {} });
    } else if (kind === 'leave-out') {
      for (const n of graph.nodes) for (const key of LIVE_ATTRIBUTES) delete n.attributes[key];
      picked.attributes.label = `edited ${m.pick}`;
    } else if (kind === 'early') {
      // A pending node whose parent has not finished, marked ready by hand: refused, the parent named.
      const statusOf = new Map(graph.nodes.map((n) => [n.id, { status: (n.attributes.status ?? 'pending') as NodeStatus }]));
      const early = graph.nodes.filter(
        (n) => n.attributes.status === 'pending' && graph.edges.some((e) => e.to === n.id && !isFinished(statusOf.get(e.from)!)),
      );
      const target = m.eligible && early.length > 0 ? early[m.pick % early.length]! : picked;
      target.attributes.status = 'ready';
      node = target.id;
      if (early.includes(target)) {
        const report = await h.ops.apply(planId, writeDot(graph), by);
        expect(report.applied, `${node} marked ready before its parents finished`).toBe(false);
        expect(report.conflicts).toContainEqual(expect.objectContaining({ code: 'PARENTS_UNFINISHED', node }));
        earlyRefused++;
        return;
      }
    } else {
      const to = kind === 'retry' ? 'ready' : 'skipped';
      // Eligible: a move the table allows; to ready, only once the node's parents have finished (the 'early' edit tries before).
      const finished = (id: string) => isFinished({ status: (graph.nodes.find((n) => n.id === id)!.attributes.status ?? 'pending') as NodeStatus });
      const eligible = graph.nodes.filter(
        (n) =>
          canMoveNode(n.attributes.status as NodeStatus, to, 'operator') && (to !== 'ready' || graph.edges.every((e) => e.to !== n.id || finished(e.from))),
      );
      const target = m.eligible && eligible.length > 0 ? eligible[m.pick % eligible.length]! : picked;
      target.attributes.status = to;
      node = target.id;
    }
    const applied = h.ops.apply(planId, writeDot(graph), by).then((report) => {
      if (report.applied) edits.set(kind, (edits.get(kind) ?? 0) + 1);
    });
    await refusedOrDone(applied, { driver: 'operator', node });
  }

  /** The invariants, over everything stored about the plan. */
  async function check(planId: string, after: string): Promise<void> {
    const [plan, nodes, edges, events, inbox] = await Promise.all([
      h.store.plans.get(planId),
      h.store.plans.nodes(planId),
      h.store.plans.edges(planId),
      h.store.events.list(planId),
      h.ops.inbox({ planId }),
    ]);
    const where = (what: string) => `${what}, after ${after}`;

    // Every status event is a move its driver may make, from the status the node (or plan) had.
    const statusOf = new Map<string, string>();
    let planStatus: string | undefined;
    for (const e of events) {
      if (e.kind !== 'status') continue;
      const move = `${e.driver} ${e.from || '·'} → ${e.to}`;
      if (e.nodeId === undefined) {
        if (planStatus !== undefined) {
          expect(e.from, where(`plan event ${e.id} (${move}) starts from ${planStatus}`)).toBe(planStatus);
          expect(canMovePlan(e.from as PlanStatus, e.to as PlanStatus, e.driver), where(`plan event ${e.id}: ${move} is not a plan move`)).toBe(true);
        }
        planStatus = e.to;
        continue;
      }
      const from = statusOf.get(e.nodeId) ?? 'pending';
      expect(e.from, where(`event ${e.id} of ${e.nodeId} (${move}) starts from ${from}`)).toBe(from);
      expect(canMoveNode(e.from as NodeStatus, e.to as NodeStatus, e.driver), where(`event ${e.id} of ${e.nodeId}: ${move} is not in NODE_MOVES`)).toBe(true);
      statusOf.set(e.nodeId, e.to);
    }
    expect(planStatus, where('the plan status its last event says')).toBe(plan.status);
    for (const n of nodes) expect(n.status, where(`${n.id}: the status its last event says`)).toBe(statusOf.get(n.id) ?? 'pending');

    // A plan that has ended leaves nothing that could still run: completed, every node finished with a
    // result or skipped; cancelled, nothing left pending, ready, running or waiting.
    if (plan.status === 'completed')
      for (const n of nodes) expect(['done', 'skipped'], where(`${n.id} is ${n.status} in a completed plan`)).toContain(n.status);
    if (plan.status === 'cancelled') for (const n of nodes) expect(isFinished(n), where(`${n.id} is ${n.status} in a cancelled plan`)).toBe(true);

    // The claims' index leaves out held nodes: a node is held only while its plan is not running (a
    // held node of a running plan would never be claimed), and a node that was ready when the plan
    // stopped running is held (one that becomes ready after is left to the claim's plan check).
    const heldRows = await raw.db.all<{ id: string; held: number | bigint }>('SELECT node_id AS "id", held FROM nodes WHERE plan_id = ?', [planId]);
    const isHeld = new Map(heldRows.map((n) => [n.id, Number(n.held) === 1]));
    if (plan.status === 'running')
      expect(
        [...isHeld].filter(([, yes]) => yes).map(([id]) => id),
        where('held nodes of a running plan'),
      ).toEqual([]);
    const stopped = events.filter((e) => e.kind === 'status' && e.nodeId === undefined && e.from === 'running').at(-1);
    if (plan.status !== 'running' && stopped) {
      const lastMove = new Map(events.filter((e) => e.kind === 'status' && e.nodeId !== undefined).map((e) => [e.nodeId!, e.id]));
      for (const n of nodes)
        if (n.status === 'ready' && (lastMove.get(n.id) ?? 0) < stopped.id)
          expect(isHeld.get(n.id), where(`${n.id}, ready when the plan stopped, is held`)).toBe(true);
    }

    // A node runs exactly when it holds a lease.
    for (const n of nodes) {
      const leased = n.leaseOwner !== undefined || n.leaseExpiresAt !== undefined;
      expect(leased, where(`${n.id} is ${n.status} ${leased ? 'with' : 'without'} a lease`)).toBe(n.status === 'running');
    }

    // While the plan can go on, a node waits for a person exactly when its question is in the inbox (a
    // failed plan's question waits, unlisted, for a retry to resume the plan).
    const asked = new Map(inbox.filter((e) => e.kind === 'question').map((e) => [e.nodeId, e]));
    const live = plan.status === 'running' || plan.status === 'paused';
    for (const n of nodes) {
      expect(asked.has(n.id), where(`${n.id} is ${n.status} in a ${plan.status} plan; its question ${asked.has(n.id) ? 'is' : 'is not'} in the inbox`)).toBe(
        live && n.status === 'awaiting_input',
      );
      if (live && n.status === 'awaiting_input') expect(asked.get(n.id)!.question, where(`${n.id}: the question asked`)).toBeTruthy();
    }

    // Edges hold for every driver: a node is made ready, claimed or asks only once its parents have
    // finished (checked for the events this move added, against the edges as the move left them).
    const parentsOf = (id: string) => edges.filter((e) => e.to === id).map((e) => e.from);
    const replayed = new Map<string, string>();
    const seen = checkedUpTo.get(planId) ?? 0;
    for (const e of events) {
      if (e.kind !== 'status' || e.nodeId === undefined) continue;
      const starts = (e.to === 'ready' && e.from === 'pending') || e.to === 'running' || (e.to === 'awaiting_input' && e.from !== 'running');
      if (e.id > seen && starts) {
        const unfinished = parentsOf(e.nodeId).filter((p) => !isFinished({ status: (replayed.get(p) ?? 'pending') as NodeStatus }));
        expect(
          unfinished,
          where(`event ${e.id}: ${e.nodeId} ${e.from} → ${e.to} (${e.driver}) while its parents ${unfinished.join(', ')} had not finished`),
        ).toEqual([]);
      }
      replayed.set(e.nodeId, e.to);
    }
    checkedUpTo.set(planId, events.at(-1)?.id ?? seen);

    // Readiness counters are their definition, recomputed from the parents.
    const byId = new Map<string, NodeRecord>(nodes.map((n) => [n.id, n]));
    for (const n of nodes) {
      const incoming = edges.filter((e) => e.to === n.id).map((e) => ({ source: byId.get(e.from)!, when: e.when }));
      const expected = {
        waiting: incoming.filter(({ source }) => !isFinished(source)).length,
        taken: incoming.filter(({ source, when }) => isTaken(source, when)).length,
      };
      expect({ waiting: n.waiting, taken: n.taken }, where(`${n.id}'s counters`)).toEqual(expected);
      if (n.status === 'ready') expect(expected.waiting, where(`${n.id} is ready while ${expected.waiting} of its parents have not finished`)).toBe(0);
    }
  }

  /** The last event whose edge rule has been checked, per plan. */
  const checkedUpTo = new Map<string, number>();
  /** Edits that marked a node ready before its parent finished (all refused). */
  let earlyRefused = 0;

  /** Edits applied (not refused), by kind: the property must see each kind land. */
  const edits = new Map<(typeof EDITS)[number], number>();

  it('every event is a move its driver may make; running ⇔ leased; awaiting_input ⇔ a question; counters as defined', async () => {
    let played = 0;
    await fc.assert(
      fc.asyncProperty(randomPlan, fc.array(move, { minLength: 10, maxLength: 40 }), async (plan, moves) => {
        const { id } = await h.ops.create({ dot: dotOf(plan), source: 'random.dot' });
        const held: ClaimedNode[] = [];
        try {
          await check(id, 'create');
          for (const [i, m] of moves.entries()) {
            await play(id, plan, held, m);
            await check(id, `move ${i + 1} (${m.kind})`);
            played++;
          }
        } finally {
          // Nothing of this plan is left for the next run's claims.
          await h.ops.cancel(id).catch(() => undefined);
        }
      }),
      { numRuns: 60 },
    );
    expect(played).toBeGreaterThan(300);
    // A retry by hand lands only on a failed node (or one whose parents have finished in a paused plan): rare here, so not counted.
    for (const kind of EDITS) if (kind !== 'early' && kind !== 'retry') expect(edits.get(kind) ?? 0, `${kind} edits applied`).toBeGreaterThan(2);
    // Random: how many plans have a node with an unfinished parent when an 'early' edit comes varies (1 was seen in 60 runs).
    expect(earlyRefused, 'edits that mark a node ready before its parents finished').toBeGreaterThan(0);
  }, 300_000); // ~6 s on an idle 2-core machine, up to 50 s on a loaded one
});

/**
 * An operator's or person's command: carried out, or refused with the store unchanged (checked
 * next). A refusal is about the command's own move (its driver, its node); any other error — the
 * engine refused a move of its own along the way — is a broken state machine, and fails the test.
 */
async function refusedOrDone(command: Promise<unknown>, by: { driver: Driver; node?: string }): Promise<void> {
  try {
    await command;
  } catch (error) {
    if (error instanceof IllegalTransitionError && error.move.driver === by.driver && error.move.node === by.node) return;
    if (error instanceof IllegalPlanTransitionError && error.move.driver === by.driver) return;
    if (error instanceof DotplanError && !(error instanceof IllegalTransitionError || error instanceof IllegalPlanTransitionError) && error.code !== 'INTERNAL')
      return;
    throw error;
  }
}

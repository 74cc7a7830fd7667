import { modeRules } from '../model/plan-modes.js';
import { RefreshAfterPlans } from './sql/statistics.js';
import { settle } from '../engine/plan-steps.js';
import { TERMINAL_NODE_STATUSES } from '../model/status.js';
import type { NodeState, PlanState } from '../engine/snapshot.js';
import type { Step } from '../engine/step.js';
import { FINISHED_PLAN_STATUSES } from '../state/plan-moves.js';
import type { Db, Queryable } from './sql/executor.js';
import type { KnownPlan } from './sql/known-plans.js';
import type { LoadedPlan } from './sql/load.js';
import { toWriteSet, StaleStepError, type RowIds } from './sql/persist-rows.js';
import { persistPostgres } from './sql/persist-postgres.js';
import { persistSqlite, type Persisted } from './sql/persist-sqlite.js';
import { factsBesides, planFacts } from './sql/settle.js';
import { endedChildren, parentSteps } from './tree/child-end.js';
import type { ChildAhead } from './tree/read-ahead.js';
import type { ClaimedNode, ClaimOptions, HandOffOptions, WakeEvent } from './types.js';
import { WAKE_CHANNEL, type Wakes } from './wake.js';
import type { RetryDefaults } from '../engine/retry-policy.js';

/** A step with the plan state it was computed on. */
export interface PlannedStep {
  step: Step;
  plan: PlanState;
  /** The plan's revision the step's snapshot was read at, where it was not read under lock (a claim's basis): written only if it still holds. */
  revision?: number;
  /** A child plan's end as the finish read it with its first reads (tree/read-ahead.ts): not read again. */
  ahead?: ChildAhead;
  /**
   * The plan's parameters and agent: with `revision`, as its claims carried them — with the plan state and
   * revision above, the plan's columns as the write checks them; without (SQLite's locking finish), as read in
   * the write's own transaction. Either way the nodes the write hands over do not read their plan back.
   */
  claimed?: { params: Record<string, string>; agent?: string };
}

export interface Written {
  steps: readonly PlannedStep[];
  persisted: Persisted;
  wakes: WakeEvent[];
  /** The parent nodes that child plans ended by these steps finished, written in the same transaction. */
  more: Written[];
}

const NO_CLAIM: ClaimOptions = { owner: '', limit: 0, leaseMs: 0 };

/**
 * The one agent node a write hands over, as the write decides it (the node before its move, the
 * attempt it moves to), for a caller that starts the node's child right behind the write
 * (work-queue.ts): the `along` of write() is called once the write's statement is sent, before its
 * answer, and only where the write sends nothing after that statement, so that the caller's last
 * statement may carry the COMMIT. PostgreSQL only. What the caller sends must write nothing unless
 * the write handed the node over (it is sent before that is known).
 */
export interface HandingAgent {
  loaded: LoadedPlan;
  node: NodeState;
  attempts: number;
  rowId: number;
}
export type AlongWrite = (handing: HandingAgent) => Promise<void>;

/** What StepWriter.after ended when it ended no plan. */
export const NOTHING_ENDED: ReadonlySet<string> = new Set();

/**
 * The one way steps reach the database: rows written all or nothing (persist-*.ts), then after
 * commit the wake-ups, and settling of the plans a step may have finished — inside the transaction
 * on SQLite (writers take turns), right after commit on PostgreSQL (of concurrent writers, the one
 * committing last sees every result).
 */
export class StepWriter {
  /** Statistics refreshed after large plans ended, off the writer's path. */
  readonly #statistics: RefreshAfterPlans;

  constructor(
    private readonly db: Db,
    private readonly wakes: Wakes,
    /** The configured retry policy (`retry`) of the nodes whose end a write makes itself: an agent node's, when its child ends. */
    readonly retryDefaults: RetryDefaults,
  ) {
    this.#statistics = new RefreshAfterPlans(db);
  }

  /**
   * Writes the steps with `q` — a transaction, or on PostgreSQL the pool itself for a single
   * statement. Throws StaleStepError when a row no longer holds what a step was computed from.
   * `last`: the caller sends nothing after this write in its transaction, so on PostgreSQL the COMMIT
   * goes with the step's statement when the write sends nothing after it either.
   */
  async write(
    q: Queryable,
    given: readonly PlannedStep[],
    rows: RowIds,
    tokens: ReadonlyMap<number, string>,
    claim: HandOffOptions = NO_CLAIM,
    { along, last = false }: { along?: AlongWrite; last?: boolean } = {},
  ): Promise<Written> {
    // A plan that settles in this write and is left with nothing to run ends in it, in the same rows; and when
    // that plan is a child, its parent node's step is decided now and written with it.
    const { settling, checked } = await this.#settleWith(q, given);
    const parent = await this.#parentWith(q, [...given, ...settling], settling, rows, tokens, claim);
    const steps = [...given, ...settling, ...parent.steps];
    const rowOf: RowIds = (plan, node) => rows(plan, node) ?? parent.rows(plan, node);
    const plans = new Map(steps.map((s) => [s.step.planId, { status: s.plan.status, ...(s.revision !== undefined ? { revision: s.revision } : {}) }]));
    const writes = toWriteSet(
      steps.map((s) => s.step),
      rowOf,
      tokens,
      (planId) => plans.get(planId)!,
    );
    const wakes = wakeEvents(steps.map((s) => s.step));
    let persisted: Persisted | undefined;
    // The ends of child plans whose parent node's step is not in this write: their parents' steps follow it.
    const ended: PlannedStep[] = [...given, ...(parent.steps.length > 0 ? [] : settling), ...parent.steps];
    const moved = new Set<string>();
    const known = knownPlans(q, steps);
    if (q.dialect === 'postgres') {
      const handing = along && handingAgent(q, steps, writes.nodes, parent, checked, ended);
      if (last && !handing && nothingFollows(q, steps, checked, ended)) q.commitWithNext?.();
      const persisting = persistPostgres(q, writes, claim, { channel: WAKE_CHANNEL, payloads: this.wakes.payloads(wakes) }, known);
      // The write's statement leaves before the child's is made: the server runs it meanwhile.
      if (handing) q.flush?.();
      const alongside = handing ? along(handing) : undefined;
      alongside?.catch(() => undefined); // awaited below, after the write's own answer
      persisted = await persisting;
      if (!persisted) throw new StaleStepError();
      await alongside;
      await askLlm(q, steps); // reflection and child plans never take the one-statement path (work-queue.ts): q is a transaction here
    } else {
      persisted = await persistSqlite(q, writes, claim, known);
      await askLlm(q, steps);
    }
    // SQLite's writers take turns: a plan settles in the write. On PostgreSQL a child plan does too — every
    // write to it holds its tree's lock, so this one sees every result — and its end finishes its parent node here.
    for (const planned of steps) {
      if (!settlesInWrite(q, planned) || checked.has(planned.step.planId)) continue;
      const settled = await this.#settle(q, planned, persisted);
      if (!settled) continue;
      wakes.push({ reason: 'plan', planId: planned.step.planId });
      ended.push({ step: settled, plan: planned.plan });
      moved.add(planned.step.planId);
    }
    for (const id of persisted.planMoves) moved.add(id);
    const used = persisted.handed.length + persisted.claimed.length;
    const rest = { ...claim, limit: Math.max(0, claim.limit - used), claimOthers: false };
    return { steps, persisted, wakes, more: await this.#endChildren(q, ended, moved, rest) };
  }

  /**
   * A start step written with its plan's rows (insertPlan's StartedRows) rather than by write(), as
   * write() would have reported it: its wake-ups, the nodes it handed to the worker, the plan's move.
   */
  inserted(planned: PlannedStep, handed: ClaimedNode[]): Written {
    return { steps: [planned], persisted: { handed, claimed: [], planMoves: new Set([planned.step.planId]) }, wakes: wakeEvents([planned.step]), more: [] };
  }

  /**
   * Tells other processes of a write made outside write() — a plan inserted as its start leaves it —
   * in the write's transaction, as write() does: on PostgreSQL a NOTIFY of its wake-ups; SQLite's other
   * processes see the commit itself (wake.ts).
   */
  async announce(q: Queryable, written: Written): Promise<void> {
    if (q.dialect !== 'postgres') return;
    const payloads = this.wakes.payloads(written.wakes);
    if (payloads.length > 0) await q.run(`SELECT pg_notify(CAST(? AS text), p) FROM unnest(CAST(? AS text[])) AS p`, [WAKE_CHANNEL, payloads]);
  }

  /**
   * The parent node's step of the one child plan these settling steps end, decided before the write
   * (what the write will leave of the child laid over what is read: no writer interleaves), so that the
   * child's end and its parent node's go in one write; with the parent's row ids. Nothing when no child
   * ends, or several do (each parent's step is then decided after the write before it, as for a child
   * that ends otherwise).
   */
  async #parentWith(
    q: Queryable,
    own: readonly PlannedStep[],
    settling: readonly PlannedStep[],
    rows: RowIds,
    tokens: ReadonlyMap<number, string>,
    claim: HandOffOptions,
  ): Promise<{ steps: PlannedStep[]; rows: RowIds; loaded?: LoadedPlan }> {
    const none = { steps: [], rows: () => undefined };
    const ended = endedChildren(settling, new Set(settling.map((s) => s.step.planId)));
    if (ended.length !== 1) return none;
    const childId = ended[0]!.plan.id;
    const ending = new Map<string, { status: string; output?: string | null }>();
    for (const node of toWriteSet(
      own.filter((s) => s.step.planId === childId).map((s) => s.step),
      rows,
      tokens,
    ).nodes) {
      ending.set(node.node_id, { status: node.status, ...(node.set_output ? { output: node.output } : {}) });
    }
    const used = own.reduce((n, s) => n + s.step.changes.filter((c) => c.claim).length, 0);
    const ahead = own.find((s) => s.ahead?.childId === childId)?.ahead;
    const [found] = await parentSteps(q, ended, this.retryDefaults, { owner: claim.owner, slots: Math.max(0, claim.limit - used) }, ending, ahead);
    if (!found) return none;
    const { step, loaded } = found;
    const claimed = { params: loaded.params, ...(loaded.agent ? { agent: loaded.agent } : {}) };
    return { steps: [{ step, plan: loaded.plan, claimed }], rows: (plan, node) => (plan === loaded.plan.id ? loaded.rows.get(node) : undefined), loaded };
  }

  /**
   * The settling steps of plans that settle in this write (settlesInWrite) and that these steps leave
   * with nothing active and nothing failed, read before the write with the steps' own moves laid over
   * (planFacts after it would read the same: no writer interleaves), and every plan so checked. A plan
   * left with failed nodes settles after the write, where its error's first failures are read.
   */
  async #settleWith(q: Queryable, steps: readonly PlannedStep[]): Promise<{ settling: PlannedStep[]; checked: Set<string> }> {
    const settling: PlannedStep[] = [];
    const checked = new Set<string>();
    const stepsOf = new Map<string, number>();
    for (const { step } of steps) stepsOf.set(step.planId, (stepsOf.get(step.planId) ?? 0) + 1);
    for (const planned of steps) {
      const { step, plan } = planned;
      if (!step.settle || step.planChange || plan.status !== 'running' || !modeRules(plan.mode).settles || !settlesInWrite(q, planned)) continue;
      if (stepsOf.get(step.planId)! > 1) continue;
      const after = new Map(step.changes.map((c) => [c.node, c.status]));
      // A node the step leaves active (made ready, handed over, waiting): the plan goes on, nothing to read.
      if ([...after.values()].some((status) => !TERMINAL_NODE_STATUSES.has(status))) {
        checked.add(step.planId);
        continue;
      }
      const facts = aheadFacts(planned, after) ?? (await factsBesides(q, step.planId, [...after.keys()]));
      if (facts.failed || [...after.values()].includes('failed')) continue;
      checked.add(step.planId);
      const settled = facts.active ? undefined : settle(plan, { active: false, failed: false });
      if (settled) settling.push({ step: settled, plan });
    }
    return { settling, checked };
  }

  /** A child plan these steps ended finishes its parent node in the same transaction (and so on up the tree). */
  async #endChildren(q: Queryable, steps: readonly PlannedStep[], moved: ReadonlySet<string>, claim: HandOffOptions = NO_CLAIM): Promise<Written[]> {
    const ended = endedChildren(steps, moved);
    if (ended.length === 0) return [];
    const out: Written[] = [];
    let slots = claim.limit;
    // The worker that ended the child runs what the parent's end makes ready, up to its free slots (as a finish hands off).
    for (const { step, loaded } of await parentSteps(q, ended, this.retryDefaults, { owner: claim.owner, slots })) {
      const written = await this.write(q, [{ step, plan: loaded.plan }], (_, node) => loaded.rows.get(node), new Map(), { ...claim, limit: slots });
      slots -= handedIn(written);
      out.push(written);
    }
    return out;
  }

  /** After commit: wake-ups, then (PostgreSQL) settling; `holding`: plans the caller still runs nodes of. Resolves to the plans it ended. */
  async after(written: Written, holding?: ReadonlySet<string>): Promise<ReadonlySet<string>> {
    let ended: Set<string> | undefined; // made only when a plan ends: after() runs once a step
    this.wakes.emit(written.wakes);
    for (const more of written.more) for (const id of await this.after(more)) (ended ??= new Set()).add(id);
    if (this.db.dialect !== 'postgres') return ended ?? NOTHING_ENDED;
    for (const planned of written.steps) {
      if (holding?.has(planned.step.planId) || settlesInWrite(this.db, planned)) continue; // it settled in its write
      if (await this.#settle(this.db, planned, written.persisted)) {
        (ended ??= new Set()).add(planned.step.planId);
        this.wakes.emit([{ reason: 'plan', planId: planned.step.planId }]);
        this.#statistics.request(planned.step.planId);
      }
    }
    return ended ?? NOTHING_ENDED;
  }

  /** Waits for the statistics refresh in the background, if one runs (before the store closes). */
  drain(): Promise<void> {
    return this.#statistics.drain();
  }

  /** Settles the step's plan when it may be over; the settling step when it did. */
  async #settle(q: Queryable, { step, plan }: PlannedStep, persisted: Persisted): Promise<Step | undefined> {
    if (!step.settle || [...persisted.handed, ...persisted.claimed].some((c: ClaimedNode) => c.planId === step.planId)) return undefined;
    const status = step.planChange && persisted.planMoves.has(step.planId) ? step.planChange.to : plan.status;
    // Only a workflow plan ends by itself (a reflection plan ends by the LLM's work): no facts to read for others.
    if (FINISHED_PLAN_STATUSES.has(status) || !modeRules(plan.mode).settles) return undefined;
    const settled = settle({ ...plan, status }, await planFacts(q, step.planId));
    if (!settled) return undefined;
    const writes = toWriteSet([settled], () => undefined);
    const done =
      q.dialect === 'postgres'
        ? await persistPostgres(q, writes, NO_CLAIM, { channel: WAKE_CHANNEL, payloads: this.wakes.payloads([{ reason: 'plan', planId: step.planId }]) })
        : await persistSqlite(q, writes, NO_CLAIM);
    return done?.planMoves.has(step.planId) === true ? settled : undefined;
  }
}

/**
 * The one node the write hands over when it is an agent node of the parent step folded into the write
 * (a child's end handing over the next agent node), and the write sends nothing after its statement
 * (nothingFollows; the child ended is the one folded in).
 */
function handingAgent(
  q: Queryable,
  steps: readonly PlannedStep[],
  nodes: ReadonlyArray<{ id: number; claim: boolean }>,
  parent: { steps: PlannedStep[]; loaded?: LoadedPlan },
  checked: ReadonlySet<string>,
  ended: readonly PlannedStep[],
): HandingAgent | undefined {
  const claims = nodes.filter((n) => n.claim);
  const change = parent.steps.length === 1 ? parent.steps[0]!.step.changes.find((c) => c.claim) : undefined;
  const node = change && parent.loaded?.nodes.get(change.node);
  const rowId = change && parent.loaded?.rows.get(change.node);
  if (!parent.loaded || !change || node?.type !== 'agent' || claims.length !== 1 || claims[0]!.id !== rowId) return undefined;
  if (!nothingFollows(q, steps, checked, ended)) return undefined;
  return { loaded: parent.loaded, node, attempts: change.set.attempts ?? node.attempts, rowId };
}

/**
 * Whether write() sends nothing after the step's statement: no LLM asked, no plan whose settling would be
 * read (`checked`: known to go on), no child plan ended whose parent's step would follow.
 */
function nothingFollows(q: Queryable, steps: readonly PlannedStep[], checked: ReadonlySet<string>, ended: readonly PlannedStep[]): boolean {
  if (steps.some((s) => s.step.askLlm || (s.step.settle && settlesInWrite(q, s) && !checked.has(s.step.planId)))) return false;
  return endedChildren(ended, new Set(steps.flatMap((s) => (s.step.planChange ? [s.step.planId] : [])))).length === 0;
}

/** Whether the step's plan settles inside its write: every plan on SQLite (writers take turns), a child plan under its tree's lock on PostgreSQL. */
function settlesInWrite(q: Queryable, planned: PlannedStep): boolean {
  return q.dialect !== 'postgres' || planned.plan.root !== undefined;
}

/**
 * The facts the finish's read-ahead found (nothing active besides the finishing nodes; whether another
 * failed), when the step moves exactly those nodes; otherwise undefined, and they are read.
 */
function aheadFacts({ ahead }: PlannedStep, after: ReadonlyMap<string, string>): { active: boolean; failed: boolean } | undefined {
  if (!ahead?.end || after.size !== ahead.besides.size || [...after.keys()].some((node) => !ahead.besides.has(node))) return undefined;
  return { active: false, failed: ahead.end.failed };
}

/** Work handed to the writer's worker by a write and the writes nested in it (child plans' ends). */
export function handedIn(written: Written): number {
  return written.persisted.handed.length + written.persisted.claimed.length + written.more.reduce((n, w) => n + handedIn(w), 0);
}

/** The claims of a write and of the writes nested in it, for the worker that wrote it. */
export function claimsOf(written: Written): ClaimedNode[] {
  return [...written.persisted.handed, ...written.persisted.claimed, ...written.more.flatMap(claimsOf)];
}

/** What other workers and followers should hear of these steps once they are committed. */
function wakeEvents(steps: readonly Step[]): WakeEvent[] {
  const out: WakeEvent[] = [];
  for (const step of steps) {
    const planId = step.planId;
    // New ready work: nodes made ready and not handed over, or a plan back to running (resumed, approved) whose ready nodes may be claimed again.
    const reopened = step.planChange?.to === 'running' && step.planChange.from !== 'draft';
    if (step.readyLeft || reopened) out.push({ reason: 'ready', planId });
    if (step.changes.some((c) => c.status !== c.expect.status && c.status !== 'ready' && c.status !== 'running')) out.push({ reason: 'finished', planId });
    if (step.planChange) out.push({ reason: 'plan', planId });
    if (step.askLlm) out.push({ reason: 'llm', planId });
  }
  return out;
}

/** One more request for the LLM on each reflection plan whose step asks for it (served by src/store/llm-queue.ts). */
async function askLlm(q: Queryable, steps: readonly PlannedStep[]): Promise<void> {
  for (const { step } of steps) if (step.askLlm) await q.run(`UPDATE plans SET llm_due = llm_due + 1 WHERE id = ?`, [step.planId]);
}

/**
 * The plans whose columns the steps' callers hand the writer (PlannedStep.claimed): with the revision a
 * claim's basis was read at (the write checks it), or on SQLite as read in the write's transaction.
 */
function knownPlans(q: Queryable, steps: readonly PlannedStep[]): Map<string, KnownPlan> {
  const known = new Map<string, KnownPlan>();
  for (const { step, plan, revision, claimed } of steps) {
    if (!claimed || (q.dialect === 'postgres' && revision === undefined)) continue;
    known.set(step.planId, {
      params: claimed.params,
      planAttributes: plan.attributes,
      status: plan.status,
      mode: plan.mode,
      ...(revision !== undefined ? { revision } : {}),
      root: plan.root,
      agent: claimed.agent,
    });
  }
  return known;
}

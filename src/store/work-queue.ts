import { finishAttempts, expireLeases, type AttemptEnd } from '../engine/attempts.js';
import { NeedsMore, type NodeState, type OutEdge, type Snapshot } from '../engine/snapshot.js';
import { ConflictError } from '../errors/errors.js';
import type { RetryDefaults } from '../engine/retry-policy.js';
import { claimPostgres, claimSqlite } from './sql/claim.js';
import type { Db, Queryable } from './sql/executor.js';
import { expiredPlans, renewLeases, lockExpired } from './sql/leases.js';
import { lockRoots, lockTrees, withTreeLock } from './sql/tree.js';
import { addDependents, addRows, loadDependents, loadNodes, loadPlan, lockLeased, planOf, readDependents, tokenRowId, type LoadedPlan } from './sql/load.js';
import { outlook } from './sql/outlook.js';
import { StaleStepError } from './sql/persist-rows.js';
import { isRetryableDbError } from './sql/retry.js';
import { isDatabaseUnreachable } from './unreachable.js';
import { decideWithMore, snapshotOf } from './decide.js';
import { claimsOf, type PlannedStep, type StepWriter, type Written } from './step-writer.js';
import type { TreeStore } from './tree/tree-store.js';
import { knownNodes, readAhead, slotAhead } from './tree/read-ahead.js';
import { ChildAlong, type ChildrenStarted } from './tree/child-along.js';
import type { AttemptReport, ClaimedNode, ClaimOptions, FinishOptions, FinishOutcome, Outlook, WorkQueue } from './types.js';
import { groupBy } from '../model/group-by.js';

/** Leases a crashed worker may cost a node that sets no `retries` (nor its plan): a crash is not the node's fault. */
export const EXPIRY_RETRIES = 2;

export function leaseLost(): ConflictError {
  return new ConflictError(
    'lease lost: this attempt no longer holds the node (its lease expired and it was taken over, it was cancelled, or the attempt was already finished); its result was not recorded',
  );
}

/**
 * The work queue: claims with leases, renewals, expiry, and the end of attempts. A finish runs the
 * engine's rule on a snapshot and persists the step with the work it hands to the same worker: from
 * what the claim saw (`finishFromBasis`: on PostgreSQL one statement, on SQLite a write transaction that
 * reads nothing first), each row checked as it is written; otherwise — or when a checked value no
 * longer holds — in a transaction that reads (on PostgreSQL: locks) what the step is computed from
 * first (`finishLocked`). Both write the same rows.
 */
export class SqlWorkQueue implements WorkQueue {
  constructor(
    private readonly db: Db,
    private readonly writer: StepWriter,
    private readonly tree: TreeStore,
  ) {}

  async claim(options: ClaimOptions): Promise<ClaimedNode[]> {
    if (options.limit <= 0) return [];
    if (this.db.dialect === 'postgres') return claimPostgres(this.db, options);
    return this.db.tx((q) => claimSqlite(q, options));
  }

  async renew(owner: string, tokens: readonly string[], leaseMs: number): Promise<string[]> {
    return tokens.length === 0 ? [] : renewLeases(this.db, owner, tokens, leaseMs);
  }

  async finish(reports: readonly AttemptReport[], options: FinishOptions): Promise<FinishOutcome> {
    if (reports.length === 0) return { results: [], claimed: [] };
    try {
      return (await this.finishFromBasis(reports, options)) ?? (await this.finishLocked(reports, options));
    } catch (error) {
      // An unreachable database is no reason to fail the attempts: the caller writes them again later.
      if (error instanceof ConflictError || isRetryableDbError(error) || isDatabaseUnreachable(error)) throw error;
      return this.#finishOneByOne(reports, options, error);
    }
  }

  /** The finish from the claims' bases (one statement on PostgreSQL); undefined when it does not apply or a checked value changed (nothing written). */
  async finishFromBasis(reports: readonly AttemptReport[], options: FinishOptions): Promise<FinishOutcome | undefined> {
    // A child plan's end finishes its parent node under its tree's lock, from what the locking finish reads ahead: never from a basis.
    // A dependent that waits for other parents too is counted down as it stands (NodeWrite.relative): its
    // siblings finishing since the claim do not refuse the write; the one whose end makes it ready does.
    const eligible = (r: AttemptReport) => r.claim.basis?.plan.mode === 'workflow' && r.claim.basis.plan.root === undefined;
    if (!reports.every(eligible)) return undefined;
    const byPlan = new Map<string, LoadedPlan>();
    const revisions = new Map<string, number>();
    const tokens = new Map<number, string>();
    for (const { claim } of reports) {
      const basis = claim.basis!;
      // Bases of one plan read at different revisions do not make one snapshot.
      if ((revisions.get(claim.planId) ?? basis.revision) !== basis.revision) return undefined;
      revisions.set(claim.planId, basis.revision);
      let loaded = byPlan.get(claim.planId);
      if (!loaded)
        byPlan.set(
          claim.planId,
          (loaded = {
            plan: basis.plan,
            params: claim.params,
            ...(claim.planAgent ? { agent: claim.planAgent } : {}),
            nodes: new Map(),
            edges: new Map(),
            rows: new Map(),
          }),
        );
      if (loaded.nodes.has(claim.nodeId)) return undefined;
      loaded.nodes.set(claim.nodeId, basis.node);
      loaded.rows.set(claim.nodeId, basis.rowId);
      tokens.set(basis.rowId, claim.token);
      const edges: OutEdge[] = [];
      for (const d of basis.dependents) {
        edges.push(d.edge);
        if (loaded.nodes.has(d.node.id) && loaded.rows.get(d.node.id) !== d.rowId) return undefined;
        if (!loaded.nodes.has(d.node.id)) loaded.nodes.set(d.node.id, d.node);
        loaded.rows.set(d.node.id, d.rowId);
      }
      loaded.edges.set(claim.nodeId, edges);
    }
    let steps: PlannedStep[];
    try {
      // Written only if each plan is still at the revision its bases were read at: a revision since may have changed the edges.
      steps = (await this.#steps(reports, byPlan, options)).map((s) => ({ ...s, revision: revisions.get(s.step.planId)! }));
    } catch (error) {
      if (error instanceof NeedsMore) return undefined;
      throw error;
    }
    let written: Written;
    try {
      const rows = (plan: string, node: string) => byPlan.get(plan)?.rows.get(node);
      // PostgreSQL: the step's one statement is its own transaction; SQLite: a write transaction, rolled back when a check fails.
      written =
        this.db.dialect === 'postgres'
          ? await this.writer.write(this.db, steps, rows, tokens, options)
          : await this.db.tx((q) => this.writer.write(q, steps, rows, tokens, options));
    } catch (error) {
      if (error instanceof StaleStepError || isRetryableDbError(error)) return undefined;
      throw error;
    }
    return this.#outcome(reports, written, options);
  }

  /** The general finish: one transaction that locks the leased rows and their dependents before reading them. */
  async finishLocked(reports: readonly AttemptReport[], options: FinishOptions): Promise<FinishOutcome> {
    const refused = new Map<number, Error>();
    const done = await this.db.tx(async (q) => {
      refused.clear();
      // Only a child plan's finish may end it and finish its parent node: only those take their tree's lock (root → leaf),
      // one tree's in the read of the leased rows, several in turn before it.
      const roots = [...new Set(reports.flatMap((r) => (r.claim.rootPlanId !== undefined ? [r.claim.rootPlanId] : [])))];
      if (roots.length > 1) await lockRoots(q, roots);
      const rowIds = reports.map((r) => tokenRowId(r.claim.token));
      // Read at once (one round trip on PostgreSQL, whose server runs them in turn): the leased rows with their
      // plans, whose read takes the tree's lock, then the dependents of the nodes the claims name (locked).
      const nodesOf = groupBy(
        reports,
        ({ claim }) => claim.planId,
        ({ claim }) => claim.nodeId,
      );
      const planIds = [...nodesOf.keys()];
      // A child plan's end, read ahead with them (tree/read-ahead.ts): whether the finish may end it, and then its parent node.
      const children = new Map(reports.flatMap((r) => (r.claim.rootPlanId !== undefined ? [[r.claim.planId, r.claim.rootPlanId] as const] : [])));
      // A child whose finishing nodes are all it was started with: its nodes are known from the reads of its own (knownNodes).
      const nodesKnown = (id: string) => reports.every((r) => r.claim.planId !== id || r.claim.startedWith === nodesOf.get(id)!.length);
      const [leasedRead, dependents, aheads] = await Promise.all([
        lockLeased(
          q,
          rowIds.filter((id): id is number => id !== undefined),
          roots.length === 1 ? withTreeLock(q, roots[0]!) : undefined,
        ),
        // A child plan's finishing nodes' dependents are read with its read-ahead, in one statement with its parent node's.
        Promise.all(planIds.map((id) => (children.has(id) ? Promise.resolve(undefined) : readDependents(q, id, nodesOf.get(id)!)))),
        Promise.all([...children].map(([id, root]) => readAhead(q, id, root, nodesOf.get(id)!, nodesKnown(id)))),
      ]);
      const aheadOf = new Map(aheads.map((a) => [a.childId, a]));
      const dependentsIn = new Map(planIds.map((id, i) => [id, dependents[i] ?? aheadOf.get(id)!.own]));
      await Promise.all(aheads.map((ahead) => knownNodes(q, ahead, { rows: leasedRead.rows, dependents: ahead.own })));
      const leased = new Map(leasedRead.rows.map((row) => [Number(row.rowId), row]));
      const byPlan = new Map<string, LoadedPlan>();
      const valid: AttemptReport[] = [];
      const tokens = new Map<number, string>();
      for (const [index, report] of reports.entries()) {
        const row = rowIds[index] === undefined ? undefined : leased.get(rowIds[index]);
        if (!row || row.leaseToken !== report.claim.token || row.planId !== report.claim.planId) {
          refused.set(index, leaseLost());
          continue;
        }
        let loaded = byPlan.get(row.planId);
        if (!loaded) byPlan.set(row.planId, (loaded = planOf(row.planId, leasedRead.plans.get(row.planId)!)));
        addRows(loaded, [row]);
        tokens.set(Number(row.rowId), report.claim.token);
        valid.push(report);
      }
      // The finishing nodes are the leased rows added above; their dependents were read with them.
      for (const [planId, loaded] of byPlan) addDependents(loaded, nodesOf.get(planId)!, dependentsIn.get(planId)!);
      const steps = (await this.#steps(valid, byPlan, options, q)).map((s) => {
        const ahead = aheadOf.get(s.step.planId);
        return ahead ? { ...s, ahead } : s;
      });
      // The child of an agent node this write hands over goes behind it where it can (tree/child-along.ts), else after it.
      const along = new ChildAlong(this.tree, q, options, roots, steps);
      // On PostgreSQL no child is started after a write of root plans alone (#startChildren): the write may carry the COMMIT.
      const last = q.dialect === 'postgres' && roots.length === 0;
      const written = await this.writer.write(q, steps, (plan, node) => byPlan.get(plan)?.rows.get(node), tokens, options, { along: along.write, last });
      return { written, started: along.startedBy(written) ?? (await this.#startChildren(q, written, options, roots)) };
    });
    const outcome = await this.#outcome(reports, done.written, options, done.started);
    for (const [index, error] of refused) outcome.results[index] = error;
    return outcome;
  }

  async expire(options: { retryDefaults: RetryDefaults }): Promise<number> {
    let total = 0;
    for (;;) {
      const { count, written } = await this.db.tx(async (q) => {
        await lockTrees(q, await expiredPlans(q, 200)); // root → leaf: a tree's lock before its rows
        const expired = await lockExpired(q, 200);
        const steps: PlannedStep[] = [];
        const byPlan = new Map<string, LoadedPlan>();
        for (const planId of new Set(expired.map((e) => e.planId))) {
          const loaded = (await loadPlan(q, planId, false))!;
          byPlan.set(planId, loaded);
          const mine = expired.filter((e) => e.planId === planId);
          await loadNodes(
            q,
            loaded,
            mine.map((e) => e.nodeId),
          );
          await loadDependents(
            q,
            loaded,
            mine.map((e) => e.nodeId),
          );
          const step = await decideWithMore(q, loaded, (snapshot) =>
            expireLeases(
              snapshot,
              mine.map((e) => ({ node: e.nodeId, ...(e.owner ? { owner: e.owner } : {}) })),
              options.retryDefaults,
              EXPIRY_RETRIES,
            ),
          );
          steps.push({ step, plan: loaded.plan });
        }
        const out = steps.length > 0 ? await this.writer.write(q, steps, (plan, node) => byPlan.get(plan)?.rows.get(node), new Map()) : undefined;
        return { count: expired.length, written: out };
      });
      if (written) await this.writer.after(written);
      total += count;
      if (count < 200) return total;
    }
  }

  outlook(): Promise<Outlook> {
    return outlook(this.db);
  }

  /** One step per plan; the worker's free slots go to the plans in turn. With `q`, what a rule needs more is loaded. */
  async #steps(reports: readonly AttemptReport[], byPlan: ReadonlyMap<string, LoadedPlan>, options: FinishOptions, q?: Queryable): Promise<PlannedStep[]> {
    let slots = options.limit;
    const steps: PlannedStep[] = [];
    for (const [planId, loaded] of byPlan) {
      const ends: AttemptEnd[] = reports.filter((r) => r.claim.planId === planId).map((r) => ({ node: r.claim.nodeId, result: r.result, jitter: r.jitter }));
      const rule = (snapshot: Snapshot) => finishAttempts(snapshot, ends, { retryDefaults: options.retryDefaults, owner: options.owner, claim: slots });
      const step = q ? await decideWithMore(q, loaded, rule) : rule(snapshotOf(loaded));
      slots -= step.changes.filter((c) => c.claim).length;
      // The plan's parameters and agent as loaded (a claim's basis, or a read under this transaction's lock).
      steps.push({ step, plan: loaded.plan, claimed: { params: loaded.params, ...(loaded.agent ? { agent: loaded.agent } : {}) } });
    }
    return steps;
  }

  /**
   * The children of the agent nodes this write handed to the caller (FinishOptions.children), started
   * in its transaction: each agent node then waits on its child, and the child's first node is handed
   * over in its place. On PostgreSQL only in a tree whose lock the write holds (a child's end hands
   * over the next agent node of its tree): taking a tree's lock while holding one of its rows could
   * deadlock with a cascade, which takes them the other way round.
   */
  async #startChildren(q: Queryable, written: Written, options: FinishOptions, lockedRoots: readonly string[]): Promise<ChildrenStarted> {
    const started: ChildrenStarted = { delegated: new Set(), claimed: [], written: [] };
    if (!options.children) return started;
    // What the finish read ahead for a child started in its parent's plan: for the first child started there (later ones read the counts it wrote).
    let slotUsed = false;
    const agents = claimsOf(written).filter((c) => c.type === 'agent' && (q.dialect !== 'postgres' || lockedRoots.includes(c.rootPlanId ?? c.planId)));
    for (const [i, claim] of agents.entries()) {
      const prepared = await options.children.prepare(claim).catch(() => undefined);
      if (!prepared) continue;
      const handOff = { owner: options.owner, leaseMs: options.leaseMs, limit: 1 };
      const ahead = slotUsed ? undefined : slotAhead(written.steps, claim.planId, claim.rootPlanId ?? claim.planId);
      if (ahead) slotUsed = true;
      // The last child's write carries the COMMIT: nothing is sent after it (finishLocked returns).
      const child = await this.tree.startChildIn(q, claim, prepared.child, prepared.limits, {
        handOff,
        treeLocked: true,
        ahead,
        last: i === agents.length - 1,
      });
      // A child refused (a limit reached) is not started: the worker runs the node, whose attempt fails with the reason.
      if (child.result.kind !== 'started') continue;
      started.delegated.add(claim.token);
      started.claimed.push(...child.result.claimed);
      started.written.push(...child.written);
    }
    return started;
  }

  async #outcome(reports: readonly AttemptReport[], written: Written, options: FinishOptions, children?: ChildrenStarted): Promise<FinishOutcome> {
    await this.writer.after(written, options.holding);
    for (const more of children?.written ?? []) await this.writer.after(more);
    const statuses = new Map<string, NodeState['status']>();
    for (const { step } of written.steps) for (const change of step.changes) statuses.set(`${step.planId}\u0000${change.node}`, change.status);
    return {
      results: reports.map((r) => {
        const status = statuses.get(`${r.claim.planId}\u0000${r.claim.nodeId}`);
        return status !== undefined ? { status } : leaseLost();
      }),
      claimed: children ? [...claimsOf(written).filter((c) => !children.delegated.has(c.token)), ...children.claimed] : claimsOf(written),
    };
  }

  /**
   * A batch that could not be written for a reason other than a lost lease: each report alone, and
   * one that still cannot be written fails its attempt with the reason, so that no node stays
   * `running` until its lease runs out.
   */
  async #finishOneByOne(reports: readonly AttemptReport[], options: FinishOptions, cause: unknown): Promise<FinishOutcome> {
    const results: FinishOutcome['results'] = [];
    const claimed: ClaimedNode[] = [];
    for (const report of reports) {
      let outcome: FinishOutcome;
      try {
        outcome = reports.length > 1 ? await this.finishLocked([report], options) : await this.#failStorage(report, options, cause);
      } catch (error) {
        if (isDatabaseUnreachable(error)) throw error;
        outcome = error instanceof ConflictError ? { results: [error], claimed: [] } : await this.#failStorage(report, options, error);
      }
      results.push(outcome.results[0]!);
      claimed.push(...outcome.claimed);
    }
    return { results, claimed };
  }

  async #failStorage(report: AttemptReport, options: FinishOptions, cause: unknown): Promise<FinishOutcome> {
    const message = `its result could not be stored: ${cause instanceof Error ? cause.message : String(cause)}`;
    return this.finishLocked([{ ...report, result: { kind: 'failed', error: message, retryable: false } }], options);
  }
}

import { finishAttempts } from '../../engine/attempts.js';
import { initialSnapshot } from '../../engine/initial-state.js';
import { start } from '../../engine/plan-steps.js';
import type { Snapshot } from '../../engine/snapshot.js';
import type { Step } from '../../engine/step.js';
import { decideWithMore } from '../decide.js';
import { newPlanId } from '../ids.js';
import { appendMessages, listMessages } from '../sql/messages.js';
import { chunk, marks, type Db, type Queryable } from '../sql/executor.js';
import { loadAll, loadCandidates, loadDependents, loadMany, loadNodes, loadPlan, tokenRowId, type LoadedPlan } from '../sql/load.js';
import { insertPlan, planNotFound, startedRows, type InsertedRows, type StartedRows } from '../sql/plans.js';
import { claimOf } from '../sql/claim.js';
import { childSlot, descendants, lockRoot, placeOf, placesAbove, placesOfInstance, slotOf, type SlotRead, type TreePlace } from '../sql/tree.js';
import { claimsOf, type StepWriter, type Written } from '../step-writer.js';
import type { ChangeScope, ClaimedNode, CreatePlanInput, Decide } from '../types.js';
import { leaseLost } from '../work-queue.js';
import { readAfter, readIn, type ReadBack } from '../read-back.js';
import { DotplanError } from '../../errors/errors.js';
import { chainIn, subtreeIn } from './path-from-root.js';

/** The plan stack's limits (`limits.maxPlanDepth`, `limits.maxChildPlans`). */
export type { TreePlace } from '../sql/tree.js';

export interface TreeLimits {
  maxPlanDepth: number;
  maxChildPlans: number;
}

/** A child plan to start for a claimed agent node: the plan its agent's kind made, and what the node asked. */
export interface NewChild extends Omit<CreatePlanInput, 'child'> {
  agentCode: string;
  /** `detach=true`: the node is done once the child exists (its output: the child's id). */
  detach: boolean;
}

/** The worker starting a child: it takes up to `limit` of the child's first ready nodes. */
export interface ChildHandOff {
  owner: string;
  leaseMs: number;
  limit: number;
}

export type StartedChild =
  { kind: 'started'; childPlanId: string; instance: string; claimed: ClaimedNode[] } | { kind: 'failed'; error: string; retryable: false };

/** A plan in a cascade: the one the command names, or a descendant (`cascadePaused`: paused because an ancestor was). */
export interface CascadePlace {
  descendant: boolean;
  cascadePaused: boolean;
}
export type DecideCascade = (snapshot: Parameters<Decide>[0], candidates: readonly string[], place: CascadePlace) => Step | undefined;

/**
 * The plan stack's writes (issue 15; SPEC-level words in the README's "Agents"): an agent node's child
 * is created with the node's move to wait on it, in one transaction, exactly once per attempt; a
 * command on a plan cascades to its descendants, root → leaf, in one transaction under the tree's lock.
 */
export class TreeStore {
  constructor(
    private readonly db: Db,
    private readonly writer: StepWriter,
  ) {}

  /**
   * Starts the child of a claimed agent node: checks the lease, the depth and the tree's child count,
   * creates and starts the child (the unique key on parent plan, node and attempt makes a second one
   * impossible) and moves the node to wait on it — no lease, no polling — or, detached, to done.
   */
  async startChild(claim: ClaimedNode, child: NewChild, limits: TreeLimits, handOff?: ChildHandOff): Promise<StartedChild> {
    const outcome = await this.db.tx((q) => this.startChildIn(q, claim, child, limits, { ...(handOff ? { handOff } : {}), last: true }));
    for (const written of outcome.written) await this.writer.after(written);
    return outcome.result;
  }

  /**
   * startChild in the caller's transaction — the write that handed the agent node to its worker
   * (work-queue.ts), which holds the tree's lock already when `treeLocked` — with the writes made, for
   * the caller to pass to StepWriter.after once it commits. `last`: the caller sends nothing after
   * this, so the child's write may carry the transaction's COMMIT (Queryable.commitWithNext).
   * `handed`: the node is being handed over by a write not answered yet (StepWriter's HandingAgent):
   * `claim` has no token, nothing is read (the slot read ahead must fit the child), and the child's
   * write fails the transaction unless the node was handed to `owner` for that attempt.
   */
  async startChildIn(
    q: Queryable,
    claim: ClaimedNode,
    child: NewChild,
    limits: TreeLimits,
    options: { handOff?: ChildHandOff; treeLocked?: boolean; ahead?: SlotRead; last?: boolean; handed?: HandedTo } = {},
  ): Promise<{ result: StartedChild; written: Written[] }> {
    const { handOff, treeLocked = false, ahead, handed } = options;
    const root = claim.rootPlanId ?? claim.planId;
    if (!treeLocked) await lockRoot(q, root);
    const rowId = handed?.rowId ?? tokenRowId(claim.token);
    const nodes = child.graph.nodes.length;
    const pre = ahead && slotOf(ahead, claim.token, root, child.agentCode, nodes);
    if (handed && pre?.ids.length !== nodes) throw new DotplanError('INTERNAL', `the child of ${claim.nodeId} does not fit the slot read ahead`);
    const slot = pre?.ids.length === nodes ? pre : rowId === undefined ? undefined : await childSlot(q, rowId, root, child.agentCode, nodes);
    if (!slot || slot.leaseToken !== claim.token) throw leaseLost();
    const depth = slot.depth + 1;
    const path = async () => [...(await chainsIn(q, [claim.planId])).get(claim.planId)!.map(describe), `${claim.nodeId} → ${child.agentCode}`].join(' › ');
    if (depth > limits.maxPlanDepth) {
      return failed(
        `PLAN_DEPTH_EXCEEDED: ${await path()} would be ${depth} plans below the root, over limits.maxPlanDepth=${limits.maxPlanDepth}; raise the setting or stop the recursion`,
      );
    }
    if (slot.made >= limits.maxChildPlans) {
      return failed(
        `CHILD_PLANS_EXCEEDED: the tree of ${root} already made ${slot.made} child plans, limits.maxChildPlans=${limits.maxChildPlans} (at ${await path()}); raise the setting`,
      );
    }
    const { instance } = slot;
    const id = newPlanId();
    const { snapshot, candidates } = initialSnapshot(id, child.graph);
    snapshot.plan.parent = { planId: claim.planId, nodeId: claim.nodeId };
    snapshot.plan.root = root;
    const { agentCode, detach, ...input } = child;
    const take = detach || !handOff ? undefined : { owner: handOff.owner, limit: handOff.limit };
    const startStep = start(snapshot, candidates, take);
    // The child's rows are written as its start leaves them, where it only makes nodes ready (and hands them over): one write, not two.
    const started = startedRows(snapshot, startStep, slot.ids, handOff);
    // The node drops its lease and waits on the child (a running node with no lease waits outside its plan),
    // written with the child's rows, before the child starts: a child with nothing to run ends at once, and its end finishes the node.
    const wait = {
      sql: `UPDATE nodes SET lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL, child_plan_id = ?, updated_at = NOW WHERE id = ?${handed ? HANDED_OR_FAIL : ''}`,
      params: [id, rowId, ...(handed ? [handed.owner, handed.attempts] : [])],
    };
    const planned = { step: startStep, plan: snapshot.plan };
    // Ready nodes the start does not hand over are work for any worker: other processes hear of them at commit (a
    // NOTIFY in this transaction on PostgreSQL), sent before the insert, which may carry the COMMIT.
    if (started && [...started.nodes.values()].some((node) => node.status === 'ready')) await this.writer.announce(q, this.writer.inserted(planned, []));
    const inserted = await insertPlan(
      q,
      { ...input, child: { parent: { planId: claim.planId, nodeId: claim.nodeId, attempt: claim.attempts }, rootPlanId: root, depth, agentCode, instance } },
      snapshot,
      {
        also: [
          {
            planId: claim.planId,
            node: claim.nodeId,
            kind: 'child',
            driver: 'engine',
            actor: instance,
            reason: `started child plan ${id} (${instance}, agent ${agentCode})${detach ? ', detached' : ''}`,
            detail: { childPlanId: id, instance, agentCode, attempt: claim.attempts, depth, ...(detach ? { detach: true } : {}) },
          },
        ],
        alongside: [wait, slot.counted],
        ...(started ? { started } : {}),
        // The insert is the last write unless a detached node's end or a start step written apart follows it.
        last: options.last === true && started !== undefined && !detach,
      },
    );
    const written: Written[] = [];
    if (detach) written.push(await this.#finishDetached(q, claim, id));
    if (started) {
      const handed = [...started.leases].map(([node, lease]) =>
        handedNode(snapshot, started, inserted, node, lease.token, { params: input.params ?? {}, agentCode }),
      );
      written.push(this.writer.inserted(planned, handed));
    } else {
      const rows = inserted.rows;
      written.push(
        await this.writer.write(
          q,
          [planned],
          (_, node) => rows.get(node),
          new Map(),
          take && handOff ? { owner: handOff.owner, leaseMs: handOff.leaseMs, limit: handOff.limit, claimOthers: false } : undefined,
        ),
      );
    }
    return { result: { kind: 'started', childPlanId: id, instance, claimed: take ? claimsOf(written.at(-1)!) : [] }, written };
  }

  /** A detached agent node is done once its child exists: its output is the child's id. */
  async #finishDetached(q: Queryable, claim: ClaimedNode, childId: string): Promise<Written> {
    const loaded = (await loadPlan(q, claim.planId, true))!;
    await loadNodes(q, loaded, [claim.nodeId]);
    await loadDependents(q, loaded, [claim.nodeId]);
    const step = await decideWithMore(q, loaded, (snapshot) =>
      finishAttempts(snapshot, [{ node: claim.nodeId, result: { kind: 'done', output: childId }, jitter: 0 }], {
        retryDefaults: this.writer.retryDefaults,
        owner: claim.nodeId,
        claim: 0,
      }),
    );
    return this.writer.write(q, [{ step, plan: loaded.plan }], (_, node) => loaded.rows.get(node), new Map());
  }

  /** Every plan of the tree the plan is in, root first, then root → leaf. */
  async treeOf(planId: string): Promise<TreePlace[]> {
    const place = await placeOf(this.db, planId);
    if (!place) throw planNotFound(planId);
    const root = place.root ?? place.id;
    const top = root === place.id ? place : await placeOf(this.db, root);
    return [top!, ...(await descendants(this.db, root))];
  }

  /** Each plan's chain: the plan and its ancestors, root first (chainsIn). */
  chainsOf(planIds: readonly string[]): Promise<Map<string, TreePlace[]>> {
    return chainsIn(this.db, planIds);
  }

  /** The child plans running as this agent instance (one per tree that has it), in the order they were made. */
  byInstance(instance: string): Promise<TreePlace[]> {
    return placesOfInstance(this.db, instance);
  }

  /** An agent instance's conversation, in order (the messages as the API takes them). */
  messages(planId: string): Promise<unknown[]> {
    return listMessages(this.db, planId);
  }

  /** Appends to an agent instance's conversation, in one transaction. */
  async appendMessages(planId: string, messages: readonly unknown[]): Promise<void> {
    await this.db.tx((q) => appendMessages(q, planId, messages));
  }

  /**
   * One command on a plan and every plan below it, root → leaf, in one transaction under the tree's
   * lock: `decide` runs on each (for descendants, `place.descendant`); a descendant paused by the
   * cascade is marked so, and a resume un-pauses only those.
   */
  cascade(planId: string, scope: ChangeScope, decide: DecideCascade): Promise<void>;
  cascade<T>(planId: string, scope: ChangeScope, decide: DecideCascade, read: ReadBack<T>): Promise<T>;
  async cascade<T>(planId: string, scope: ChangeScope, decide: DecideCascade, read?: ReadBack<T>): Promise<T | void> {
    const outcome = await this.db.tx(async (q) => {
      const top = await placeOf(q, planId);
      if (!top) throw planNotFound(planId);
      await lockRoot(q, top.root ?? top.id);
      const below = subtree(top, await descendants(q, top.root ?? top.id));
      const written: Written[] = [];
      // The plan named, with its checks; then every plan below it, loaded and written at once.
      const loaded = (await loadPlan(q, planId, true))!;
      if (scope.all) await loadAll(q, loaded);
      const candidates = scope.candidates ? await loadCandidates(q, loaded) : [];
      const first = await decideWithMore(q, loaded, (snapshot) => decide(snapshot, candidates, { descendant: false, cascadePaused: top.cascadePaused }));
      if (first) written.push(await this.writer.write(q, [{ step: first, plan: loaded.plan }], (_, node) => loaded.rows.get(node), new Map()));
      const many = await loadMany(
        q,
        below.map((p) => p.id),
        { all: scope.all === true },
      );
      const steps: Array<{ step: Step; plan: LoadedPlan['plan'] }> = [];
      const flags = { paused: [] as string[], resumed: [] as string[] };
      for (const target of below) {
        const plan = many.get(target.id);
        if (!plan) continue;
        const place = { descendant: true, cascadePaused: target.cascadePaused };
        const wanted = scope.candidates && plan.plan.status === 'paused' && target.cascadePaused ? await loadCandidates(q, plan) : [];
        const step = await decideWithMore(q, plan, (snapshot) => decide(snapshot, wanted, place));
        if (!step) continue;
        steps.push({ step, plan: plan.plan });
        if (step.planChange?.to === 'paused') flags.paused.push(target.id);
        if (step.planChange?.to === 'running') flags.resumed.push(target.id);
      }
      if (steps.length > 0) written.push(await this.writer.write(q, steps, (plan, node) => many.get(plan)?.rows.get(node), new Map()));
      for (const [ids, value] of [
        [flags.paused, 1],
        [flags.resumed, 0],
      ] as const) {
        for (const part of chunk(ids)) await q.run(`UPDATE plans SET cascade_paused = ? WHERE id IN (${marks(part.length)})`, [value, ...part]);
      }
      return { written, read: read && (await readIn(q, read)) };
    });
    const ended = new Set<string>();
    for (const written of outcome.written) for (const id of await this.writer.after(written)) ended.add(id);
    return read && readAfter(this.db, planId, ended, outcome.read as T, read);
  }
}

/** Who a node being handed over goes to, for which attempt, and its row (TreeStore.startChildIn's `handed`). */
export interface HandedTo {
  rowId: number;
  owner: string;
  attempts: number;
}

/**
 * The condition of a handed node's move to wait on its child: the node is running for the owner's
 * attempt (two parameters), as the write sent before it leaves it; otherwise the statement fails —
 * an integer cast of a message — and with it the transaction, whose COMMIT becomes a rollback.
 */
const HANDED_OR_FAIL =
  ` AND CAST(CASE WHEN status = 'running' AND lease_owner = ? AND attempts = ? THEN '1' ` +
  `ELSE 'agent node ' || node_id || ' was not handed over by the write before its child' END AS int) = 1`;

/**
 * A node handed to the worker with its new child, as a claim describes it: what toClaimed would read
 * back from the rows just written, made by the same rule (claimOf) from the same values — copies, so the
 * claim does not share the snapshot's objects — not serialised to JSON and parsed again.
 */
function handedNode(
  snapshot: Snapshot,
  started: StartedRows,
  inserted: InsertedRows,
  node: string,
  token: string,
  plan: { params: Record<string, string>; agentCode: string },
): ClaimedNode {
  const state = started.nodes.get(node)!;
  const { id, attributes, root } = snapshot.plan;
  return claimOf({
    planId: id,
    nodeId: node,
    type: state.type,
    attributes: { ...state.attributes },
    attempts: state.attempts,
    token,
    leaseExpiresAt: new Date(Number(inserted.leaseExpiresAt.get(node)!)),
    params: { ...plan.params },
    planAttributes: { ...attributes },
    planAgent: plan.agentCode,
    rootPlanId: root,
    label: state.attributes?.label,
    startedWith: snapshot.nodes.size,
  });
}

function failed(error: string): { result: StartedChild; written: Written[] } {
  return { result: { kind: 'failed', error, retryable: false }, written: [] };
}

/** `root title` for a root, `instance` for a child: how a path from the root names each plan. */
function describe(place: TreePlace): string {
  return place.instance ?? place.title;
}

/** Each plan's chain, root first: the plans and their ancestors in one read per 500 plans (placesAbove), then chained (chainIn). */
async function chainsIn(q: Queryable, planIds: readonly string[]): Promise<Map<string, TreePlace[]>> {
  const places = await placesAbove(q, planIds);
  return new Map(planIds.map((id) => [id, chainIn(places, id)]));
}

/** The plans below `top` among its tree's descendants (root → leaf order kept). */
function subtree(top: TreePlace, all: readonly TreePlace[]): TreePlace[] {
  const inside = subtreeIn(all, top.id);
  return all.filter((plan) => plan.id !== top.id && inside.has(plan.id));
}

import { decodeText } from '../text.js';
import type { NodeState, OutEdge, PlanState } from '../../engine/snapshot.js';
import type { Attributes, NodeStatus, NodeType, PlanStatus } from '../../model/types.js';
import { canMoveNode } from '../../state/node-moves.js';
import { parseJsonObject } from '../rows.js';
import type { ClaimBasis, ClaimedNode, ClaimOptions } from '../types.js';
import { insertEvents } from './events.js';
import { chunk, marks, type Queryable } from './executor.js';
import { groupBy } from '../../model/group-by.js';
import { pgTouch } from './touch.js';
import type { KnownPlan, KnownPlans } from './known-plans.js';
import { IN_RUNNING_PLAN } from './waits.js';

/**
 * Claiming ready work, atomically, with a lease from the database clock: a node is claimable when
 * it is `ready`, due (`run_after <= NOW`) and its plan is `running`, oldest due first; the scan
 * walks the partial index of ready nodes of running plans (DUE), so an idle poll costs the same with
 * 10 plans or 10,000, and a paused plan's ready nodes cost a claim nothing.
 * PostgreSQL: `FOR UPDATE SKIP LOCKED`, one statement with its events. SQLite: inside the write
 * transaction, a read of the candidates and an UPDATE of them by id, the claimed nodes' dependents
 * read beside them. Either way each claimed node carries its basis (its dependents as they stand) for
 * the finish from it (work-queue.ts), and the claimed nodes' plans are touched (touch.ts). Lease tokens
 * are `<row id>.<random>`.
 */
if (!canMoveNode('ready', 'running', 'engine')) throw new Error('the state machine no longer lets the engine claim');

/**
 * Claimable: ready, not held (`held = 1`: the plan is not running — the partial index
 * nodes_claimable_idx holds only the others, so a paused plan's ready nodes are never scanned), due,
 * and of a running plan. The plan check stays (a node that became ready in a paused plan is not held
 * yet; IN_RUNNING_PLAN).
 */
export const DUE = `n.status = 'ready' AND n.held = 0 AND n.run_after <= NOW AND ${IN_RUNNING_PLAN}`;

/** Most dependents a claim describes; a node with more finishes through the locking path. */
const BASIS_LIMIT = 500;

/** A claimed row's columns (ClaimRow, without its basis) for RETURNING in a statement on `nodes`; `t` (`nodes.`) qualifies them where another relation is joined. */
function claimRow(t = ''): string {
  return (
    `${t}id AS "rowId", ${t}plan_id AS "planId", ${t}node_id AS "nodeId", ${t}type, ${t}label, ${t}attributes, ${t}attempts, ` +
    `${t}waiting, ${t}taken, ${t}lease_token AS "token", ${t}lease_expires_at AS "leaseExpiresAt"`
  );
}
/** A claimed row's columns, for RETURNING in an UPDATE of `nodes` alone. */
export const CLAIM_ROW = claimRow();
/** The same, qualified (PostgreSQL's statements that join `nodes` to others); the basis is BASIS_DEPENDENTS. */
export const CLAIMED_COLUMNS = claimRow('nodes.');
/** The plan columns a claim carries (PlanColumns), with the plan's id, from `plans`. */
const PLAN_COLUMNS = `id, params, attributes AS "planAttributes", status AS "planStatus", mode AS "planMode", revision AS "planRevision", root_plan_id AS "planRoot", agent_code AS "planAgent"`;
/** A claimed node's dependents as its basis describes them (ClaimRow.dependents): each edge `e` from it, with the node `c` it leads to. */
const BASIS_DEPENDENT =
  `c.id AS "rowId", c.node_id AS "to", e.when_match AS "when", c.type, c.status, c.attempts, c.waiting, c.taken ` +
  `FROM edges e JOIN nodes c ON c.plan_id = e.plan_id AND c.node_id = e.to_node`;
export const BASIS_DEPENDENTS =
  `(SELECT CASE WHEN count(*) <= ${BASIS_LIMIT} THEN COALESCE(json_agg(d ORDER BY d.k), '[]'::json) END FROM (` +
  `SELECT e.id AS k, ${BASIS_DEPENDENT} WHERE e.plan_id = nodes.plan_id AND e.from_node = nodes.node_id LIMIT ${BASIS_LIMIT + 1}) d)`;

const PG_CLAIM =
  `WITH c AS (SELECT n.id FROM nodes n WHERE ${DUE} ORDER BY n.run_after, n.id LIMIT ? FOR UPDATE OF n SKIP LOCKED), ` +
  `u AS (UPDATE nodes SET status = 'running', lease_owner = ?, lease_token = nodes.id || '.' || replace(gen_random_uuid()::text, '-', ''), lease_expires_at = NOW + ?, ` +
  `attempts = attempts + 1, started_at = NOW, updated_at = NOW FROM c WHERE nodes.id = c.id RETURNING ${CLAIMED_COLUMNS}, ${BASIS_DEPENDENTS} AS "dependents"), ` +
  `${pgTouch(`SELECT "planId" FROM u`)}, ` +
  `e AS (INSERT INTO events (plan_id, node_id, kind, driver, actor, from_status, to_status, reason, at) SELECT "planId", "nodeId", 'status', 'engine', ?, 'ready', 'running', ?, NOW FROM u ORDER BY "rowId") ` +
  `SELECT u.*, p.params, p.attributes AS "planAttributes", p.status AS "planStatus", p.mode AS "planMode", p.revision AS "planRevision", p.root_plan_id AS "planRoot", p.agent_code AS "planAgent" FROM u CROSS JOIN LATERAL (SELECT * FROM plans p WHERE p.id = u."planId") p ORDER BY u."rowId"`;

// SQLite's planner, without statistics, takes the first index that fits (status, run_after, id) and then
// reads every held row: the partial index is named. The candidates are read first, with what a claim carries
// that the lease does not set (their attempts counted with this one), and then leased by id, returning only
// what the lease set (token, end): inside the write transaction nobody can take them between the two, and an
// UPDATE that chose its rows itself and returned eleven columns cost a third more than the two statements
// (bench/ANALYSES.md, twenty-seventh session).
const sqliteCandidates = (excluded: number) =>
  `SELECT n.id AS "rowId", n.plan_id AS "planId", n.node_id AS "nodeId", n.type, n.label, n.attributes, n.attempts + 1 AS "attempts", n.waiting, n.taken ` +
  `FROM nodes n INDEXED BY nodes_claimable_idx WHERE ${DUE}${excluded > 0 ? ` AND n.id NOT IN (${marks(excluded)})` : ''} ORDER BY n.run_after, n.id LIMIT ?`;
const sqliteLease = (count: number) =>
  `UPDATE nodes SET status = 'running', lease_owner = ?, lease_token = id || '.' || lower(hex(randomblob(16))), lease_expires_at = NOW + ?, ` +
  `attempts = attempts + 1, started_at = NOW, updated_at = NOW WHERE id IN (${marks(count)}) ` +
  `RETURNING id AS "rowId", lease_token AS "token", lease_expires_at AS "leaseExpiresAt"`;

export interface ClaimRow {
  rowId: number;
  planId: string;
  nodeId: string;
  type: string;
  label: string | null;
  attributes: string;
  attempts: number;
  waiting: number;
  taken: number;
  token: string;
  leaseExpiresAt: number;
  /** The dependents as the claim saw them, in edge order (null: too many to describe); read with the claim (PostgreSQL) or beside it (SQLite, withDependents). */
  dependents?: Array<{ rowId: number; to: string; when: string | null; type: string; status: string; attempts: number; waiting: number; taken: number }> | null;
}

export interface PlanColumns {
  params: string;
  planAttributes: string;
  planStatus: string;
  planMode: string;
  /** The plan's revision when the claim described the node's dependents. */
  planRevision: number;
  /** A child plan's tree root (null for a root plan). */
  planRoot?: string | null;
  /** A child plan's agent (null for a root plan). */
  planAgent?: string | null;
}

export const claimReason = (owner: string) => `claimed by ${owner}`;

/** PostgreSQL: call outside a transaction (the statement is its own). */
export async function claimPostgres(q: Queryable, options: ClaimOptions): Promise<ClaimedNode[]> {
  const rows = await q.all<ClaimRow & PlanColumns>(PG_CLAIM, [options.limit, options.owner, options.leaseMs, options.owner, claimReason(options.owner)]);
  return toClaims(rows);
}

/** SQLite: call inside a write transaction. `excluded`: rows a step just wrote, not claimed here (as on PostgreSQL, where one statement cannot see them). */
export async function claimSqlite(q: Queryable, options: ClaimOptions, excluded: readonly number[] = []): Promise<ClaimedNode[]> {
  if (options.limit <= 0) return [];
  const exclude = excluded.length <= 500 ? excluded : [];
  // The candidates, then their leases: each row takes the token and lease end its UPDATE returned.
  const candidates = await q.all<Omit<ClaimRow, 'token' | 'leaseExpiresAt'>>(sqliteCandidates(exclude.length), [...exclude, options.limit]);
  if (candidates.length === 0) return [];
  const leases = new Map<number, Pick<ClaimRow, 'token' | 'leaseExpiresAt'>>();
  for (const part of chunk(candidates.map((r) => r.rowId)))
    for (const { rowId, ...lease } of await q.all<Pick<ClaimRow, 'rowId' | 'token' | 'leaseExpiresAt'>>(sqliteLease(part.length), [
      options.owner,
      options.leaseMs,
      ...part,
    ]))
      leases.set(rowId, lease);
  const rows: ClaimRow[] = candidates.map((row) => Object.assign(row, leases.get(row.rowId)!)).sort((a, b) => a.rowId - b.rowId);
  const reason = claimReason(options.owner);
  await insertEvents(
    q,
    rows.map((r) => ({ planId: r.planId, node: r.nodeId, kind: 'status', driver: 'engine', actor: options.owner, from: 'ready', to: 'running', reason })),
  );
  await withDependents(q, rows);
  return withPlans(q, rows, { touch: true });
}

type BasisDependent = NonNullable<ClaimRow['dependents']>[number];

/**
 * SQLite: the dependents of rows just claimed in this write transaction, as PostgreSQL's claim returns
 * them (BASIS_DEPENDENTS: in edge order, null past BASIS_LIMIT), set on each row — one read per plan
 * and chunk of nodes — so that the claims carry their basis.
 */
export async function withDependents(q: Queryable, rows: ClaimRow[]): Promise<void> {
  for (const [planId, ofPlan] of groupBy(rows, (r) => r.planId)) {
    const read: Array<BasisDependent & { from: string }> = [];
    for (const part of chunk(ofPlan.map((r) => r.nodeId)))
      read.push(
        ...(await q.all<BasisDependent & { from: string }>(
          `SELECT e.from_node AS "from", ${BASIS_DEPENDENT} WHERE e.plan_id = ? AND e.from_node IN (${marks(part.length)}) ORDER BY e.id`,
          [planId, ...part],
        )),
      );
    const found = groupBy(
      read,
      (d) => d.from,
      ({ from: _from, ...dependent }): BasisDependent => dependent,
    );
    for (const row of ofPlan) {
      const dependents = found.get(row.nodeId) ?? [];
      row.dependents = dependents.length <= BASIS_LIMIT ? dependents : null;
    }
  }
}

/**
 * Claims of rows a statement just leased, their plans read in one statement — with `touch`, read and
 * touched (`updated_at`) in one, as a claim does; without, the plans in `known` are not read.
 */
export async function withPlans(
  q: Queryable,
  rows: readonly ClaimRow[],
  { touch = false, known }: { touch?: boolean; known?: KnownPlans } = {},
): Promise<ClaimedNode[]> {
  if (rows.length === 0) return [];
  const ids = [...new Set(rows.map((r) => r.planId))].filter((id) => touch || !known?.has(id));
  const plans =
    ids.length === 0
      ? []
      : await q.all<PlanColumns & { id: string }>(
          touch
            ? `UPDATE plans SET updated_at = NOW WHERE id IN (${marks(ids.length)}) RETURNING ${PLAN_COLUMNS}`
            : `SELECT ${PLAN_COLUMNS} FROM plans WHERE id IN (${marks(ids.length)})`,
          ids,
        );
  const byId = new Map<string, KnownPlan>(plans.map((p) => [p.id, knownOf(p)]));
  return rows.map((row) => claimedIn(row, byId.get(row.planId) ?? known!.get(row.planId)!));
}

export function toClaimed(row: ClaimRow, plan: PlanColumns): ClaimedNode {
  return claimedIn(row, knownOf(plan));
}

/**
 * Claimed rows read with their plans' columns in one statement: each plan's columns parsed once (the
 * rows of one plan carry the same, read at the same moment), however many of its nodes were claimed.
 */
export function toClaims(rows: ReadonlyArray<ClaimRow & PlanColumns>): ClaimedNode[] {
  const plans = new Map<string, KnownPlan>();
  return rows.map((row) => {
    let plan = plans.get(row.planId);
    if (!plan) plans.set(row.planId, (plan = knownOf(row)));
    return claimedIn(row, plan);
  });
}

function knownOf(plan: PlanColumns): KnownPlan {
  return {
    params: parseJsonObject(plan.params),
    planAttributes: parseJsonObject(plan.planAttributes),
    status: plan.planStatus,
    mode: plan.planMode,
    revision: Number(plan.planRevision),
    root: plan.planRoot ?? undefined,
    agent: plan.planAgent ?? undefined,
  };
}

/** A claimed row of a plan whose columns are at hand (read with it, or known to the writer: known-plans.ts). */
export function claimedIn(row: ClaimRow, plan: KnownPlan): ClaimedNode {
  const claimed = claimOf({
    planId: row.planId,
    nodeId: row.nodeId,
    type: row.type as NodeType,
    attributes: parseJsonObject(row.attributes),
    attempts: Number(row.attempts),
    token: row.token,
    leaseExpiresAt: new Date(Number(row.leaseExpiresAt)),
    params: plan.params,
    planAttributes: plan.planAttributes,
    planAgent: plan.agent,
    rootPlanId: plan.root,
    label: row.label === null ? null : decodeText(row.label),
  });
  if (row.dependents && plan.revision !== undefined) {
    const planState: PlanState = { id: row.planId, status: plan.status as PlanStatus, mode: plan.mode, attributes: plan.planAttributes };
    if (plan.root) planState.root = plan.root;
    claimed.basis = basisOf(row, claimed.attributes, planState, plan.revision, row.dependents);
  }
  return claimed;
}

/** A claim's values; the optional ones may be missing or null (a column read back). */
export type ClaimValues = Omit<ClaimedNode, 'label' | 'planAgent' | 'rootPlanId' | 'basis'> & {
  label?: string | null | undefined;
  planAgent?: string | null | undefined;
  rootPlanId?: string | null | undefined;
};

/**
 * A claim made of its values, the optional ones set only where there is one: one rule for a claim read
 * back from its rows (toClaimed) and one made from the values a write has just written (a node handed
 * over with its new child, an agent node being handed over).
 */
export function claimOf(values: ClaimValues): ClaimedNode {
  const { label, planAgent, rootPlanId, ...claim } = values;
  const out: ClaimedNode = claim;
  if (planAgent) out.planAgent = planAgent;
  if (rootPlanId) out.rootPlanId = rootPlanId;
  if (label !== undefined && label !== null) out.label = label;
  return out;
}

/** The claimed node's basis; its attributes are the claim's own (parsed once). */
function basisOf(row: ClaimRow, attributes: Attributes, plan: PlanState, revision: number, dependents: NonNullable<ClaimRow['dependents']>): ClaimBasis {
  const node: NodeState = {
    id: row.nodeId,
    type: row.type as NodeType,
    status: 'running',
    attempts: Number(row.attempts),
    waiting: Number(row.waiting),
    taken: Number(row.taken),
    attributes,
  };
  return {
    plan,
    revision,
    rowId: Number(row.rowId),
    node,
    dependents: dependents.map((d) => {
      const edge: OutEdge = d.when === null ? { to: d.to } : { to: d.to, when: decodeText(d.when) };
      const state: NodeState = {
        id: d.to,
        type: d.type as NodeType,
        status: d.status as NodeStatus,
        attempts: Number(d.attempts),
        waiting: Number(d.waiting),
        taken: Number(d.taken),
      };
      return { rowId: Number(d.rowId), edge, node: state };
    }),
  };
}

import type { PlanStatus } from '../../model/types.js';
import { chunk, marks, NO_SQL, type Queryable, type Statement } from './executor.js';
import { reservedNodeIds } from './plans.js';

/**
 * The plan stack in SQL: a child plan names its parent node and its tree's root (migration 0009).
 * Lock order is root → leaf: every write that touches a child plan, or more than one plan of a
 * tree, first takes its tree's lock (PostgreSQL: a transaction-scoped advisory lock keyed on the
 * root's id), so a cascade from the root and a child's end that finishes its parent node never
 * wait on each other in a circle. SQLite's writers take turns already.
 */
export async function lockTrees(q: Queryable, planIds: readonly string[]): Promise<void> {
  if (q.dialect !== 'postgres' || planIds.length === 0) return;
  const unique = [...new Set(planIds)];
  const rows = await q.all<{ root: string }>(
    `SELECT DISTINCT COALESCE(root_plan_id, id) AS "root" FROM plans WHERE id IN (${marks(unique.length)}) AND (root_plan_id IS NOT NULL OR EXISTS (SELECT 1 FROM plans c WHERE c.root_plan_id = plans.id))`,
    unique,
  );
  await lockRoots(
    q,
    rows.map((r) => r.root),
  );
}

/** The tree locks of these roots, in order (PostgreSQL; a no-op on SQLite). */
export async function lockRoots(q: Queryable, roots: readonly string[]): Promise<void> {
  for (const root of [...new Set(roots)].sort()) await lockRoot(q, root);
}

/** The tree lock of this root (PostgreSQL; a no-op on SQLite). */
export async function lockRoot(q: Queryable, root: string): Promise<void> {
  if (q.dialect === 'postgres') await q.all(`SELECT ${TREE_LOCK} AS "locked"`, [treeKey(root)]);
}

/**
 * A condition that takes the root's tree lock before the statement it is in reads any row (PostgreSQL:
 * an uncorrelated subquery in WHERE is a one-time filter, checked before the scan below it, and so
 * before its rows are locked); always true. Nothing on SQLite. Rows read under it are locked rows
 * only (FOR UPDATE sees their newest version): the statement's snapshot predates the lock.
 */
export function withTreeLock(q: Queryable, root: string): Statement {
  return q.dialect === 'postgres' ? { sql: ` AND ${TREE_LOCK} IS NOT NULL`, params: [treeKey(root)] } : NO_SQL;
}

const TREE_LOCK = `(SELECT pg_advisory_xact_lock(hashtextextended(?, 7)))`;
const treeKey = (root: string) => `dotplan tree ${root}`;

/** A plan's place in its tree. */
export interface TreePlace {
  id: string;
  title: string;
  status: PlanStatus;
  root: string | null;
  depth: number;
  agentCode: string | null;
  instance: string | null;
  parentPlanId: string | null;
  parentNodeId: string | null;
  /** Paused because an ancestor was (resume un-pauses only these). */
  cascadePaused: boolean;
  /** Tokens the plan's own model calls spent. */
  tokensUsed: number;
}

const PLACE =
  `id, title, status, root_plan_id AS "root", depth, agent_code AS "agentCode", instance, parent_plan_id AS "parentPlanId", ` +
  `parent_node_id AS "parentNodeId", cascade_paused AS "cascadePaused", tokens_used AS "tokensUsed"`;

function place(row: TreePlace): TreePlace {
  return { ...row, depth: Number(row.depth), cascadePaused: Number(row.cascadePaused) === 1, tokensUsed: Number(row.tokensUsed ?? 0) };
}

export async function placeOf(q: Queryable, planId: string): Promise<TreePlace | undefined> {
  const [row] = await q.all<TreePlace>(`SELECT ${PLACE} FROM plans WHERE id = ?`, [planId]);
  return row ? place(row) : undefined;
}

/** The child plans running as an agent instance (one per tree that has it), in the order they were made. */
export async function placesOfInstance(q: Queryable, instance: string): Promise<TreePlace[]> {
  const rows = await q.all<TreePlace>(`SELECT ${PLACE} FROM plans WHERE instance = ? ORDER BY id`, [instance]);
  return rows.map(place);
}

/**
 * The plans and every plan above them (their ancestors up to each root), in no order: one read per
 * 500 plans, whatever the depth — a recursive walk up the parent links in SQL (a chain is then made
 * of them by tree/path-from-root.ts's chainIn), where a chain used to take one read per level.
 */
export async function placesAbove(q: Queryable, planIds: readonly string[]): Promise<TreePlace[]> {
  const byId = new Map<string, TreePlace>();
  for (const part of chunk([...new Set(planIds)])) {
    const rows = await q.all<TreePlace>(
      `WITH RECURSIVE up(id) AS (SELECT id FROM plans WHERE id IN (${marks(part.length)}) ` +
        `UNION SELECT p.parent_plan_id FROM plans p JOIN up ON p.id = up.id WHERE p.parent_plan_id IS NOT NULL) ` +
        `SELECT ${PLACE} FROM plans WHERE id IN (SELECT id FROM up)`,
      [...part],
    );
    for (const row of rows) byId.set(row.id, place(row));
  }
  return [...byId.values()];
}

/** Every plan of the root's tree below it, root → leaf (by depth, then creation). */
export async function descendants(q: Queryable, root: string): Promise<TreePlace[]> {
  const rows = await q.all<TreePlace>(`SELECT ${PLACE} FROM plans WHERE root_plan_id = ? ORDER BY depth, id`, [root]);
  return rows.map(place);
}

/** What starting a child needs of its tree and its agent node (childSlot, or read ahead with a finish: tree/read-ahead.ts). */
export interface ChildSlot {
  /** The agent node's lease token as read (the caller checks it is still its own). */
  leaseToken: string | null;
  depth: number;
  made: number;
  instance: string;
  ids: number[];
  /** Writes the root's counts back, with the child. */
  counted: Statement;
}

/** The counts and row ids a slot is made of, as read: the node's plan's depth, the root's counts, the reserved ids' expression value. */
export interface SlotRead {
  depth: number | string;
  made: number | string;
  instances: string | null;
  ids: unknown;
}

/**
 * What starting a child of the leased agent node (row `rowId`) needs, in one read that locks the node:
 * its lease token (the caller checks it is still its own), its plan's depth, the child plans made in the
 * root's tree so far and the next instance id of the agent in it — `<agentCode>_<NNN>`, numbered per
 * root from 001 — both kept on the root's row (migration 0012; `counted` writes them back with the
 * child); and `nodes` row ids reserved for the child's nodes (reservedNodeIds).
 */
export async function childSlot(q: Queryable, rowId: number, root: string, agentCode: string, nodes: number): Promise<ChildSlot | undefined> {
  const reserve = reservedNodeIds.sql(q.dialect, nodes);
  const [row] = await q.all<SlotRead & { leaseToken: string | null }>(
    `SELECT n.lease_token AS "leaseToken", p.depth, r.children_made AS "made", r.instances_made AS "instances", ${reserve.sql} AS "ids" ` +
      `FROM nodes n JOIN plans p ON p.id = n.plan_id JOIN plans r ON r.id = ? WHERE n.id = ? AND n.status = 'running'${q.dialect === 'postgres' ? ' FOR UPDATE OF n' : ''}`,
    [...reserve.params, root, rowId],
  );
  return row && slotOf(row, row.leaseToken, root, agentCode, nodes);
}

/** A slot from what was read: the next instance of the agent, the first `nodes` of the reserved ids, the counts to write back. */
export function slotOf(row: SlotRead, leaseToken: string | null, root: string, agentCode: string, nodes: number): ChildSlot {
  const instances = parseCounts(row.instances);
  const number = (instances[agentCode] ?? 0) + 1;
  const made = Number(row.made);
  return {
    leaseToken,
    depth: Number(row.depth),
    made,
    instance: `${agentCode}_${String(number).padStart(3, '0')}`,
    ids: reservedNodeIds.ids(row.ids, nodes).slice(0, nodes),
    counted: {
      sql: `UPDATE plans SET children_made = ?, instances_made = ? WHERE id = ?`,
      params: [made + 1, JSON.stringify({ ...instances, [agentCode]: number }), root],
    },
  };
}

/** The root's instances_made: agent code → the last instance number given. */
function parseCounts(text: string | null): Record<string, number> {
  const parsed: unknown = text === null ? {} : JSON.parse(text);
  const out: Record<string, number> = {};
  if (parsed && typeof parsed === 'object') for (const [code, n] of Object.entries(parsed)) if (typeof n === 'number') out[code] = n;
  return out;
}

/** The tree's token spend so far (its root's and every child's). */
export async function treeTokens(q: Queryable, root: string): Promise<number> {
  const [row] = await q.all<{ n: number | string | null }>(`SELECT SUM(tokens_used) AS "n" FROM plans WHERE id = ? OR root_plan_id = ?`, [root, root]);
  return Number(row?.n ?? 0);
}

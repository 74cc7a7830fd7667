import type { NodeType } from '../../model/types.js';
import type { ClaimedNode, ClaimOptions } from '../types.js';
import { marks, type Queryable } from './executor.js';
import { insertEvents } from './context.js';
import { parseJsonObject } from '../rows.js';

/**
 * Claiming ready work, atomically, with a lease from the database clock. A node is claimable when
 * it is `ready`, due (`run_after <= NOW`) and its plan is `running`; the scan walks the
 * (status, run_after, id) index, so an idle poll costs the same with 10 plans or 10,000.
 * PostgreSQL: one statement — `FOR UPDATE SKIP LOCKED` in a CTE, UPDATE … RETURNING, the events
 * inserted by a data-modifying CTE. SQLite: one `UPDATE … RETURNING` inside BEGIN IMMEDIATE.
 * Lease tokens are `<row id>.<random>`, so finishing finds the row by primary key.
 */
export interface ClaimRow {
  id: number;
  planId: string;
  nodeId: string;
  type: string;
  label: string | null;
  attributes: string;
  attempts: number;
  token: string;
  leaseExpiresAt: number;
}

/** The plan check is a scalar subquery, not a join, so that the planner walks the index in order whatever its statistics say. */
const DUE = `n.status = 'ready' AND n.run_after <= NOW AND (SELECT p.status FROM plans p WHERE p.id = n.plan_id) = 'running'`;
export const CLAIM_RETURNING = `nodes.id, nodes.plan_id AS "planId", nodes.node_id AS "nodeId", nodes.type, nodes.label, nodes.attributes, nodes.attempts, nodes.lease_token AS "token", nodes.lease_expires_at AS "leaseExpiresAt"`;

/**
 * How many dependents a claimed node has, counted up to 2: with any, finishing it needs
 * propagation (no batch fast path); with exactly one, the chain fast path may fit.
 */
export const DEPENDENTS = `(SELECT count(*) FROM (SELECT 1 FROM edges e WHERE e.plan_id = nodes.plan_id AND e.from_node = nodes.node_id LIMIT 2) x) AS "dependents"`;

const PG_CLAIM =
  `WITH c AS (SELECT n.id FROM nodes n WHERE ${DUE} ORDER BY n.run_after, n.id LIMIT ? FOR UPDATE OF n SKIP LOCKED), ` +
  `u AS (UPDATE nodes SET status = 'running', lease_owner = ?, lease_token = nodes.id || '.' || replace(gen_random_uuid()::text, '-', ''), lease_expires_at = NOW + ?, ` +
  `attempts = attempts + 1, started_at = NOW, updated_at = NOW FROM c WHERE nodes.id = c.id RETURNING ${CLAIM_RETURNING}, ${DEPENDENTS}), ` +
  `e AS (INSERT INTO events (plan_id, node_id, driver, from_status, to_status, reason, at) SELECT "planId", "nodeId", 'engine', 'ready', 'running', ?, NOW FROM u) ` +
  `SELECT u.*, p.params, p.attributes AS "planAttributes" FROM u JOIN plans p ON p.id = u."planId" ORDER BY u.id`;

const SQLITE_CLAIM =
  `UPDATE nodes SET status = 'running', lease_owner = ?, lease_token = id || '.' || lower(hex(randomblob(16))), lease_expires_at = NOW + ?, ` +
  `attempts = attempts + 1, started_at = NOW, updated_at = NOW ` +
  `WHERE id IN (SELECT n.id FROM nodes n WHERE ${DUE} ORDER BY n.run_after, n.id LIMIT ?) RETURNING ${CLAIM_RETURNING}`;

/**
 * PostgreSQL: call outside a transaction (the statement is its own). The tokens of claimed nodes
 * that have dependents are added to `withDependents` with their count, up to 2 (finishAttempts
 * picks its path by it).
 */
export async function claimPostgres(q: Queryable, options: ClaimOptions, withDependents?: Map<string, number>): Promise<ClaimedNode[]> {
  const rows = await q.all<ClaimRow & { params: string; planAttributes: string; dependents: number }>(PG_CLAIM, [options.limit, options.owner, options.leaseMs, `claimed by ${options.owner}`]);
  if (withDependents) for (const row of rows) if (row.dependents > 0) withDependents.set(row.token, row.dependents);
  return toClaimed(rows, new Map(rows.map((r) => [r.planId, { params: r.params, attributes: r.planAttributes }])));
}

/** SQLite: call inside a write transaction. */
export async function claimSqlite(q: Queryable, options: ClaimOptions): Promise<ClaimedNode[]> {
  const rows = await q.all<ClaimRow>(SQLITE_CLAIM, [options.owner, options.leaseMs, options.limit]);
  if (rows.length === 0) return [];
  rows.sort((a, b) => a.id - b.id);
  await insertEvents(q, rows.map((r) => ({ planId: r.planId, nodeId: r.nodeId, driver: 'engine' as const, from: 'ready', to: 'running', reason: `claimed by ${options.owner}` })));
  const planIds = [...new Set(rows.map((r) => r.planId))];
  const plans = await q.all<{ id: string; params: string; attributes: string }>(`SELECT id, params, attributes FROM plans WHERE id IN (${marks(planIds.length)})`, planIds);
  return toClaimed(rows, new Map(plans.map((p) => [p.id, p])));
}

export function toClaimed(rows: readonly ClaimRow[], plans: Map<string, { params: string; attributes: string }>): ClaimedNode[] {
  const parsed = new Map<string, { params: Record<string, string>; attributes: Record<string, string> }>();
  return rows.map((row) => {
    let plan = parsed.get(row.planId);
    if (!plan) {
      const text = plans.get(row.planId);
      plan = { params: parseJsonObject(text?.params ?? '{}'), attributes: parseJsonObject(text?.attributes ?? '{}') };
      parsed.set(row.planId, plan);
    }
    const claimed: ClaimedNode = {
      planId: row.planId,
      nodeId: row.nodeId,
      type: row.type as NodeType,
      attributes: parseJsonObject(row.attributes),
      attempts: Number(row.attempts),
      token: row.token,
      leaseExpiresAt: new Date(Number(row.leaseExpiresAt)),
      params: { ...plan.params },
      planAttributes: { ...plan.attributes },
    };
    if (row.label !== null) claimed.label = row.label;
    return claimed;
  });
}

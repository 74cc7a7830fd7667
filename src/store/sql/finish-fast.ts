import { nodeColumns, type NodeRow } from '../rows.js';
import type { FinishRequest } from '../types.js';
import { marks, type Queryable } from './executor.js';
import { tokenRowId } from './finish.js';

/**
 * PostgreSQL's fast path for finishing attempts: one statement for a whole batch — lock the rows
 * whose token still holds, update them, insert their events — for the outcomes that need no
 * readiness propagation: `done` for a node nothing depends on, a retry (`failed` with retryAt)
 * and `released`. Everything else (and any row this statement did not take, e.g. a stale token)
 * goes through the general transaction in finish.ts. Round trips, not SQL, are what cost here.
 */
export interface FastResult {
  /** Index in the request list. */
  index: number;
  row: NodeRow;
  /** The node went back to ready (retry, release): wake workers. */
  ready: boolean;
}

interface Entry {
  index: number;
  values: unknown[];
}

export function fastEligible(request: FinishRequest): boolean {
  const { outcome } = request;
  return outcome.status === 'done' || outcome.status === 'released' || (outcome.status === 'failed' && outcome.retryAt !== undefined);
}

/** `skip`: requests known not to qualify (a `done` node with dependents), spared the attempt. */
export async function finishFastPostgres(q: Queryable, requests: readonly FinishRequest[], skip: (request: FinishRequest) => boolean = () => false): Promise<FastResult[]> {
  const entries: Entry[] = [];
  requests.forEach((request, index) => {
    const id = tokenRowId(request.token);
    if (id === undefined || !fastEligible(request) || skip(request)) return;
    const o = request.outcome;
    if (o.status === 'done') entries.push({ index, values: [id, request.token, 'done', o.output ?? null, null, null, 0, null] });
    else if (o.status === 'released') entries.push({ index, values: [id, request.token, 'ready', null, null, 0, -1, 'released by its worker (shutting down); the attempt does not count'] });
    else if (o.status === 'failed' && o.retryAt) {
      entries.push({ index, values: [id, request.token, 'ready', null, o.error, o.retryAt.getTime(), 0, `attempt failed, retry at ${o.retryAt.toISOString()}: ${o.error}`] });
    }
  });
  if (entries.length === 0) return [];
  const values = entries.map(() => '(CAST(? AS INTEGER), ?, ?, ?, ?, CAST(? AS BIGINT), CAST(? AS INTEGER), ?)').join(', ');
  const rows = await q.all<NodeRow & { vid: number }>(
    `WITH v (vid, vtoken, vto, voutput, verror, vrun_after, vdelta, vreason) AS (VALUES ${values}), ` +
      // By primary key (the token starts with the row id) so that no statistics can talk the planner out of it.
      `n AS (SELECT nodes.id FROM nodes WHERE nodes.id IN (${marks(entries.length)}) AND nodes.lease_token IN (${marks(entries.length)}) AND nodes.status = 'running' ` +
      `AND ((SELECT v.vto FROM v WHERE v.vid = nodes.id) <> 'done' OR NOT EXISTS (SELECT 1 FROM edges e WHERE e.plan_id = nodes.plan_id AND e.from_node = nodes.node_id)) ` +
      `ORDER BY nodes.id FOR UPDATE OF nodes), ` +
      `u AS (UPDATE nodes SET status = v.vto, ` +
      `output = CASE WHEN v.vto = 'done' THEN v.voutput ELSE nodes.output END, ` +
      `error = CASE WHEN v.vto = 'done' THEN NULL ELSE COALESCE(v.verror, nodes.error) END, ` +
      `run_after = COALESCE(v.vrun_after, nodes.run_after), attempts = nodes.attempts + v.vdelta, ` +
      `finished_at = CASE WHEN v.vto = 'done' THEN NOW ELSE nodes.finished_at END, ` +
      `lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL, updated_at = NOW ` +
      `FROM v WHERE nodes.id = v.vid AND nodes.id IN (SELECT id FROM n) RETURNING ${nodeColumns('nodes.')}, v.vid AS "vid", v.vreason AS "reason"), ` +
      `e AS (INSERT INTO events (plan_id, node_id, driver, from_status, to_status, reason, at) SELECT "planId", "nodeId", 'engine', 'running', "status", "reason", NOW FROM u) ` +
      `SELECT * FROM u`,
    [...entries.flatMap((e) => e.values), ...entries.map((e) => e.values[0]), ...entries.map((e) => e.values[1])],
  );
  const byId = new Map(rows.map((r) => [Number(r.vid), r]));
  const out: FastResult[] = [];
  for (const entry of entries) {
    const row = byId.get(entry.values[0] as number);
    if (row) out.push({ index: entry.index, row, ready: row.status === 'ready' });
  }
  return out;
}

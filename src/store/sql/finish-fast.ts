import { nodeColumns, type NodeRow } from '../rows.js';
import type { ClaimedNode, FinishRequest } from '../types.js';
import { assertNodeMove } from '../../state/node-moves.js';
import { CLAIM_RETURNING, DEPENDENTS, toClaimed, type ClaimRow } from './claim.js';
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

/**
 * PostgreSQL's chain step in one statement (autocommit): a `done` for a node with exactly one
 * dependent, whose only upstream node it is, by an edge without `when` — once the node is done,
 * nothing else can change that dependent's readiness. The token-checked update (taken only when
 * the edges have that shape), the dependent locked, and when it is still `pending` in a running
 * workflow plan: moved to `ready` and, with a slot reserved for the hand-off (and the node due),
 * on to `running` with a fresh lease, as a claim would; the events in order. No row back: the
 * token no longer holds or the shape differs, nothing was written, and the general path decides.
 */
const FINISH_CHAIN =
  `WITH f AS (UPDATE nodes SET status = 'done', output = ?, error = NULL, finished_at = NOW, lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL, updated_at = NOW ` +
  `WHERE id = ? AND lease_token = ? AND status = 'running' ` +
  `AND (SELECT count(*) FROM (SELECT 1 FROM edges e WHERE e.plan_id = nodes.plan_id AND e.from_node = nodes.node_id LIMIT 2) x) = 1 ` +
  `AND EXISTS (SELECT 1 FROM edges e WHERE e.plan_id = nodes.plan_id AND e.from_node = nodes.node_id AND (e.when_match IS NULL OR e.when_match = '') ` +
  `AND NOT EXISTS (SELECT 1 FROM edges o WHERE o.plan_id = e.plan_id AND o.to_node = e.to_node AND o.from_node <> e.from_node)) ` +
  `RETURNING ${nodeColumns()}), ` +
  `p AS (SELECT pl.status, pl.mode, pl.params, pl.attributes FROM plans pl WHERE pl.id = (SELECT "planId" FROM f)), ` +
  `d AS (SELECT n.id, n.status, n.run_after <= NOW AS due FROM nodes n WHERE n.plan_id = (SELECT "planId" FROM f) ` +
  `AND n.node_id = (SELECT to_node FROM edges WHERE plan_id = (SELECT "planId" FROM f) AND from_node = (SELECT "nodeId" FROM f)) FOR UPDATE OF n), ` +
  `r AS (UPDATE nodes SET status = CASE WHEN x.claim THEN 'running' ELSE 'ready' END, ` +
  `lease_owner = CASE WHEN x.claim THEN CAST(? AS TEXT) END, ` +
  `lease_token = CASE WHEN x.claim THEN nodes.id || '.' || replace(gen_random_uuid()::text, '-', '') END, ` +
  `lease_expires_at = CASE WHEN x.claim THEN NOW + CAST(? AS BIGINT) END, ` +
  `attempts = nodes.attempts + CASE WHEN x.claim THEN 1 ELSE 0 END, ` +
  `started_at = CASE WHEN x.claim THEN NOW ELSE nodes.started_at END, updated_at = NOW ` +
  `FROM (SELECT d.id, (CAST(? AS BOOLEAN) AND d.due) AS claim FROM d WHERE d.status = 'pending' AND (SELECT status FROM p) = 'running' AND (SELECT mode FROM p) = 'workflow') x ` +
  `WHERE nodes.id = x.id RETURNING ${CLAIM_RETURNING}, x.claim AS "claimed", ${DEPENDENTS}), ` +
  `e AS (INSERT INTO events (plan_id, node_id, driver, from_status, to_status, reason, at) SELECT plan_id, node_id, 'engine', fs, ts, reason, NOW FROM (` +
  `SELECT 0 AS k, "planId" AS plan_id, "nodeId" AS node_id, 'running' AS fs, 'done' AS ts, NULL::text AS reason FROM f UNION ALL ` +
  `SELECT 1, "planId", "nodeId", 'pending', 'ready', 'its dependencies are met' FROM r UNION ALL ` +
  `SELECT 2, "planId", "nodeId", 'ready', 'running', CAST(? AS TEXT) FROM r WHERE r.claimed) y ORDER BY k) ` +
  `SELECT f.*, (SELECT status FROM p) AS "planStatus", (SELECT mode FROM p) AS "planMode", (SELECT params FROM p) AS "planParams", ` +
  `(SELECT attributes FROM p) AS "planAttributes", (SELECT row_to_json(r) FROM r) AS "next" FROM f`;

export interface ChainResult {
  row: NodeRow;
  /** The plan is a running workflow plan (its finisher settles it when nothing moved). */
  planRunning: boolean;
  /** The dependent moved: to `running` (claimed, in `claims`) or only to `ready`. */
  next?: 'ready' | 'running';
  claims: ClaimedNode[];
  /** Its token and dependents (up to 2) when claimed, for the next finish's choice of path. */
  dependents: number;
}

/** `claimFor`: the hand-off owner and lease when a slot is reserved, else undefined (the dependent only becomes ready). */
export async function finishChainPostgres(
  q: Queryable,
  request: FinishRequest,
  claimFor: { owner: string; leaseMs: number } | undefined,
): Promise<ChainResult | undefined> {
  const id = tokenRowId(request.token);
  if (id === undefined || request.outcome.status !== 'done') return undefined;
  type Next = ClaimRow & { claimed: boolean; dependents: number };
  type Row = NodeRow & { planStatus: string | null; planMode: string | null; planParams: string | null; planAttributes: string | null; next: Next | null };
  const owner = claimFor?.owner ?? '';
  const [row] = await q.all<Row>(FINISH_CHAIN, [request.outcome.output ?? null, id, request.token, owner, claimFor?.leaseMs ?? 0, claimFor !== undefined, `claimed by ${owner}`]);
  if (!row) return undefined;
  assertNodeMove({ node: row.nodeId, from: 'running', to: 'done', driver: 'engine' });
  const planRunning = row.planStatus === 'running' && row.planMode === 'workflow';
  const next = row.next;
  if (!next) return { row, planRunning, claims: [], dependents: 0 };
  assertNodeMove({ node: next.nodeId, from: 'pending', to: 'ready', driver: 'engine' });
  if (!next.claimed) return { row, planRunning, next: 'ready', claims: [], dependents: 0 };
  assertNodeMove({ node: next.nodeId, from: 'ready', to: 'running', driver: 'engine' });
  const claims = toClaimed([next], new Map([[next.planId, { params: row.planParams ?? '{}', attributes: row.planAttributes ?? '{}' }]]));
  return { row, planRunning, next: 'running', claims, dependents: Number(next.dependents) };
}

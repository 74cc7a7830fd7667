import type { ClaimedNode, HandOffOptions } from '../types.js';
import { BASIS_DEPENDENTS, CLAIMED_COLUMNS, claimReason, DUE, toClaimed, type ClaimRow, type PlanColumns } from './claim.js';
import type { Queryable } from './executor.js';
import type { Persisted } from './persist-sqlite.js';
import type { WriteSet } from './persist-rows.js';
import { pgTouch } from './touch.js';

/**
 * Writes a step's rows on PostgreSQL in ONE statement, all or nothing: the rows are locked in id
 * order and every value the step relied on is checked (`l`, `pc`, `ok`); only when all hold are the node
 * and plan rows updated and the events inserted (and the plans' `updated_at`, touch.ts), the nodes
 * the step hands to the worker given their lease, up to `limit` more ready nodes claimed for it (SKIP LOCKED), and workers elsewhere notified.
 * Run inside a transaction (after locking reads) or on its own (from what a claim saw): either way
 * it writes the same rows. Returns undefined when a check failed: nothing was written.
 */
const NODE_FIELDS =
  `id int, plan_id text, node_id text, exp_status text, exp_waiting int, exp_taken int, exp_token text, status text, waiting int, taken int, ` +
  `set_output boolean, output text, set_answer boolean, answer text, set_error boolean, error text, attempts int, run_after_delay bigint, ` +
  `set_skipped_by boolean, skipped_by text, attributes text, claim boolean, clear_lease boolean, finished boolean, waits boolean`;
const EVENT_FIELDS = `ord int, plan_id text, node_id text, kind text, driver text, actor text, from_status text, to_status text, reason text, detail text, plan_move boolean`;

const PERSIST =
  `WITH v AS (SELECT * FROM json_to_recordset(CAST(? AS json)) AS v(${NODE_FIELDS})), ` +
  `l AS (SELECT n.id FROM nodes n JOIN v ON v.id = n.id WHERE n.id = ANY(CAST(? AS int[])) AND n.status = v.exp_status AND n.waiting = v.exp_waiting AND n.taken = v.exp_taken ` +
  `AND (v.exp_token IS NULL OR n.lease_token = v.exp_token) ORDER BY n.id FOR UPDATE OF n), ` +
  // The plans as the steps saw them: their status and, for a step computed from a claim's basis, their revision. Key-share
  // locked, so that a revision or command committed while this statement waited is seen (rechecked on the newest row).
  `pl AS (SELECT p.id FROM json_to_recordset(CAST(? AS json)) AS x(plan_id text, status text, revision int) JOIN plans p ON p.id = x.plan_id AND p.status = x.status ` +
  `AND (x.revision IS NULL OR p.revision = x.revision) WHERE p.id = ANY(CAST(? AS text[])) FOR KEY SHARE OF p), pc AS (SELECT count(*) AS n FROM pl), ` +
  `ok AS (SELECT count(*) = (SELECT count(*) FROM v) AND (SELECT n FROM pc) = CAST(? AS int) AS ok FROM l), ` +
  `u AS (UPDATE nodes SET status = v.status, waiting = v.waiting, taken = v.taken, ` +
  `output = CASE WHEN v.set_output THEN v.output ELSE nodes.output END, answer = CASE WHEN v.set_answer THEN v.answer ELSE nodes.answer END, ` +
  `error = CASE WHEN v.set_error THEN v.error ELSE nodes.error END, attempts = COALESCE(v.attempts, nodes.attempts), ` +
  `run_after = CASE WHEN v.run_after_delay IS NULL THEN nodes.run_after WHEN v.run_after_delay = 0 THEN 0 ELSE NOW + v.run_after_delay END, ` +
  `skipped_by = CASE WHEN v.set_skipped_by THEN v.skipped_by ELSE nodes.skipped_by END, attributes = COALESCE(v.attributes, nodes.attributes), ` +
  `lease_owner = CASE WHEN v.claim THEN CAST(? AS text) WHEN v.clear_lease THEN NULL ELSE nodes.lease_owner END, ` +
  `lease_token = CASE WHEN v.claim THEN nodes.id || '.' || replace(gen_random_uuid()::text, '-', '') WHEN v.clear_lease THEN NULL ELSE nodes.lease_token END, ` +
  `lease_expires_at = CASE WHEN v.claim THEN NOW + CAST(? AS bigint) WHEN v.clear_lease THEN NULL ELSE nodes.lease_expires_at END, ` +
  `started_at = CASE WHEN v.claim THEN NOW ELSE nodes.started_at END, finished_at = CASE WHEN v.finished THEN NOW ELSE nodes.finished_at END, updated_at = NOW, ` +
  `waiting_since = CASE WHEN v.waits THEN NOW ELSE nodes.waiting_since END, remind_at = CASE WHEN v.waits THEN NULL ELSE nodes.remind_at END, ` +
  `timeout_at = CASE WHEN v.waits THEN NULL ELSE nodes.timeout_at END ` +
  `FROM v WHERE nodes.id = v.id AND nodes.id = ANY(CAST(? AS int[])) AND (SELECT ok FROM ok) ` +
  `RETURNING v.claim, ${CLAIMED_COLUMNS}, CASE WHEN v.claim THEN ${BASIS_DEPENDENTS} END AS "dependents"), ` +
  `pv AS (SELECT * FROM json_to_recordset(CAST(? AS json)) AS pv(plan_id text, from_status text, to_status text, set_error boolean, error text, waits boolean)), ` +
  `pu AS (UPDATE plans SET status = pv.to_status, error = CASE WHEN pv.set_error THEN pv.error ELSE plans.error END, updated_at = NOW, ` +
  `waiting_since = CASE WHEN pv.waits THEN NOW ELSE plans.waiting_since END, remind_at = CASE WHEN pv.waits THEN NULL ELSE plans.remind_at END, ` +
  `timeout_at = CASE WHEN pv.waits THEN NULL ELSE plans.timeout_at END ` +
  `FROM pv WHERE plans.id = pv.plan_id AND plans.id = ANY(CAST(? AS text[])) AND plans.status = pv.from_status AND (SELECT ok FROM ok) RETURNING plans.id), ` +
  `ev AS (SELECT * FROM json_to_recordset(CAST(? AS json)) AS ev(${EVENT_FIELDS})), ` +
  // The claim cannot see this statement's own writes: leave out the rows it writes and plans it moves away from running.
  `c AS (SELECT n.id FROM nodes n WHERE ${DUE} AND n.id NOT IN (SELECT id FROM v) AND n.plan_id NOT IN (SELECT plan_id FROM pv WHERE to_status <> 'running') AND (SELECT ok FROM ok) ` +
  `ORDER BY n.run_after, n.id LIMIT CAST(? AS int) FOR UPDATE OF n SKIP LOCKED), ` +
  `cu AS (UPDATE nodes SET status = 'running', lease_owner = CAST(? AS text), lease_token = nodes.id || '.' || replace(gen_random_uuid()::text, '-', ''), ` +
  `lease_expires_at = NOW + CAST(? AS bigint), attempts = nodes.attempts + 1, started_at = NOW, updated_at = NOW FROM c WHERE nodes.id = c.id ` +
  `RETURNING ${CLAIMED_COLUMNS}, ${BASIS_DEPENDENTS} AS "dependents"), ` +
  // The plans whose nodes or events this statement writes, unless it moves them (pu sets updated_at then).
  `${pgTouch(`SELECT "planId" FROM u UNION SELECT "planId" FROM cu UNION SELECT ev.plan_id FROM ev WHERE (SELECT ok FROM ok) EXCEPT SELECT plan_id FROM pv`)}, ` +
  `e AS (INSERT INTO events (plan_id, node_id, kind, driver, actor, from_status, to_status, reason, detail, at) ` +
  `SELECT plan_id, node_id, kind, driver, actor, from_status, to_status, reason, detail, NOW FROM (` +
  `SELECT ev.ord AS k, ev.plan_id, ev.node_id, ev.kind, ev.driver, ev.actor, ev.from_status, ev.to_status, ev.reason, ev.detail FROM ev ` +
  `WHERE (SELECT ok FROM ok) AND (NOT ev.plan_move OR ev.plan_id IN (SELECT id FROM pu)) UNION ALL ` +
  `SELECT 1000000000 + cu."rowId", cu."planId", cu."nodeId", 'status', 'engine', CAST(? AS text), 'ready', 'running', CAST(? AS text), NULL FROM cu) x ORDER BY k), ` +
  `nt AS (SELECT pg_notify(CAST(? AS text), p) FROM unnest(CAST(? AS text[])) AS p WHERE (SELECT ok FROM ok)) ` +
  `SELECT (SELECT ok FROM ok) AS "ok", ` +
  `(SELECT json_agg(x) FROM (SELECT u.*, pp.params, pp.attributes AS "planAttributes", pp.status AS "planStatus", pp.mode AS "planMode", pp.revision AS "planRevision", pp.root_plan_id AS "planRoot", pp.agent_code AS "planAgent" ` +
  `FROM u CROSS JOIN LATERAL (SELECT * FROM plans p WHERE p.id = u."planId") pp WHERE u.claim ORDER BY u."rowId") x) AS "handed", ` +
  `(SELECT json_agg(x) FROM (SELECT cu.*, pp.params, pp.attributes AS "planAttributes", pp.status AS "planStatus", pp.mode AS "planMode", pp.revision AS "planRevision", pp.root_plan_id AS "planRoot", pp.agent_code AS "planAgent" ` +
  `FROM cu CROSS JOIN LATERAL (SELECT * FROM plans p WHERE p.id = cu."planId") pp ORDER BY cu."rowId") x) AS "claimed", ` +
  `(SELECT json_agg(id) FROM pu) AS "plans", (SELECT count(*) FROM nt) AS "notified"`;

type Claimed = ClaimRow & PlanColumns;

export async function persistPostgres(
  q: Queryable,
  writes: WriteSet,
  claim: HandOffOptions,
  notify: { channel: string; payloads: string[] },
): Promise<Persisted | undefined> {
  const [row] = await q.all<{ ok: boolean; handed: Claimed[] | null; claimed: Claimed[] | null; plans: string[] | null }>(PERSIST, [
    JSON.stringify(writes.nodes),
    writes.nodes.map((n) => n.id),
    JSON.stringify(writes.expect),
    writes.expect.map((e) => e.plan_id),
    writes.expect.length,
    claim.owner,
    claim.leaseMs,
    writes.nodes.map((n) => n.id),
    JSON.stringify(writes.plans),
    writes.plans.map((p) => p.plan_id),
    JSON.stringify(writes.events),
    claim.claimOthers === false ? 0 : Math.max(0, claim.limit - writes.nodes.filter((n) => n.claim).length),
    claim.owner,
    claim.leaseMs,
    claim.owner,
    claimReason(claim.owner),
    notify.channel,
    notify.payloads,
  ]);
  if (!row?.ok) return undefined;
  // In the order the steps handed them over (as on SQLite), not the rows' order.
  const order = new Map(writes.nodes.map((n, i) => [n.id, i]));
  const handed: ClaimedNode[] = (row.handed ?? []).sort((a, b) => order.get(Number(a.rowId))! - order.get(Number(b.rowId))!).map((r) => toClaimed(r, r));
  const claimed: ClaimedNode[] = (row.claimed ?? []).map((r) => toClaimed(r, r));
  return { handed, claimed, planMoves: new Set(row.plans ?? []) };
}

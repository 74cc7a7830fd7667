import type { ClaimedNode, HandOffOptions } from '../types.js';
import { CLAIM_ROW, claimSqlite, withPlans, type ClaimRow } from './claim.js';
import { insertEventRows } from './events.js';
import { named, type Queryable } from './executor.js';
import { StaleStepError, type NodeWrite, type PlanWrite, type WriteSet } from './persist-rows.js';
import { TOUCH_SQLITE } from './touch.js';
import { groupBy } from '../../model/group-by.js';

/**
 * Writes a step's rows on SQLite, inside the caller's write transaction (BEGIN IMMEDIATE: no other
 * writer can interleave, so a failed guard means a bug, and throws), the plans' `updated_at` with
 * them (touch.ts). Then claims up to `claim.limit` more ready nodes for the same worker. Returns the nodes the steps handed to the worker and those
 * claimed after, and the plans whose move was written.
 */
const UPDATE_NODE =
  `UPDATE nodes SET status = :status, waiting = :waiting, taken = :taken, ` +
  `output = CASE WHEN :set_output THEN :output ELSE output END, answer = CASE WHEN :set_answer THEN :answer ELSE answer END, ` +
  `error = CASE WHEN :set_error THEN :error ELSE error END, attempts = COALESCE(:attempts, attempts), ` +
  `run_after = CASE WHEN :run_after_delay IS NULL THEN run_after WHEN :run_after_delay = 0 THEN 0 ELSE NOW + :run_after_delay END, ` +
  `skipped_by = CASE WHEN :set_skipped_by THEN :skipped_by ELSE skipped_by END, attributes = COALESCE(:attributes, attributes), ` +
  `lease_owner = CASE WHEN :claim THEN :owner WHEN :clear_lease THEN NULL ELSE lease_owner END, ` +
  `lease_token = CASE WHEN :claim THEN id || '.' || lower(hex(randomblob(16))) WHEN :clear_lease THEN NULL ELSE lease_token END, ` +
  `lease_expires_at = CASE WHEN :claim THEN NOW + :lease_ms WHEN :clear_lease THEN NULL ELSE lease_expires_at END, ` +
  `started_at = CASE WHEN :claim THEN NOW ELSE started_at END, finished_at = CASE WHEN :finished THEN NOW ELSE finished_at END, updated_at = NOW, ` +
  `waiting_since = CASE WHEN :waits THEN NOW ELSE waiting_since END, remind_at = CASE WHEN :waits THEN NULL ELSE remind_at END, ` +
  `timeout_at = CASE WHEN :waits THEN NULL ELSE timeout_at END ` +
  `WHERE id = :id AND status = :exp_status AND waiting = :exp_waiting AND taken = :exp_taken AND (:exp_token IS NULL OR lease_token = :exp_token) ` +
  `RETURNING ${CLAIM_ROW}`;

const UPDATE_PLAN =
  `UPDATE plans SET status = :to_status, error = CASE WHEN :set_error THEN :error ELSE error END, updated_at = NOW, ` +
  `waiting_since = CASE WHEN :waits THEN NOW ELSE waiting_since END, remind_at = CASE WHEN :waits THEN NULL ELSE remind_at END, ` +
  `timeout_at = CASE WHEN :waits THEN NULL ELSE timeout_at END WHERE id = :plan_id AND status = :from_status RETURNING id`;

export interface Persisted {
  handed: ClaimedNode[];
  claimed: ClaimedNode[];
  /** Plans whose move was written. */
  planMoves: Set<string>;
}

export async function persistSqlite(q: Queryable, writes: WriteSet, claim: HandOffOptions): Promise<Persisted> {
  const handedRows: ClaimRow[] = [];
  for (const node of writes.nodes) {
    const { sql, params } = named(UPDATE_NODE, (name) =>
      name === 'owner' ? claim.owner : name === 'lease_ms' ? claim.leaseMs : node[name as keyof NodeWrite],
    );
    const [row] = await q.all<ClaimRow>(sql, params);
    if (!row) throw new StaleStepError();
    if (node.claim) handedRows.push(row);
  }
  // The plans the steps were computed on: still in that status (a mismatch throws, and the transaction rolls back), and
  // touched — by their move where they move from that status (which then must apply), else by a touch of their own.
  const moves = groupBy(
    writes.plans,
    (plan) => plan.plan_id,
    (plan) => plan.from_status,
  );
  const mustMove = new Set<string>();
  for (const { plan_id, status, revision } of writes.expect) {
    const from = moves.get(plan_id);
    if (revision === null && from?.length === 1 && from[0] === status) {
      mustMove.add(plan_id);
      continue;
    }
    const [row] = await q.all<{ status: string; revision: number }>(TOUCH_SQLITE, [plan_id]);
    if (row?.status !== status || (revision !== null && Number(row.revision) !== revision)) throw new StaleStepError();
  }
  const planMoves = new Set<string>();
  for (const plan of writes.plans) {
    const { sql, params } = named(UPDATE_PLAN, (name) => plan[name as keyof PlanWrite]);
    if ((await q.all(sql, params)).length > 0) planMoves.add(plan.plan_id);
    else if (mustMove.has(plan.plan_id)) throw new StaleStepError();
  }
  await insertEventRows(
    q,
    writes.events.filter((e) => !e.plan_move || planMoves.has(e.plan_id)),
  );
  const handed = await withPlans(q, handedRows);
  const others = claim.claimOthers === false ? 0 : claim.limit - handed.length;
  const claimed = await claimSqlite(
    q,
    { ...claim, limit: others },
    writes.nodes.map((n) => n.id),
  );
  return { handed, claimed, planMoves };
}

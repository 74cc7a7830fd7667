import type { ClaimedNode, HandOffOptions } from '../types.js';
import { claimSqlite, withPlans, type ClaimRow } from './claim.js';
import { insertEventRows } from './events.js';
import type { Queryable } from './executor.js';
import { nodeUpdateSqlite, planUpdateSqlite } from './sqlite-updates.js';
import { StaleStepError, type WriteSet } from './persist-rows.js';
import type { KnownPlans } from './known-plans.js';
import { TOUCH_SQLITE } from './touch.js';
import { groupBy } from '../../model/group-by.js';

export interface Persisted {
  handed: ClaimedNode[];
  claimed: ClaimedNode[];
  /** Plans whose move was written. */
  planMoves: Set<string>;
}

/**
 * Writes a step's rows on SQLite, inside the caller's write transaction (BEGIN IMMEDIATE: no other
 * writer can interleave, so a failed guard means a bug, and throws), the plans' `updated_at` with
 * them (touch.ts). Each node row and each plan move is written by a statement that sets only what its
 * write changes (sqlite-updates.ts); the nodes the steps hand over take their plans' columns from
 * `known`, where the steps' caller read them in this transaction. Then claims up to `claim.limit` more
 * ready nodes for the same worker. Returns the nodes the steps handed to the worker and those claimed
 * after, and the plans whose move was written.
 */
export async function persistSqlite(q: Queryable, writes: WriteSet, claim: HandOffOptions, known?: KnownPlans): Promise<Persisted> {
  const handedRows: ClaimRow[] = [];
  for (const node of writes.nodes) {
    const { sql, params, returning } = nodeUpdateSqlite(node, claim);
    if (returning) {
      const [row] = await q.all<ClaimRow>(sql, params);
      if (!row) throw new StaleStepError();
      handedRows.push(row);
    } else if ((await q.run(sql, params)) === 0) throw new StaleStepError();
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
    const { sql, params } = planUpdateSqlite(plan);
    if ((await q.run(sql, params)) > 0) planMoves.add(plan.plan_id);
    else if (mustMove.has(plan.plan_id)) throw new StaleStepError();
  }
  await insertEventRows(
    q,
    writes.events.filter((e) => !e.plan_move || planMoves.has(e.plan_id)),
  );
  const handed = await withPlans(q, handedRows, { known });
  const others = claim.claimOthers === false ? 0 : claim.limit - handed.length;
  const claimed = await claimSqlite(
    q,
    { ...claim, limit: others },
    writes.nodes.map((n) => n.id),
  );
  return { handed, claimed, planMoves };
}

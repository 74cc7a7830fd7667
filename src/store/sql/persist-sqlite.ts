import type { ClaimedNode, HandOffOptions } from '../types.js';
import { claimSqlite, withDependents, withPlans, type ClaimRow } from './claim.js';
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
 * writer interleaves), the plans' `updated_at` with them (touch.ts). Each node row and each plan move is
 * written by a statement that sets only what its write changes and checks what the step expects of the
 * row (sqlite-updates.ts): a step computed from a claim's basis that no longer holds throws
 * StaleStepError, and the caller rolls back. The nodes the steps hand over take their plans' columns from
 * `known` (read by the steps' caller in this transaction, or a claim's basis, checked here), with the
 * revision the plans' touch reads, and carry their dependents as they stand (their basis). Then claims up
 * to `claim.limit` more ready nodes for the same worker. Returns the nodes the steps handed to the worker
 * and those claimed after, and the plans whose move was written.
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
  const revisions = new Map<string, number>();
  for (const { plan_id, status, revision } of writes.expect) {
    const from = moves.get(plan_id);
    if (revision === null && from?.length === 1 && from[0] === status) {
      mustMove.add(plan_id);
      continue;
    }
    const [row] = await q.all<{ status: string; revision: number }>(TOUCH_SQLITE, [plan_id]);
    if (row?.status !== status || (revision !== null && Number(row.revision) !== revision)) throw new StaleStepError();
    revisions.set(plan_id, Number(row.revision));
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
  await withDependents(q, handedRows);
  const handed = await withPlans(q, handedRows, { known: known && withRevisions(known, revisions) });
  const others = claim.claimOthers === false ? 0 : claim.limit - handed.length;
  const claimed = await claimSqlite(
    q,
    { ...claim, limit: others },
    writes.nodes.map((n) => n.id),
  );
  return { handed, claimed, planMoves };
}

/** The known plans, each with its revision as this write read it where the caller did not know it. */
function withRevisions(known: KnownPlans, revisions: ReadonlyMap<string, number>): KnownPlans {
  return new Map(
    [...known].map(([id, plan]) => {
      const revision = revisions.get(id);
      return [id, plan.revision !== undefined || revision === undefined ? plan : { ...plan, revision }];
    }),
  );
}

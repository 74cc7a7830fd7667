import { HELD_BY_WORKER } from './waits.js';
import { forUpdate, marks, chunk, type Queryable } from './executor.js';
import { tokenRowId } from './load.js';

/**
 * Leases: a running node's claim by one worker, until `lease_expires_at` (database clock). Renewal
 * extends the leases a worker still holds; expiry finds the nodes of a worker that stopped renewing
 * (crashed, hung, cut off) for the engine to take over.
 */
export async function renewLeases(q: Queryable, owner: string, tokens: readonly string[], leaseMs: number): Promise<string[]> {
  const renewed: string[] = [];
  for (const part of chunk(tokens.filter((t) => tokenRowId(t) !== undefined))) {
    const rows = await q.all<{ token: string }>(
      `UPDATE nodes SET lease_expires_at = NOW + ? WHERE id IN (${marks(part.length)}) AND status = 'running' AND lease_owner = ? ` +
        `AND lease_token IN (${marks(part.length)}) RETURNING lease_token AS "token"`,
      [leaseMs, ...part.map(tokenRowId), owner, ...part],
    );
    for (const row of rows) renewed.push(row.token);
  }
  return renewed;
}

/** The plans of up to `limit` running nodes whose lease has run out (not locked: to take their trees' locks first). */
export async function expiredPlans(q: Queryable, limit: number): Promise<string[]> {
  const rows = await q.all<{ planId: string }>(
    `SELECT DISTINCT n.plan_id AS "planId" FROM (SELECT plan_id FROM nodes n WHERE ${HELD_BY_WORKER} AND n.lease_expires_at < NOW LIMIT ?) n`,
    [limit],
  );
  return rows.map((r) => r.planId);
}

/** Up to `limit` running nodes whose lease has run out, locked (others skip them), by plan. */
export async function lockExpired(q: Queryable, limit: number): Promise<Array<{ planId: string; nodeId: string; owner: string | null }>> {
  return q.all(
    `SELECT n.plan_id AS "planId", n.node_id AS "nodeId", n.lease_owner AS "owner" FROM nodes n ` +
      `WHERE ${HELD_BY_WORKER} AND n.lease_expires_at < NOW ORDER BY n.run_after, n.id LIMIT ?${forUpdate(q, 'OF n SKIP LOCKED')}`,
    [limit],
  );
}

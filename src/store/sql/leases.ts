import { parseJsonObject } from '../rows.js';
import { chunk, forUpdate, marks, type Queryable } from './executor.js';
import { insertEvents, type TxContext } from './context.js';
import { afterNodeFinished, tokenRowId, type PlanCache } from './finish.js';

/**
 * Leases: a running node's claim by one worker, until `lease_expires_at` (database clock).
 * Renewal extends the leases a worker still holds; expiry takes over the nodes of a worker that
 * stopped renewing (crashed, hung, partitioned): back to `ready`, the attempt counted, or `failed`
 * when the node's attempts (retries + 1) are used up.
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

interface ExpiredRow {
  id: number;
  planId: string;
  nodeId: string;
  attempts: number;
  attributes: string;
  owner: string | null;
  planAttributes: string;
}

/** One batch (up to 500) of expired leases; returns how many were taken over. */
export async function expireLeases(ctx: TxContext, defaultRetries: number): Promise<number> {
  const { q } = ctx;
  const rows = await q.all<ExpiredRow>(
    `SELECT n.id, n.plan_id AS "planId", n.node_id AS "nodeId", n.attempts, n.attributes, n.lease_owner AS "owner", p.attributes AS "planAttributes" ` +
      `FROM nodes n JOIN plans p ON p.id = n.plan_id WHERE n.status = 'running' AND n.lease_expires_at < NOW ORDER BY n.run_after, n.id LIMIT 500${forUpdate(q, 'OF n SKIP LOCKED')}`,
  );
  const plans: PlanCache = new Map();
  for (const row of rows) {
    const retries = retriesOf(parseJsonObject(row.attributes).retries ?? parseJsonObject(row.planAttributes).retries, defaultRetries);
    const usedUp = row.attempts >= retries + 1;
    const who = row.owner ? `worker ${row.owner}` : 'its worker';
    const CLEAR = `lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL, updated_at = NOW`;
    if (usedUp) {
      const error = `lease expired (${who} stopped renewing it) on attempt ${row.attempts} of ${retries + 1}`;
      await q.run(`UPDATE nodes SET status = 'failed', error = ?, finished_at = NOW, ${CLEAR} WHERE id = ?`, [error, row.id]);
      await insertEvents(q, [{ planId: row.planId, nodeId: row.nodeId, driver: 'engine', from: 'running', to: 'failed', reason: error }]);
      await afterNodeFinished(ctx, row.planId, row.nodeId, 'failed', error, plans);
    } else {
      await q.run(`UPDATE nodes SET status = 'ready', run_after = 0, ${CLEAR} WHERE id = ?`, [row.id]);
      await insertEvents(q, [{ planId: row.planId, nodeId: row.nodeId, driver: 'engine', from: 'running', to: 'ready', reason: `lease expired (${who} stopped renewing it)` }]);
      ctx.wakes.push({ reason: 'ready', planId: row.planId });
    }
  }
  return rows.length;
}

function retriesOf(value: string | undefined, fallback: number): number {
  const n = value === undefined ? NaN : Number.parseInt(value, 10);
  return Number.isFinite(n) && n >= 0 ? n : fallback;
}

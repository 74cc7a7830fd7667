import type { Queryable } from './executor.js';

/** A plan this large refreshes the planner statistics when it is created and when it ends. */
export const ANALYZE_AT_NODES = 1000;

/**
 * PostgreSQL: ANALYZE the tables a plan changed past autovacuum's default analyze threshold (50 rows
 * + 10%), or both for a plan of ANALYZE_AT_NODES nodes or more. Stale statistics mislead the
 * planner: an `edges` table analysed when empty talks it into sequential scans on the hot path's
 * lookups, and a large plan analysed while its nodes were ready, once it has finished, into scanning
 * every node for the outlook's few live ones.
 */
export async function refreshStatistics(q: Queryable, nodes: number, edges: number): Promise<void> {
  if (nodes >= ANALYZE_AT_NODES) {
    await q.run('ANALYZE nodes, edges');
    return;
  }
  if (nodes <= 50 && edges <= 50) return;
  const [known] = await q.all<{ nodes: number | null; edges: number | null }>(
    `SELECT (SELECT reltuples FROM pg_class WHERE oid = to_regclass('nodes')) AS nodes, (SELECT reltuples FROM pg_class WHERE oid = to_regclass('edges')) AS edges`,
  );
  const grown = (added: number, tuples: number | null | undefined) => added > 50 + 0.1 * Math.max(0, Number(tuples ?? 0));
  const tables = [...(grown(nodes, known?.nodes) ? ['nodes'] : []), ...(grown(edges, known?.edges) ? ['edges'] : [])];
  if (tables.length > 0) await q.run(`ANALYZE ${tables.join(', ')}`);
}

/** After a plan ended (PostgreSQL): a large plan's nodes all changed status since the last ANALYZE. */
async function refreshAfterPlan(q: Queryable, planId: string): Promise<void> {
  const [row] = await q.all<{ n: number }>(`SELECT count(*) AS n FROM nodes WHERE plan_id = ?`, [planId]);
  if (Number(row?.n ?? 0) >= ANALYZE_AT_NODES) await q.run('ANALYZE nodes');
}

/**
 * A plan ended: its statistics refreshed in the background (ANALYZE of a large plan's nodes takes ~0.1 s, which
 * the worker that wrote the end need not wait for); one at a time, a request while one runs makes one more after
 * it (for the plan that asked last). Failures are left to the next one, or to autovacuum.
 */
export class RefreshAfterPlans {
  /** The refresh running, and the plan whose end asked for one more. */
  #running: Promise<void> | undefined;
  #next: string | undefined;

  constructor(private readonly q: Queryable) {}

  request(planId: string): void {
    if (this.#running) {
      this.#next = planId;
      return;
    }
    this.#running = (async () => {
      try {
        await refreshAfterPlan(this.q, planId);
      } catch {
        // the statistics stay as they were
      }
      this.#running = undefined;
      const next = this.#next;
      this.#next = undefined;
      if (next !== undefined) this.request(next);
    })();
  }

  /** Waits for the refresh running, if one does. */
  async drain(): Promise<void> {
    while (this.#running) await this.#running;
  }
}

import type { Driver } from '../../model/types.js';
import type { WakeEvent } from '../types.js';
import { chunk, forUpdate, marks, type Queryable } from './executor.js';

/** What a write transaction collects besides its rows: wake-ups and plans to settle after it. */
export interface TxContext {
  q: Queryable;
  /** Sent once the transaction commits (and, on PostgreSQL, NOTIFYed inside it). */
  wakes: WakeEvent[];
  /** Plans whose completion to check: inside the transaction on SQLite, after commit on PostgreSQL. */
  settle: Set<string>;
}

export interface EventInput {
  planId: string;
  nodeId?: string | null;
  driver: Driver;
  from: string;
  to: string;
  reason?: string | null;
}

/** One multi-row INSERT per 500 events. */
export async function insertEvents(q: Queryable, events: readonly EventInput[]): Promise<void> {
  for (const part of chunk(events, 500)) {
    const values = part.map(() => '(?, ?, ?, ?, ?, ?, NOW)').join(', ');
    const params = part.flatMap((e) => [e.planId, e.nodeId ?? null, e.driver, e.from, e.to, e.reason ?? null]);
    await q.run(`INSERT INTO events (plan_id, node_id, driver, from_status, to_status, reason, at) VALUES ${values}`, params);
  }
}

/** The plan fields the engine decides with. */
export interface PlanState {
  id: string;
  status: string;
  mode: string;
  attributes: string;
}

export async function loadPlanState(q: Queryable, planId: string, lock = false): Promise<PlanState | undefined> {
  const [row] = await q.all<PlanState>(`SELECT id, status, mode, attributes FROM plans WHERE id = ?${lock ? forUpdate(q) : ''}`, [planId]);
  return row;
}

/** Sets several nodes of one plan to one status (IN lists chunked). */
export async function setNodesStatus(q: Queryable, planId: string, nodeIds: readonly string[], to: string, terminal: boolean): Promise<void> {
  for (const part of chunk(nodeIds)) {
    await q.run(
      `UPDATE nodes SET status = ?, updated_at = NOW${terminal ? ', finished_at = NOW' : ''}, lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL ` +
        `WHERE plan_id = ? AND node_id IN (${marks(part.length)})`,
      [to, planId, ...part],
    );
  }
}

export function isWorkflowRunning(plan: PlanState | undefined): plan is PlanState {
  return plan !== undefined && plan.status === 'running' && plan.mode === 'workflow';
}

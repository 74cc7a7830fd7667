import { LLM_MODES_SQL } from '../../model/plan-modes.js';
import { NODE_WAITS } from '../../model/waiting.js';
import { DUE } from './claim.js';
import { HELD_BY_WORKER, IN_RUNNING_PLAN, READY_LATER, REMOTE_CHECK, WAITS_FOR_PERSON } from './waits.js';
import { LLM_UNHELD } from '../llm-queue.js';
import type { Outlook } from '../types.js';
import type { Queryable } from './executor.js';

/**
 * What keeps workers busy (for `--until-idle` and wake-up timers), in one indexed scan: ready and
 * waiting nodes of running plans, and running nodes of any plan (a paused or failed plan's running
 * nodes still finish, and their leases can still run out). A node parked on its remote task counts as
 * work due later, at its next check. "Ready" is what a claim would take now (claim.ts's DUE).
 */
const OUTLOOK =
  `SELECT ` +
  `COALESCE(SUM(CASE WHEN ${DUE} THEN 1 ELSE 0 END), 0) AS "ready", ` +
  `COALESCE(SUM(CASE WHEN ${HELD_BY_WORKER} THEN 1 ELSE 0 END), 0) AS "running", ` +
  `COALESCE(SUM(CASE WHEN ((${READY_LATER}) OR ${REMOTE_CHECK}) AND ${IN_RUNNING_PLAN} THEN 1 ELSE 0 END), 0) AS "retryPending", ` +
  `COALESCE(SUM(CASE WHEN ${WAITS_FOR_PERSON} AND ${IN_RUNNING_PLAN} THEN 1 ELSE 0 END), 0) AS "awaitingInput", ` +
  `MIN(CASE WHEN ${READY_LATER} AND ${IN_RUNNING_PLAN} THEN n.run_after WHEN ${REMOTE_CHECK} AND ${IN_RUNNING_PLAN} THEN n.lease_expires_at END) AS "nextDueAt", ` +
  `MIN(CASE WHEN ${HELD_BY_WORKER} THEN n.lease_expires_at END) AS "nextExpiry" ` +
  `FROM nodes n WHERE n.status IN ('ready', 'running', '${NODE_WAITS}')`;

/**
 * Reflection plans waiting for the LLM, how many of them a worker could claim now, when the first lease
 * on such work runs out, and when the first backoff after a failed exchange ends (on the mode/status/llm_due index).
 */
const LLM_OUTLOOK =
  `SELECT COUNT(*) AS "work", COALESCE(SUM(CASE WHEN ${LLM_UNHELD} THEN 1 ELSE 0 END), 0) AS "free", MIN(llm_lease_expires_at) AS "nextExpiry", ` +
  `MIN(CASE WHEN llm_not_before > NOW THEN llm_not_before END) AS "nextAllowed" ` +
  `FROM plans WHERE mode IN ${LLM_MODES_SQL} AND status IN ('running', 'awaiting_review') AND llm_due > 0`;

export async function outlook(q: Queryable): Promise<Outlook> {
  type Row = { ready: number; running: number; retryPending: number; awaitingInput: number; nextDueAt: number | null; nextExpiry: number | null };
  const [row] = await q.all<Row>(OUTLOOK);
  const [llm] = await q.all<{ work: number; free: number; nextExpiry: number | null; nextAllowed: number | null }>(LLM_OUTLOOK);
  const out: Outlook = {
    ready: Number(row?.ready ?? 0),
    running: Number(row?.running ?? 0),
    retryPending: Number(row?.retryPending ?? 0),
    awaitingInput: Number(row?.awaitingInput ?? 0),
    llmWork: Number(llm?.work ?? 0),
    llmFree: Number(llm?.free ?? 0),
  };
  const times = [row?.nextDueAt, row?.nextExpiry, llm?.nextExpiry, llm?.nextAllowed].filter((t): t is number => t !== null && t !== undefined).map(Number);
  if (times.length > 0) out.nextWakeAt = new Date(Math.min(...times));
  return out;
}

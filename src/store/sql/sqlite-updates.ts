import type { Statement } from './executor.js';
import { CLAIM_ROW } from './claim.js';
import type { NodeWrite, PlanWrite } from './persist-rows.js';

/**
 * A step's UPDATEs of node and plan rows on SQLite (persist-sqlite.ts): each sets only what its write
 * changes and checks what the step expects of the row in its WHERE — not one general statement with
 * a CASE per column that binds every field of every write. One statement text per combination of the
 * fields a write sets (a few are in use), each prepared once by the executor's cache. Status is always
 * set, so the triggers `AFTER UPDATE OF status` (migrations 0010, 0016) fire as before. A property
 * test holds each equal to the general statement it replaced (test/store/sqlite-updates.property.test.ts).
 */

/**
 * A node row's write. A claim returns the claimed row (RETURNING, for the claim the worker gets);
 * any other write returns nothing — the caller counts the rows changed.
 */
export function nodeUpdateSqlite(node: NodeWrite, lease: { owner: string; leaseMs: number }): Statement & { returning: boolean } {
  const key = shapeOf(node);
  let sql = texts.get(key);
  if (sql === undefined) texts.set(key, (sql = textOf(node)));
  // A count-down's changes of its counters (NodeWrite.relative), for its SET and, the waiting one, its check.
  const waitingBy = node.waiting - node.exp_waiting;
  const params: unknown[] = node.relative ? [node.status, waitingBy, node.taken - node.exp_taken] : [node.status, node.waiting, node.taken];
  if (node.set_output) params.push(node.output);
  if (node.set_answer) params.push(node.answer);
  if (node.set_error) params.push(node.error);
  if (node.attempts !== null) params.push(node.attempts);
  if (node.run_after_delay !== null && node.run_after_delay !== 0) params.push(node.run_after_delay);
  if (node.set_skipped_by) params.push(node.skipped_by);
  if (node.attributes !== null) params.push(node.attributes);
  if (node.claim) params.push(lease.owner, lease.leaseMs);
  if (node.relative) params.push(node.id, node.exp_status, waitingBy);
  else params.push(node.id, node.exp_status, node.exp_waiting, node.exp_taken);
  if (node.exp_token !== null) params.push(node.exp_token);
  return { sql, params, returning: node.claim };
}

/** Statement texts by the shape of the write (shapeOf). */
const texts = new Map<number, string>();

/** Which fields the write sets, as bits: the statement text of writes of one shape is the same. */
function shapeOf(node: NodeWrite): number {
  return (
    (node.set_output ? 1 : 0) |
    (node.set_answer ? 2 : 0) |
    (node.set_error ? 4 : 0) |
    (node.attempts !== null ? 8 : 0) |
    (node.run_after_delay === 0 ? 16 : 0) |
    (node.run_after_delay !== null && node.run_after_delay !== 0 ? 32 : 0) |
    (node.set_skipped_by ? 64 : 0) |
    (node.attributes !== null ? 128 : 0) |
    (node.claim ? 256 : 0) |
    (!node.claim && node.clear_lease ? 512 : 0) |
    (node.finished ? 1024 : 0) |
    (node.waits ? 2048 : 0) |
    (node.exp_token !== null ? 4096 : 0) |
    (node.relative ? 8192 : 0)
  );
}

/** The statement for writes shaped as `node` (parameters in the order nodeUpdateSqlite pushes them). */
function textOf(node: NodeWrite): string {
  // A count-down (NodeWrite.relative) adds the change to the counters, on a row the change leaves waiting.
  const set = node.relative ? ['status = ?', 'waiting = waiting + ?', 'taken = taken + ?'] : ['status = ?', 'waiting = ?', 'taken = ?'];
  if (node.set_output) set.push('output = ?');
  if (node.set_answer) set.push('answer = ?');
  if (node.set_error) set.push('error = ?');
  if (node.attempts !== null) set.push('attempts = ?');
  if (node.run_after_delay === 0) set.push('run_after = 0');
  else if (node.run_after_delay !== null) set.push('run_after = NOW + ?');
  if (node.set_skipped_by) set.push('skipped_by = ?');
  if (node.attributes !== null) set.push('attributes = ?');
  // A claim takes a new lease; leaving `running` otherwise clears it.
  if (node.claim) set.push(`lease_owner = ?`, `lease_token = id || '.' || lower(hex(randomblob(16)))`, 'lease_expires_at = NOW + ?', 'started_at = NOW');
  else if (node.clear_lease) set.push('lease_owner = NULL', 'lease_token = NULL', 'lease_expires_at = NULL');
  if (node.finished) set.push('finished_at = NOW');
  set.push('updated_at = NOW');
  // A move that starts a wait for a person: waiting from now, its notice and timeout times afresh.
  if (node.waits) set.push('waiting_since = NOW', 'remind_at = NULL', 'timeout_at = NULL');
  const token = node.exp_token !== null ? ' AND lease_token = ?' : '';
  const counters = node.relative ? 'waiting + ? > 0' : 'waiting = ? AND taken = ?';
  return `UPDATE nodes SET ${set.join(', ')} WHERE id = ? AND status = ? AND ${counters}${token}` + (node.claim ? ` RETURNING ${CLAIM_ROW}` : '');
}

/** A plan's move, written only if the plan is still in the status the move is from; the caller counts the rows changed. */
export function planUpdateSqlite(plan: PlanWrite): Statement {
  const set = ['status = ?'];
  if (plan.set_error) set.push('error = ?');
  set.push('updated_at = NOW');
  // The plan starts waiting for its reviewer: waiting from now, its notice and timeout times afresh.
  if (plan.waits) set.push('waiting_since = NOW', 'remind_at = NULL', 'timeout_at = NULL');
  return {
    sql: `UPDATE plans SET ${set.join(', ')} WHERE id = ? AND status = ?`,
    params: [plan.to_status, ...(plan.set_error ? [plan.error] : []), plan.plan_id, plan.from_status],
  };
}

import type { HandOffOptions } from '../types.js';
import { claimReason, toClaimed, type ClaimRow, type PlanColumns } from './claim.js';
import type { Queryable } from './executor.js';
import type { Persisted } from './persist-sqlite.js';
import type { WriteSet } from './persist-rows.js';
import { stepStatement, STEP_CHANGED, type StepShape } from './step-statement.js';

/**
 * Writes a step's rows on PostgreSQL in ONE statement, all or nothing (step-statement.ts): each
 * UPDATE carries what the step expects of its rows in its own WHERE, and when a row no longer holds it
 * the statement fails as a whole (SQLSTATE DP409) and nothing is written. The node and plan rows are
 * updated, the events inserted (and the plans' `updated_at`, touch.ts), the nodes the step hands to
 * the worker given their lease, up to `limit` more ready nodes claimed for it (SKIP LOCKED), and
 * workers elsewhere notified. Run inside a transaction (after locking reads) or on its own (from what
 * a claim saw): either way it writes the same rows. Returns undefined when a check failed.
 */
type Row = ClaimRow & PlanColumns & { kind: 'h' | 'c' | 'p' | null };

export async function persistPostgres(
  q: Queryable,
  writes: WriteSet,
  claim: HandOffOptions,
  notify: { channel: string; payloads: string[] },
): Promise<Persisted | undefined> {
  const { plans, events, expect } = writes;
  // In id order, the order the UPDATE then locks them in (as the locking path does), so that two writes never wait on each other crosswise.
  const nodes = writes.nodes.every((n, i, all) => i === 0 || all[i - 1]!.id < n.id) ? writes.nodes : [...writes.nodes].sort((a, b) => a.id - b.id);
  const handing = nodes.reduce((n, node) => n + (node.claim ? 1 : 0), 0);
  const others = claim.claimOthers === false ? 0 : Math.max(0, claim.limit - handing);
  const full = nodes.some((n) => n.set_answer || n.set_error || n.set_skipped_by || n.attributes !== null || n.run_after_delay !== null || n.waits);
  const shape: StepShape = { full, expect: expect.length > 0, moves: plans.length > 0, claims: others > 0, notify: notify.payloads.length > 0 };
  const ids = nodes.map((n) => n.id);
  const values: unknown[] = [
    ids,
    nodes.map((n) => n.exp_status),
    nodes.map((n) => n.exp_waiting),
    nodes.map((n) => n.exp_taken),
    nodes.map((n) => n.exp_token),
    nodes.map((n) => n.status),
    nodes.map((n) => n.waiting),
    nodes.map((n) => n.taken),
    nodes.map(flags),
    nodes.map((n) => n.output),
    nodes.map((n) => n.attempts),
  ];
  if (full) {
    values.push(
      nodes.map((n) => n.answer),
      nodes.map((n) => n.error),
      nodes.map((n) => n.run_after_delay),
      nodes.map((n) => n.skipped_by),
      nodes.map((n) => n.attributes),
    );
  }
  values.push(claim.owner, claim.leaseMs, ids);
  if (shape.expect)
    values.push(
      expect.map((e) => e.plan_id),
      expect.map((e) => e.status),
      expect.map((e) => e.revision),
      expect.map((e) => e.plan_id),
    );
  if (shape.moves) {
    values.push(
      plans.map((p) => p.plan_id),
      plans.map((p) => p.from_status),
      plans.map((p) => p.to_status),
      plans.map((p) => p.set_error),
      plans.map((p) => p.error),
      plans.map((p) => p.waits),
      plans.map((p) => p.plan_id),
    );
  }
  values.push(
    events.map((e) => e.plan_id),
    events.map((e) => e.node_id),
    events.map((e) => e.kind),
    events.map((e) => e.driver),
    events.map((e) => e.actor),
    events.map((e) => e.from_status),
    events.map((e) => e.to_status),
    events.map((e) => e.reason),
    events.map((e) => e.detail),
  );
  if (shape.claims) values.push(others, claim.owner, claim.leaseMs, claim.owner, claimReason(claim.owner));
  if (shape.notify) values.push(notify.channel, notify.payloads);
  values.push(nodes.length);
  if (shape.expect) values.push(expect.length);

  let rows: Row[];
  try {
    rows = await q.all<Row>(stepStatement(shape), values);
  } catch (error) {
    if ((error as { code?: unknown }).code === STEP_CHANGED) return undefined;
    throw error;
  }
  // The handed nodes in the order the steps handed them over (as on SQLite), not the rows' order.
  const order = new Map(writes.nodes.map((n, i) => [n.id, i]));
  const handed: Row[] = [];
  const claimed: Row[] = [];
  const planMoves = new Set<string>();
  for (const row of rows) {
    if (row.kind === 'h') handed.push(row);
    else if (row.kind === 'c') claimed.push(row);
    else if (row.kind === 'p') planMoves.add(row.planId);
  }
  handed.sort((a, b) => order.get(a.rowId)! - order.get(b.rowId)!);
  claimed.sort((a, b) => a.rowId - b.rowId);
  return { handed: handed.map((r) => toClaimed(r, r)), claimed: claimed.map((r) => toClaimed(r, r)), planMoves };
}

/** A node write's switches, as the bits step-statement.ts reads. */
function flags(n: WriteSet['nodes'][number]): number {
  return (
    (n.set_output ? 1 : 0) |
    (n.set_answer ? 2 : 0) |
    (n.set_error ? 4 : 0) |
    (n.set_skipped_by ? 8 : 0) |
    (n.claim ? 16 : 0) |
    (n.clear_lease ? 32 : 0) |
    (n.finished ? 64 : 0) |
    (n.waits ? 128 : 0)
  );
}

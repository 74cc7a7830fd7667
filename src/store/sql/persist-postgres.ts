import type { HandOffOptions } from '../types.js';
import { claimedIn, toClaimed, toClaims, type ClaimRow, type PlanColumns } from './claim.js';
import type { KnownPlans } from './known-plans.js';
import type { Queryable } from './executor.js';
import type { Persisted } from './persist-sqlite.js';
import type { WriteSet } from './persist-rows.js';
import { stepQuery, STEP_CHANGED } from './step-statement.js';

/**
 * Writes a step's rows on PostgreSQL in ONE statement, all or nothing (step-statement.ts): each
 * UPDATE carries what the step expects of its rows in its own WHERE, and when a row no longer holds it
 * the statement fails as a whole (SQLSTATE DP409) and nothing is written. The node and plan rows are
 * updated, the events inserted (and the plans' `updated_at`, touch.ts), the nodes the step hands to
 * the worker given their lease, up to `limit` more ready nodes claimed for it (SKIP LOCKED), and
 * workers elsewhere notified. Run inside a transaction (after locking reads) or on its own (from what
 * a claim saw): either way it writes the same rows. Returns undefined when a check failed. The nodes it
 * hands over in `known` plans take their plan's columns from there (not read back).
 */
type Row = ClaimRow & PlanColumns & { kind: 'h' | 'c' | 'p' | null };

export async function persistPostgres(
  q: Queryable,
  writes: WriteSet,
  claim: HandOffOptions,
  notify: { channel: string; payloads: string[] },
  known?: KnownPlans,
): Promise<Persisted | undefined> {
  const { text, values } = stepQuery(writes, claim, notify, known);
  let rows: Row[];
  try {
    rows = await q.all<Row>(text, values);
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
  const handedClaim = (row: Row) => {
    // Read back with its plan's columns, unless the statement left them to the caller (`known`).
    const plan = row.planStatus === undefined || row.planStatus === null ? known?.get(row.planId) : undefined;
    return plan ? claimedIn(row, plan) : toClaimed(row, row);
  };
  return { handed: handed.map(handedClaim), claimed: toClaims(claimed), planMoves };
}

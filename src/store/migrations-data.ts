import { isTaken } from '../engine/readiness.js';
import type { Driver, NodeStatus } from '../model/types.js';
import type { Queryable } from './sql/executor.js';
import { decodeText } from './text.js';

/**
 * Data steps of migrations that SQL alone cannot do, run right after the migration's statements in
 * the same transaction (src/store/migrate.ts), keyed by the migration's folder name.
 */
export const DATA_STEPS: Readonly<Record<string, (q: Queryable) => Promise<void>>> = {
  /** Edges with a `when` condition from sources that passed: taken when the condition matches. */
  async '0003_readiness_counters_and_audit_log'(q) {
    const rows = await q.all<{ target: number; when: string; status: NodeStatus; skippedBy: string | null; output: string | null; answer: string | null }>(
      `SELECT t.id AS "target", e.when_match AS "when", s.status, s.skipped_by AS "skippedBy", s.output, s.answer FROM edges e ` +
        `JOIN nodes s ON s.plan_id = e.plan_id AND s.node_id = e.from_node JOIN nodes t ON t.plan_id = e.plan_id AND t.node_id = e.to_node ` +
        `WHERE e.when_match IS NOT NULL AND e.when_match <> '' AND (s.status = 'done' OR (s.status = 'skipped' AND s.skipped_by = 'operator'))`,
    );
    for (const row of rows) {
      const source = {
        status: row.status,
        ...(row.skippedBy ? { skippedBy: row.skippedBy as Driver } : {}),
        output: decodeText(row.output) ?? undefined,
        answer: decodeText(row.answer) ?? undefined,
      };
      if (isTaken(source, row.when)) await q.run(`UPDATE nodes SET taken = taken + 1 WHERE id = ?`, [row.target]);
    }
  },
};

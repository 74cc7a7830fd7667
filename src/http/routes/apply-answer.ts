import type { Context } from 'hono';
import type { ApplyReport } from '../../operations/decide-revision.js';
import { problem, sendProblem } from '../problem.js';

/**
 * An edit's report as an answer: 200 with what it changes (or would, for a dry run); 422 when the
 * text has errors (its diagnostics); 409 `MERGE_CONFLICT` when it clashes with what changed since its
 * revision or makes a change its author may not (the conflicts, each on its node and attribute).
 */
export function applyAnswer(c: Context, report: ApplyReport): Response {
  if (report.diagnostics.some((d) => d.severity === 'error')) {
    return sendProblem(c, problem(422, 'VALIDATION_FAILED', 'The edit does not validate; nothing changed.', { diagnostics: report.diagnostics }));
  }
  if (report.conflicts.length > 0) {
    return sendProblem(
      c,
      problem(409, 'MERGE_CONFLICT', 'The edit clashes with what changed since its revision, or makes a change its author may not; nothing changed.', {
        conflicts: report.conflicts,
        diagnostics: report.diagnostics,
      }),
    );
  }
  return c.json(report, 200);
}

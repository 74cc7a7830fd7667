import type { Diagnostic } from '../model/diagnostics.js';
import { normaliseStatus } from '../model/status.js';
import type { NodeStatus, PlanGraph } from '../model/types.js';

/** Statuses only running a plan reaches: a new plan cannot start in them. */
const HISTORY_STATUSES: ReadonlySet<NodeStatus> = new Set(['running', 'done', 'failed', 'cancelled']);

/** Values only running a plan records. */
const RECORDED = ['toolOutput', 'answer', 'error'] as const;

const RERUN_FIX = 'to run a stored plan again: dotplan plan rerun <id>';

/**
 * A new plan starts without history (SPEC §3: only the engine and people make nodes run, finish
 * or fail): whatever the source — a DOT file such as another plan's `plan show`, a template, the
 * library's `create` — a node written `running`, `done`, `failed` or `cancelled` starts `pending`,
 * and a `toolOutput`, `answer` or `error` is dropped, each named in a HISTORY_RESET warning.
 * `pending`, `ready`, `skipped` and `awaiting_input` (which asks its question) are kept; a status
 * that is not one is left for the validator. Pure: the graph given is not changed.
 */
export function resetHistory(graph: PlanGraph): { graph: PlanGraph; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const nodes = graph.nodes.map((node) => {
    const before = diagnostics.length;
    const attributes = { ...node.attributes };
    const where = { node: node.id, ...(node.location ? { line: node.location.line, column: node.location.column } : {}) };
    const written = attributes.status;
    const status = written === undefined ? undefined : normaliseStatus(written);
    if (written !== undefined && status !== undefined && HISTORY_STATUSES.has(status)) {
      attributes.status = 'pending';
      diagnostics.push({
        code: 'HISTORY_RESET',
        severity: 'warning',
        message: `node ${JSON.stringify(node.id)}: status ${JSON.stringify(written)} is history, which a new plan does not start with; it starts pending`,
        ...where,
        attribute: 'status',
        fix: RERUN_FIX,
      });
    }
    for (const key of RECORDED) {
      if (attributes[key] === undefined) continue;
      delete attributes[key];
      diagnostics.push({
        code: 'HISTORY_RESET',
        severity: 'warning',
        message: `node ${JSON.stringify(node.id)}: ${key} is a recorded result, which a new plan does not start with; it is left out`,
        ...where,
        attribute: key,
        fix: RERUN_FIX,
      });
    }
    return diagnostics.length > before ? { ...node, attributes } : node;
  });
  return diagnostics.length === 0 ? { graph, diagnostics } : { graph: { ...graph, nodes }, diagnostics };
}

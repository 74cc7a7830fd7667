import type { Diagnostic } from '../model/diagnostics.js';
import { normaliseStatus } from '../model/status.js';
import type { NodeStatus, PlanGraph } from '../model/types.js';
import { STARTED, unfinishedParents } from '../engine/readiness.js';

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
 * `pending`, `ready`, `skipped` and `awaiting_input` (which asks its question) are kept, but an
 * edge holds at create as in every revision: a node written `ready` or `awaiting_input` behind a
 * parent that has not finished (is not skipped) starts pending, named in a warning too. A status
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
  holdBackEarlyStarts(nodes, graph.edges, diagnostics);
  return diagnostics.length === 0 ? { graph, diagnostics } : { graph: { ...graph, nodes }, diagnostics };
}

/** A node written `ready`/`awaiting_input` whose parents have not all finished starts pending (readiness.ts). In place. */
function holdBackEarlyStarts(nodes: PlanGraph['nodes'], edges: PlanGraph['edges'], diagnostics: Diagnostic[]): void {
  const index = new Map(nodes.map((node, at) => [node.id, at]));
  const statusOf = (id: string): { status: NodeStatus } => {
    const written = nodes[index.get(id) ?? -1]?.attributes.status;
    return { status: (written === undefined ? undefined : normaliseStatus(written)) ?? 'pending' };
  };
  const parents = new Map<string, string[]>();
  for (const edge of edges) {
    const list = parents.get(edge.to);
    if (list) list.push(edge.from);
    else parents.set(edge.to, [edge.from]);
  }
  for (const [id, from] of parents) {
    const at = index.get(id);
    const node = at === undefined ? undefined : nodes[at];
    if (at === undefined || node === undefined || !STARTED.has(statusOf(id).status)) continue;
    const unfinished = unfinishedParents(from.map((parent) => ({ id: parent, ...statusOf(parent) })));
    if (unfinished.length === 0) continue;
    const written = node.attributes.status;
    nodes[at] = { ...node, attributes: { ...node.attributes, status: 'pending' } };
    diagnostics.push({
      code: 'HISTORY_RESET',
      severity: 'warning',
      message: `node ${JSON.stringify(id)}: status ${JSON.stringify(written)} before its parent${unfinished.length > 1 ? 's' : ''} ${unfinished.map((p) => JSON.stringify(p.id)).join(', ')} finished; it starts pending and runs when they have`,
      node: id,
      ...(node.location ? { line: node.location.line, column: node.location.column } : {}),
      attribute: 'status',
      fix: 'leave status out: a node runs when its parents have finished',
    });
  }
}

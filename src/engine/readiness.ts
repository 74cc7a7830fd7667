import { TERMINAL_NODE_STATUSES } from '../model/status.js';
import type { Driver, NodeStatus } from '../model/types.js';
import { matchesWhen, parseWhen, whenSubject } from '../model/when.js';

/**
 * Workflow-mode scheduling as pure functions over a node's neighbourhood (SPEC §2): a pending node
 * becomes ready once every upstream node has finished and at least one *taken* edge reaches it;
 * when every upstream node has finished and no taken edge reaches it, it is skipped.
 * An edge is taken when its source is `done` and the edge's `when` (if any) matches the source's
 * answer or output. A node an *operator* skipped counts as done with no output (the plan goes on
 * without it); edges from failed, cancelled or otherwise skipped sources (untaken branches) are not
 * taken.
 */
export interface IncomingEdge {
  from: string;
  when?: string;
  sourceStatus: NodeStatus;
  /** For a skipped source: who skipped it (the engine for an untaken branch, or an operator). */
  sourceSkippedBy?: Driver;
  sourceOutput?: string | null;
  sourceAnswer?: string | null;
}

export type Readiness = 'ready' | 'skipped' | 'wait';

export function isEdgeTaken(edge: IncomingEdge): boolean {
  const passed = edge.sourceStatus === 'done' || (edge.sourceStatus === 'skipped' && edge.sourceSkippedBy === 'operator');
  if (!passed) return false;
  if (edge.when === undefined || edge.when === '') return true;
  const parsed = parseWhen(edge.when);
  if (!parsed.ok) return false; // the validator refuses these before they are stored
  return matchesWhen(parsed.condition, whenSubject({ answer: edge.sourceAnswer, output: edge.sourceOutput }));
}

export function decideReadiness(incoming: readonly IncomingEdge[]): Readiness {
  if (incoming.length === 0) return 'ready';
  if (incoming.some((e) => !TERMINAL_NODE_STATUSES.has(e.sourceStatus))) return 'wait';
  return incoming.some(isEdgeTaken) ? 'ready' : 'skipped';
}

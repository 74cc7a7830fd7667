import { plural } from '../model/plural.js';
import type { Changed } from './propagate.js';
import type { Actor, StepBuilder } from './step.js';

/**
 * A plan failed by its nodes, and what it says about them (its `error`, shown by `plan show`,
 * `plan list --json` and the report): with onFailure=stop the first node to fail stops the plan
 * and is named; with onFailure=continue the plan fails once nothing is left to run, naming the
 * first node that failed and how many others did.
 */

/** A failed node as settling reads it: the first to fail first. */
export interface FailedNode {
  node: string;
  error?: string;
}

/** Nodes named in the error besides the first; the rest are counted. */
const NAMED = 3;

/** A node fails for good; with onFailure=stop (the default) its running workflow plan fails too. */
export function failNode(b: StepBuilder, id: string, error: string, actor: Actor, reason: string, detail?: Record<string, unknown>): Changed {
  const before = b.node(id);
  b.move(id, 'failed', actor, reason, { error }, detail);
  if (b.readinessActive && b.plan.attributes.onFailure !== 'continue') {
    const message = nodeFailed({ node: id, error });
    b.movePlan('failed', { driver: 'engine' }, message, message);
  }
  return { id, before };
}

/** The error of a plan whose nodes failed: `node "x" failed: <its error>`, then how many more (of `count`). */
export function planFailure(first: readonly FailedNode[], count: number): string {
  const [head, ...rest] = first;
  if (!head) return 'a node failed and nothing is left to run';
  const more = count - 1;
  if (more <= 0) return nodeFailed(head);
  const named = rest.slice(0, NAMED).map((f) => JSON.stringify(f.node));
  const others = more - named.length;
  const list = others > 0 ? `${named.join(', ')} and ${plural(others, 'other')}` : joinAnd(named);
  return `${nodeFailed(head)} (${plural(more, 'more node', 'more nodes')} failed: ${list})`;
}

function nodeFailed({ node, error }: FailedNode): string {
  return `node ${JSON.stringify(node)} failed${error ? `: ${error}` : ''}`;
}

function joinAnd(items: readonly string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)!}`;
}

import { DotplanError } from '../errors/errors.js';
import type { Driver, NodeStatus } from '../model/types.js';

/**
 * The node status state machine (SPEC §3): for each driver, the moves it may make.
 * `*` as a source means "any status" (only the engine's cancel uses it).
 */
type MoveTable = Readonly<Record<Driver, ReadonlyArray<readonly [NodeStatus | '*', NodeStatus]>>>;

export const NODE_MOVES: MoveTable = {
  engine: [
    ['pending', 'ready'], // workflow mode: dependencies met
    ['pending', 'skipped'], // untaken branch
    ['skipped', 'pending'], // reopened: a source it was skipped for runs again (retried) or was skipped by an operator
    ['ready', 'pending'], // held back: a source it waits for runs again (retried, reopened) — an edge means "waits for"
    ['ready', 'running'], // claimed by a worker
    ['ready', 'awaiting_input'], // confirm node asks its question
    ['running', 'done'],
    ['running', 'failed'],
    ['running', 'ready'], // retry, lease expiry, release at shutdown
    ['running', 'awaiting_input'], // a running node (agent) asks a person
    ['awaiting_input', 'done'], // answer recorded; or the default taken when answerTimeout passed
    ['awaiting_input', 'ready'], // an agent node's question timed out: its default goes back to its agent
    ['awaiting_input', 'failed'], // answerTimeout passed and the node has no default
    ['*', 'cancelled'], // plan cancelled
  ],
  llm: [
    ['pending', 'ready'],
    ['pending', 'awaiting_input'],
    ['pending', 'skipped'],
  ],
  person: [
    ['awaiting_input', 'done'], // answer
    ['awaiting_input', 'ready'], // an agent node's answer: its (external) agent takes it and goes on
  ],
  operator: [
    ['awaiting_input', 'done'], // answer on someone's behalf
    ['awaiting_input', 'ready'], // an agent node's answer on someone's behalf
    ['failed', 'ready'], // retry
    ['pending', 'skipped'],
    ['ready', 'skipped'],
    ['failed', 'skipped'],
    ['awaiting_input', 'skipped'],
    ['pending', 'ready'], // hand edit: release a pending node
    ['ready', 'pending'], // hand edit: hold a node back
    ['*', 'cancelled'], // plan cancel
  ],
};

/** A status move requested by a driver. */
export interface NodeMove {
  node: string;
  from: NodeStatus;
  to: NodeStatus;
  driver: Driver;
}

export class IllegalTransitionError extends DotplanError {
  readonly move: NodeMove;
  constructor(move: NodeMove, detail?: string) {
    const allowed = allowedTargets(move.from, move.driver);
    super(
      'ILLEGAL_TRANSITION',
      `node ${JSON.stringify(move.node)}: ${move.driver} may not move it from ${move.from} to ${move.to}` +
        (detail ? ` (${detail})` : '') +
        (allowed.length > 0
          ? `; from ${move.from} the ${move.driver} may move it to: ${allowed.join(', ')}`
          : `; the ${move.driver} may not move a ${move.from} node`),
    );
    this.name = 'IllegalTransitionError';
    this.move = move;
  }
}

export function canMoveNode(from: NodeStatus, to: NodeStatus, driver: Driver): boolean {
  if (from === to) return false;
  return NODE_MOVES[driver].some(([f, t]) => t === to && (f === from || (f === '*' && from !== 'cancelled')));
}

/** Statuses the driver may move a node in `from` to. */
export function allowedTargets(from: NodeStatus, driver: Driver): NodeStatus[] {
  const out = new Set<NodeStatus>();
  for (const [f, t] of NODE_MOVES[driver]) if ((f === from || (f === '*' && from !== 'cancelled')) && t !== from) out.add(t);
  return [...out];
}

/** Throws IllegalTransitionError unless the move is allowed. */
export function assertNodeMove(move: NodeMove): void {
  if (!canMoveNode(move.from, move.to, move.driver)) throw new IllegalTransitionError(move);
}

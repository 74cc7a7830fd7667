import { commaList } from './attributes.js';
import type { NodeStatus, PlanStatus } from './types.js';

/** A node waits for a person's answer in this status; a plan waits for its reviewer in this one. */
export const NODE_WAITS: NodeStatus = 'awaiting_input';
export const PLAN_WAITS: PlanStatus = 'awaiting_review';

/**
 * A move that starts a wait for a person: the moment a wait's one "since" is taken from (notices,
 * reminders, the inbox, answerTimeout, reviewTimeout), written with the move itself.
 */
export function startsWaiting(from: string, to: string, waits: NodeStatus | PlanStatus): boolean {
  return to === waits && from !== waits;
}

/**
 * Something waiting for a person — a node's question or a plan's review — as notices and `dotplan
 * inbox` describe it, read from what the store keeps (the node's attributes hold its question and options).
 */
export interface Waiting {
  /** A node's question, or a plan's review. */
  kind: 'question' | 'review';
  planId: string;
  planTitle: string;
  /** Questions: the confirm node. */
  nodeId?: string;
  /** Questions: what it asks. */
  question?: string;
  /** Questions: the answers it takes, when it lists them. */
  options?: string[];
  /** When it started waiting: the move into waiting (a reflection plan under review: the LLM's draft). */
  since: Date;
}

export function waitingFrom(item: {
  kind: Waiting['kind'];
  planId: string;
  planTitle: string;
  nodeId?: string;
  attributes?: Readonly<Record<string, string>>;
  since: Date;
}): Waiting {
  const question = item.attributes?.question;
  const options = commaList(item.attributes?.options);
  return {
    kind: item.kind,
    planId: item.planId,
    planTitle: item.planTitle,
    ...(item.nodeId !== undefined ? { nodeId: item.nodeId } : {}),
    ...(question !== undefined ? { question } : {}),
    ...(options.length > 0 ? { options } : {}),
    since: item.since,
  };
}

import { commaList } from './attributes.js';

/**
 * Something waiting for a person — a node's question or a plan's review — as notices and `dotplan
 * inbox` describe it, read from what the store keeps (the node's attributes hold its question and options).
 */
export interface Waiting {
  kind: 'question' | 'review';
  planId: string;
  planTitle: string;
  nodeId?: string;
  question?: string;
  options?: string[];
  /** When it started waiting. */
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

import type { Driver, NodeStatus, NodeType, PlanGraph, PlanStatus, RevisionAuthor, Attributes } from '../model/types.js';

export type Backend = 'sqlite' | 'postgres';

export interface PlanRecord {
  id: string;
  title: string;
  status: PlanStatus;
  /** `workflow` (engine drives readiness) or `reflection` (LLM rewrites). */
  mode: string;
  template?: string;
  params: Record<string, string>;
  /** Graph attributes of the latest revision. */
  attributes: Attributes;
  revision: number;
  error?: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface NodeRecord {
  planId: string;
  id: string;
  type: NodeType;
  status: NodeStatus;
  label?: string;
  /** The node's DOT attributes from the latest revision (status/output/answer/error are the live fields below). */
  attributes: Attributes;
  cluster?: string;
  attempts: number;
  output?: string;
  answer?: string;
  error?: string;
  /** Earliest time a ready node may run again (retry backoff). */
  runAfter?: Date;
  leaseOwner?: string;
  leaseExpiresAt?: Date;
  updatedAt: Date;
}

export interface EdgeRecord {
  from: string;
  to: string;
  when?: string;
}

export interface RevisionRecord {
  planId: string;
  number: number;
  dot: string;
  author: RevisionAuthor;
  updateLog?: string;
  parent?: number;
  createdAt: Date;
}

export interface EventRecord {
  id: number;
  planId: string;
  /** Absent for plan-level events. */
  nodeId?: string;
  driver: Driver;
  from: string;
  to: string;
  reason?: string;
  at: Date;
}

export interface CreatePlanInput {
  title: string;
  graph: PlanGraph;
  /** The DOT text as authored (kept as revision 1). */
  dot: string;
  author: RevisionAuthor;
  updateLog?: string;
  template?: string;
  params?: Record<string, string>;
}

/**
 * The shapes the UI reads from the HTTP API (`/openapi.json` has them all), as JSON: times are ISO
 * strings. Statuses and change kinds come from the engine's own definitions.
 */
import type { NodeStatus, PlanStatus } from '../../src/model/types.js';
import type { PlanChange } from '../../src/revisions/diff.js';

export type { NodeStatus, PlanChange, PlanStatus };

export interface Plan {
  id: string;
  title: string;
  status: PlanStatus;
  mode: string;
  template?: string;
  params: Record<string, string>;
  attributes: Record<string, string>;
  revision: number;
  error?: string;
  result?: string;
  tokensUsed?: number;
  parent?: { planId: string; nodeId: string; attempt: number };
  rootPlanId?: string;
  depth?: number;
  instance?: string;
  createdAt: string;
  updatedAt: string;
}

export interface PlanSummary {
  plan: Plan;
  nodes: Partial<Record<NodeStatus, number>>;
  waiting: Array<{ for?: string; text?: string }>;
  children: Array<{ id: string; title: string; status: string; nodeId: string; instance?: string }>;
}

export interface PlanNode {
  planId: string;
  id: string;
  type: string;
  status: NodeStatus;
  label?: string;
  attributes: Record<string, string>;
  attempts: number;
  output?: string;
  answer?: string;
  error?: string;
  childPlanId?: string;
  startedAt?: string;
  finishedAt?: string;
  updatedAt: string;
}

/** One audit-log event: `kind` status (a move `from` → `to`; a node's when `nodeId` is set, else the plan's), answer, revision, notice, review, log, child. */
export interface PlanEvent {
  id: number;
  planId: string;
  nodeId?: string;
  kind: string;
  driver: string;
  actor?: string;
  from: string;
  to: string;
  reason?: string;
  detail?: Record<string, unknown>;
  at: string;
}

export interface InboxEntry {
  kind: 'question' | 'review';
  planId: string;
  planTitle: string;
  nodeId?: string;
  question?: string;
  options?: string[];
  since: string;
  waitedMs: number;
  command: string;
  path?: string;
}

export interface Diagnostic {
  code: string;
  severity: 'error' | 'warning';
  message: string;
  node?: string;
  attribute?: string;
  line?: number;
  column?: number;
  fix?: string;
}

export interface Conflict {
  code: string;
  node?: string;
  edge?: string;
  attribute?: string;
  message: string;
  fix?: string;
  line?: number;
}

export interface ApplyReport {
  applied: boolean;
  revision: number | null;
  changes: PlanChange[];
  conflicts: Conflict[];
  diagnostics: Diagnostic[];
}

export interface Revision {
  number: number;
  author: string;
  updateLog?: string;
  parent?: number;
  createdAt: string;
  by?: string;
  changes?: number;
}

export interface Template {
  name: string;
  title: string;
  description: string;
  params: Array<{ name: string; default?: string }>;
  error?: string;
}

export interface LlmCall {
  id: number;
  nodeId?: string;
  purpose: string;
  model: string;
  promptTokens: number;
  completionTokens: number;
  ms: number;
  outcome: string;
  at: string;
}

export interface Session {
  name: string;
  scope: string;
  local: boolean;
  csrf: string;
}

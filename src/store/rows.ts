import type { NodeState } from '../engine/snapshot.js';
import type { Driver, EventKind, NodeStatus, NodeType, PlanStatus, RevisionAuthor } from '../model/types.js';
import { decodeText } from './text.js';
import type { EdgeRecord, EventRecord, NodeRecord, PlanRecord, RevisionRecord } from './types.js';

/**
 * Rows → records. Raw SQL selects the camelCase aliases below, Prisma returns the same field names,
 * so one mapper serves both (times arrive as epoch-ms numbers from raw SQL, bigints from Prisma).
 */
type Time = number | bigint;

/** A plan's record columns under the PlanRow field names: what the Prisma read of a plan gives, in SQL. */
export const PLAN_COLUMNS =
  `id, title, status, mode, template, params, attributes, revision, error, created_at AS "createdAt", updated_at AS "updatedAt", rerun_of AS "rerunOf", ` +
  `result, tokens_used AS "tokensUsed", ` +
  `parent_plan_id AS "parentPlanId", parent_node_id AS "parentNodeId", parent_attempt AS "parentAttempt", root_plan_id AS "rootPlanId", depth, agent_code AS "agentCode", instance`;
/** A node's record columns under the NodeRow field names (what a node's record shows; a step reads stateColumns). */
export const NODE_COLUMNS =
  `plan_id AS "planId", node_id AS "nodeId", type AS "type", status AS "status", label AS "label", attributes AS "attributes", ` +
  `cluster AS "cluster", attempts AS "attempts", output AS "output", answer AS "answer", error AS "error", run_after AS "runAfter", ` +
  `skipped_by AS "skippedBy", waiting AS "waiting", taken AS "taken", ` +
  `lease_owner AS "leaseOwner", child_plan_id AS "childPlanId", lease_expires_at AS "leaseExpiresAt", started_at AS "startedAt", finished_at AS "finishedAt", updated_at AS "updatedAt"`;

/**
 * What a step's snapshot holds of a node (toNodeState), under the NodeRow field names: the columns the
 * engine's reads take. A row object costs its driver per column, and a finish reads one per node.
 */
export function stateColumns(prefix = ''): string {
  const p = prefix;
  return (
    `${p}plan_id AS "planId", ${p}node_id AS "nodeId", ${p}type AS "type", ${p}status AS "status", ${p}attributes AS "attributes", ${p}attempts AS "attempts", ` +
    `${p}output AS "output", ${p}answer AS "answer", ${p}error AS "error", ${p}skipped_by AS "skippedBy", ${p}waiting AS "waiting", ${p}taken AS "taken"`
  );
}
export type StateRow = Pick<
  NodeRow,
  'planId' | 'nodeId' | 'type' | 'status' | 'attributes' | 'attempts' | 'output' | 'answer' | 'error' | 'skippedBy' | 'waiting' | 'taken'
>;

export interface PlanRow {
  id: string;
  title: string;
  status: string;
  mode: string;
  template: string | null;
  params: string;
  attributes: string;
  revision: number;
  error: string | null;
  createdAt: Time;
  updatedAt: Time;
  result?: string | null;
  tokensUsed?: number;
  rerunOf?: string | null;
  parentPlanId?: string | null;
  parentNodeId?: string | null;
  parentAttempt?: number | null;
  rootPlanId?: string | null;
  depth?: number;
  agentCode?: string | null;
  instance?: string | null;
}

export interface NodeRow {
  planId: string;
  nodeId: string;
  type: string;
  status: string;
  label: string | null;
  attributes: string;
  cluster: string | null;
  attempts: number;
  output: string | null;
  answer: string | null;
  error: string | null;
  runAfter: Time;
  skippedBy: string | null;
  waiting: number;
  taken: number;
  leaseOwner: string | null;
  childPlanId?: string | null;
  leaseExpiresAt: Time | null;
  startedAt: Time | null;
  finishedAt: Time | null;
  updatedAt: Time;
}

export function toDate(value: Time): Date {
  return new Date(Number(value));
}

function optionalDate(value: Time | null | undefined): Date | undefined {
  return value === null || value === undefined ? undefined : toDate(value);
}

function optional<T>(value: T | null | undefined): T | undefined {
  return value === null ? undefined : value;
}

export function parseJsonObject(text: string): Record<string, string> {
  const value: unknown = JSON.parse(text);
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, string>) : {};
}

export function toPlanRecord(row: PlanRow): PlanRecord {
  return {
    id: row.id,
    title: decodeText(row.title),
    status: row.status as PlanStatus,
    mode: row.mode,
    template: optional(row.template),
    params: parseJsonObject(row.params),
    attributes: parseJsonObject(row.attributes),
    revision: Number(row.revision),
    error: optional(decodeText(row.error)),
    createdAt: toDate(row.createdAt),
    updatedAt: toDate(row.updatedAt),
    ...(row.result !== undefined && row.result !== null ? { result: decodeText(row.result) } : {}),
    ...(row.tokensUsed ? { tokensUsed: Number(row.tokensUsed) } : {}),
    ...(row.rerunOf !== undefined && row.rerunOf !== null ? { rerunOf: row.rerunOf } : {}),
    ...(row.parentPlanId ? { parent: { planId: row.parentPlanId, nodeId: row.parentNodeId ?? '', attempt: Number(row.parentAttempt ?? 0) } } : {}),
    ...(row.rootPlanId ? { rootPlanId: row.rootPlanId } : {}),
    ...(row.depth ? { depth: Number(row.depth) } : {}),
    ...(row.agentCode ? { agentCode: row.agentCode } : {}),
    ...(row.instance ? { instance: row.instance } : {}),
  };
}

export function toNodeRecord(row: NodeRow): NodeRecord {
  const runAfter = Number(row.runAfter);
  return {
    planId: row.planId,
    id: row.nodeId,
    type: row.type as NodeType,
    status: row.status as NodeStatus,
    label: optional(decodeText(row.label)),
    attributes: parseJsonObject(row.attributes),
    cluster: optional(decodeText(row.cluster)),
    attempts: Number(row.attempts),
    output: optional(decodeText(row.output)),
    answer: optional(decodeText(row.answer)),
    error: optional(decodeText(row.error)),
    skippedBy: optional(row.skippedBy) as Driver | undefined,
    waiting: Number(row.waiting),
    taken: Number(row.taken),
    runAfter: runAfter > 0 ? new Date(runAfter) : undefined,
    leaseOwner: optional(row.leaseOwner),
    ...(row.childPlanId ? { childPlanId: row.childPlanId } : {}),
    leaseExpiresAt: optionalDate(row.leaseExpiresAt),
    startedAt: optionalDate(row.startedAt),
    finishedAt: optionalDate(row.finishedAt),
    updatedAt: toDate(row.updatedAt),
  };
}

/** A node row as the engine sees it. */
export function toNodeState(row: StateRow): NodeState {
  const node: NodeState = {
    id: row.nodeId,
    type: row.type as NodeType,
    status: row.status as NodeStatus,
    attempts: Number(row.attempts),
    waiting: Number(row.waiting),
    taken: Number(row.taken),
    attributes: parseJsonObject(row.attributes),
  };
  if (row.skippedBy !== null) node.skippedBy = row.skippedBy as Driver;
  if (row.output !== null) node.output = decodeText(row.output);
  if (row.answer !== null) node.answer = decodeText(row.answer);
  if (row.error !== null) node.error = decodeText(row.error);
  return node;
}

/** An edge's record columns under the EdgeRow field names. */
export const EDGE_COLUMNS = `from_node AS "from", to_node AS "to", when_match AS "when"`;

export interface EdgeRow {
  from: string;
  to: string;
  when: string | null;
}

export function toEdgeRecord(row: EdgeRow): EdgeRecord {
  return row.when === null ? { from: row.from, to: row.to } : { from: row.from, to: row.to, when: decodeText(row.when) };
}

/** A revision's record columns under the RevisionRow field names. */
export const REVISION_COLUMNS = `plan_id AS "planId", number, dot, author, update_log AS "updateLog", parent, created_at AS "createdAt"`;

export interface RevisionRow {
  planId: string;
  number: number;
  dot: string;
  author: string;
  updateLog: string | null;
  parent: number | null;
  createdAt: Time;
}

export function toRevisionRecord(row: RevisionRow): RevisionRecord {
  return {
    planId: row.planId,
    number: Number(row.number),
    dot: decodeText(row.dot),
    author: row.author as RevisionAuthor,
    updateLog: optional(decodeText(row.updateLog)),
    parent: row.parent === null ? undefined : Number(row.parent),
    createdAt: toDate(row.createdAt),
  };
}

export const EVENT_COLUMNS = `id, plan_id AS "planId", node_id AS "nodeId", kind, driver, actor, from_status AS "from", to_status AS "to", reason, detail, at`;

export interface EventRow {
  id: number;
  planId: string;
  nodeId: string | null;
  kind: string;
  driver: string;
  actor: string | null;
  from: string;
  to: string;
  reason: string | null;
  detail: string | null;
  at: Time;
}

export function toEventRecord(row: EventRow): EventRecord {
  const event: EventRecord = {
    id: Number(row.id),
    planId: row.planId,
    kind: row.kind as EventKind,
    driver: row.driver as Driver,
    from: row.from,
    to: row.to,
    at: toDate(row.at),
  };
  if (row.nodeId !== null) event.nodeId = row.nodeId;
  if (row.actor !== null) event.actor = row.actor;
  if (row.reason !== null) event.reason = decodeText(row.reason);
  if (row.detail !== null) event.detail = JSON.parse(row.detail) as Record<string, unknown>;
  return event;
}

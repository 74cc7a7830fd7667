/**
 * The run report's content (seed 003's text log, for a person who was not there): one read of a
 * plan, its nodes, revisions, events and LLM calls through the `Dotplan` API, turned into a
 * `RunReport` by a pure function. The renderers (markdown.ts, html.ts) only lay this object out;
 * every rule about what the report says — who reviewed, how long a node took, who answered — is here.
 */
import type { RevisionEntry } from '../operations/options.js';
import type { LlmCallRecord } from '../store/index.js';
import type { EdgeRecord, EventRecord, NodeRecord, PlanRecord } from '../store/types.js';
import { graphOrder } from '../plans/graph-order.js';
import type { Driver, NodeStatus } from '../model/types.js';
import { TERMINAL_NODE_STATUSES } from '../model/status.js';
import { FINISHED_PLAN_STATUSES } from '../state/plan-moves.js';
import type { LlmCallEntry, NodeEntry, QuestionEntry, ReviewEntry, RunReport, TimelineEntry } from './types.js';
import { callView } from '../llm/call-record.js';
import { plural } from '../model/plural.js';

/** What the report reads: the part of `Dotplan` it needs. */
export interface ReportSource {
  plan(id: string): Promise<PlanRecord>;
  nodes(planId: string): Promise<NodeRecord[]>;
  edges(planId: string): Promise<EdgeRecord[]>;
  revisions(planId: string): Promise<RevisionEntry[]>;
  history(planId: string): Promise<EventRecord[]>;
  calls(planId: string): Promise<LlmCallRecord[]>;
}

export interface ReportReads {
  plan: PlanRecord;
  nodes: NodeRecord[];
  edges: EdgeRecord[];
  revisions: RevisionEntry[];
  events: EventRecord[];
  calls: LlmCallRecord[];
}

/** Reads the plan (a NotFoundError for an id that does not exist) and everything the report shows of it. */
export async function collectReport(source: ReportSource, planId: string): Promise<RunReport> {
  const plan = await source.plan(planId);
  const [nodes, edges, revisions, events, calls] = await Promise.all([
    source.nodes(planId),
    source.edges(planId),
    source.revisions(planId),
    source.history(planId),
    source.calls(planId),
  ]);
  return buildReport({ plan, nodes, edges, revisions, events, calls });
}

/** A node's time starts when it runs, or when it starts waiting for an answer (a question never runs). */
const STARTED_NODE: ReadonlySet<string> = new Set<NodeStatus>(['running', 'awaiting_input']);

/** `driver:actor`, or the driver alone — as `plan events` shows who. */
export function who(driver: Driver, actor?: string): string {
  return actor ? `${driver}:${actor}` : driver;
}

export function buildReport({ plan, nodes: stored, edges, revisions, events, calls }: ReportReads): RunReport {
  const nodes = graphOrder(stored, edges);
  const planEvents = events.filter((e) => e.nodeId === undefined);
  const finished = FINISHED_PLAN_STATUSES.has(plan.status);
  const end = finished ? planEvents.findLast((e) => e.kind === 'status' && e.to === plan.status) : undefined;
  const last = end?.at ?? events.at(-1)?.at ?? plan.updatedAt;
  const byNode = new Map<string, EventRecord[]>();
  for (const e of events) {
    if (e.nodeId === undefined) continue;
    const list = byNode.get(e.nodeId);
    if (list) list.push(e);
    else byNode.set(e.nodeId, [e]);
  }
  const promptTokens = calls.reduce((sum, c) => sum + c.promptTokens, 0);
  const completionTokens = calls.reduce((sum, c) => sum + c.completionTokens, 0);
  return {
    plan: {
      id: plan.id,
      title: plan.title,
      ...(plan.attributes.goal !== undefined ? { goal: plan.attributes.goal } : {}),
      status: plan.status,
      mode: plan.mode,
      ...(plan.template !== undefined ? { template: plan.template } : {}),
      params: plan.params,
      revision: plan.revision,
      createdAt: plan.createdAt.toISOString(),
      updatedAt: plan.updatedAt.toISOString(),
      ...(end ? { endedAt: end.at.toISOString() } : {}),
      durationMs: Math.max(0, last.getTime() - plan.createdAt.getTime()),
      finished,
      ...(plan.result !== undefined ? { result: plan.result } : {}),
      ...(plan.error !== undefined ? { error: plan.error } : {}),
    },
    review: { required: plan.attributes.review === 'required', reviews: reviews(planEvents) },
    timeline: events.map(timelineEntry),
    nodes: nodes.map((n) => nodeEntry(n, byNode.get(n.id) ?? [])),
    questions: nodes.filter((n) => n.type === 'confirm' || n.attributes.question !== undefined).map((n) => questionEntry(n, byNode.get(n.id) ?? [])),
    revisions: revisions.map((r) => ({
      number: r.number,
      ...(r.parent !== undefined ? { parent: r.parent } : {}),
      author: r.author,
      ...(r.driver !== undefined ? { who: who(r.driver, r.by) } : {}),
      ...(r.changes !== undefined ? { changes: r.changes } : {}),
      at: r.createdAt.toISOString(),
      ...(r.updateLog !== undefined ? { updateLog: r.updateLog } : {}),
    })),
    llm: { calls: calls.map(callEntry), promptTokens, completionTokens, totalTokens: promptTokens + completionTokens },
  };
}

/**
 * Who reviewed the plan and how: its `review` events, and the plan's moves out of `awaiting_review`
 * or to `rejected` that no such event explains (an approval writes both: the event says who and why,
 * the move follows it).
 */
function reviews(planEvents: readonly EventRecord[]): ReviewEntry[] {
  const entries: ReviewEntry[] = [];
  let explained: EventRecord | undefined;
  for (const e of planEvents) {
    if (e.kind === 'review') {
      const decision = e.detail?.decision;
      entries.push(reviewEntry(e, typeof decision === 'string' ? decision : 'reviewed'));
      explained = e;
    } else if (e.kind === 'status' && (e.from === 'awaiting_review' || e.to === 'rejected')) {
      const sameHand = explained !== undefined && explained.driver === e.driver && explained.actor === e.actor;
      if (!sameHand) entries.push(reviewEntry(e, e.to === 'running' ? 'approved' : e.to));
      explained = undefined;
    }
  }
  return entries;
}

function reviewEntry(e: EventRecord, decision: string): ReviewEntry {
  return {
    at: e.at.toISOString(),
    decision,
    driver: e.driver,
    ...(e.actor !== undefined ? { actor: e.actor } : {}),
    who: who(e.driver, e.actor),
    ...(e.reason ? { reason: e.reason } : {}),
  };
}

function timelineEntry(e: EventRecord): TimelineEntry {
  return {
    id: e.id,
    at: e.at.toISOString(),
    ...(e.nodeId !== undefined ? { node: e.nodeId } : {}),
    kind: e.kind,
    who: who(e.driver, e.actor),
    what: describeEvent(e),
    ...(e.reason ? { reason: e.reason } : {}),
  };
}

/** A status move as `from → to`; another event as its kind and what it carried. */
function describeEvent(e: EventRecord): string {
  const detail = e.detail ?? {};
  switch (e.kind) {
    case 'status':
      return `${e.from || '∅'} → ${e.to}`;
    case 'answer':
      return typeof detail.answer === 'string' ? `answer: ${detail.answer}` : 'answer';
    case 'review':
      return typeof detail.decision === 'string' ? `review: ${detail.decision}` : 'review';
    case 'revision':
      if (typeof detail.revision === 'number')
        return `revision ${detail.revision}${typeof detail.changes === 'number' ? ` (${plural(detail.changes, 'change')})` : ''}`;
      return typeof detail.kind === 'string' ? `revision: ${detail.kind}` : 'revision';
    case 'remote':
      // An exchange with an external agent, as redacted when it was recorded.
      return `${typeof detail.direction === 'string' ? detail.direction : 'exchange'}${typeof detail.taskId === 'string' ? ` (task ${detail.taskId})` : ''}${typeof detail.text === 'string' ? `: ${detail.text}` : ''}`;
    default:
      return e.kind;
  }
}

function nodeEntry(n: NodeRecord, events: readonly EventRecord[]): NodeEntry {
  const moves = events.filter((e) => e.kind === 'status');
  // What its last attempt ran with (references resolved, recorded with the move that ended it), else the input as written.
  const ran = moves.findLast((e) => typeof e.detail?.input === 'string')?.detail?.input as string | undefined;
  const input = ran ?? n.attributes.toolInput ?? n.attributes.toolCalls ?? n.attributes.task;
  const start = moves.find((e) => STARTED_NODE.has(e.to));
  const end = TERMINAL_NODE_STATUSES.has(n.status) ? moves.findLast((e) => (TERMINAL_NODE_STATUSES as ReadonlySet<string>).has(e.to)) : undefined;
  const timed = start !== undefined && end !== undefined && end.id > start.id;
  return {
    id: n.id,
    label: n.label ?? n.attributes.label ?? n.id,
    type: n.type,
    status: n.status,
    attempts: n.attempts,
    runs: moves.filter((e) => e.to === 'running').length,
    ...(n.cluster !== undefined ? { cluster: n.cluster } : {}),
    ...(input !== undefined ? { input } : {}),
    ...(n.output !== undefined ? { output: n.output } : {}),
    ...(n.answer !== undefined ? { answer: n.answer } : {}),
    ...(n.error !== undefined ? { error: n.error } : {}),
    ...(start ? { startedAt: start.at.toISOString() } : {}),
    ...(end ? { finishedAt: end.at.toISOString() } : {}),
    ...(timed ? { durationMs: Math.max(0, end.at.getTime() - start.at.getTime()) } : {}),
  };
}

function questionEntry(n: NodeRecord, events: readonly EventRecord[]): QuestionEntry {
  const answered = events.find((e) => e.kind === 'answer');
  const given = answered?.detail?.answer;
  const answer = n.answer ?? (typeof given === 'string' ? given : undefined);
  const { question, options, default: fallback } = n.attributes;
  return {
    node: n.id,
    label: n.label ?? n.attributes.label ?? n.id,
    status: n.status,
    ...(question !== undefined ? { question } : {}),
    ...(options !== undefined ? { options } : {}),
    ...(fallback !== undefined ? { default: fallback } : {}),
    ...(answer !== undefined ? { answer } : {}),
    ...(answered ? { answeredBy: who(answered.driver, answered.actor), answeredAt: answered.at.toISOString() } : {}),
  };
}

function callEntry(c: LlmCallRecord): LlmCallEntry {
  const { diagnostics, ...call } = callView(c);
  return { ...call, ...(Array.isArray(diagnostics) ? { problems: diagnostics.length } : {}) };
}

import { commandLine } from '../../model/command-line.js';
import { NotFoundError } from '../../errors/errors.js';
import type { NodeState, Snapshot } from '../../engine/snapshot.js';
import { startedState } from '../../engine/plan-steps.js';
import type { EventInput, Step } from '../../engine/step.js';
import type { GraphEdge, GraphNode } from '../../model/types.js';
import { NODE_WAITS } from '../../model/waiting.js';
import { encodeText } from '../text.js';
import type { CreatePlanInput } from '../types.js';
import { eventStatements } from './events.js';
import { toEventWrites } from './persist-rows.js';
import { chunk, rowParams, type Queryable, type Statement } from './executor.js';
import { newLeaseToken } from './load.js';

export function planNotFound(id: string): NotFoundError {
  return new NotFoundError(`plan ${JSON.stringify(id)} not found; list the stored plans with \`dotplan plan list\``);
}

export function nodeNotFound(planId: string, nodeId: string): NotFoundError {
  return new NotFoundError(
    `node ${JSON.stringify(nodeId)} not found in plan ${planId}; see its nodes with \`${commandLine('dotplan', 'plan', 'show', planId)}\``,
  );
}

/** A new plan's revision: its rows are written at it, and a plan still at it has not been edited since it was made. */
export const FIRST_REVISION = 1;

/**
 * A new plan's rows: the plan, revision 1, one row per node (its live state and readiness counters
 * from `snapshot`, or as `with.started` says) and per edge, and the creation events, then
 * `with.also` and `with.alongside`. Returns the nodes' row ids. On PostgreSQL a plan of up to 300 nodes
 * is one statement (each write a data-modifying CTE; foreign keys are checked at its end), on SQLite a few.
 */
export async function insertPlan(q: Queryable, input: CreatePlanInput, snapshot: Snapshot, extra: InsertExtras = {}): Promise<InsertedRows> {
  const { also = [], alongside = [], started } = extra;
  const { plan } = snapshot;
  const { graph } = input;
  const writes: Statement[] = [...alongside];
  writes.push({
    sql:
      `INSERT INTO plans (id, title, status, mode, template, params, attributes, revision, error, created_at, updated_at, rerun_of, ` +
      `parent_plan_id, parent_node_id, parent_attempt, root_plan_id, depth, agent_code, instance) VALUES (?, ?, ?, ?, ?, ?, ?, ${FIRST_REVISION}, NULL, NOW, NOW, ?, ?, ?, ?, ?, ?, ?, ?)`,
    params: [
      plan.id,
      encodeText(input.title),
      started?.status ?? plan.status,
      plan.mode,
      input.template ?? null,
      JSON.stringify(input.params ?? {}),
      JSON.stringify(graph.attributes),
      input.rerunOf?.planId ?? null,
      input.child?.parent.planId ?? null,
      input.child?.parent.nodeId ?? null,
      input.child?.parent.attempt ?? null,
      input.child?.rootPlanId ?? null,
      input.child?.depth ?? 0,
      input.child?.agentCode ?? null,
      input.child?.instance ?? null,
    ],
  });
  writes.push({
    sql: `INSERT INTO revisions (plan_id, number, dot, author, update_log, parent, created_at) VALUES (?, ${FIRST_REVISION}, ?, ?, ?, NULL, NOW)`,
    params: [plan.id, encodeText(input.dot), input.author, encodeText(input.updateLog)],
  });
  writes.push(...edgeStatements(plan.id, graph.edges));
  // A child plan is made by the engine for its agent node (the instance names it); any other plan by its author.
  const driver = input.child ? 'engine' : input.author === 'llm' ? 'llm' : input.author === 'person' ? 'person' : 'operator';
  const by = input.actor ?? input.child?.instance;
  const actor = by !== undefined ? { actor: by } : {};
  const events = eventStatements(
    toEventWrites([
      {
        planId: plan.id,
        kind: 'revision',
        driver,
        ...actor,
        reason: input.updateLog ?? (input.template ? `created from template ${input.template}` : 'created'),
        detail: {
          revision: FIRST_REVISION,
          author: input.author,
          ...(input.rerunOf ? { rerunOf: input.rerunOf.planId, ...(input.rerunOf.from !== undefined ? { from: input.rerunOf.from } : {}) } : {}),
        },
      },
      {
        planId: plan.id,
        kind: 'status',
        driver,
        ...actor,
        from: '',
        to: plan.status,
        reason: input.template ? `created from template ${input.template}` : 'created',
      },
      ...(input.events ?? []).map((event) => ({ ...event, planId: plan.id })),
      ...also,
      ...(started?.events ?? []),
    ]),
  );
  writes.push(...events);
  const nodes = nodeStatements(plan.id, started?.status ?? plan.status, graph.nodes, started?.nodes ?? snapshot.nodes, started);
  const out: InsertedRows = { rows: new Map(), leaseExpiresAt: new Map() };
  // One statement only where the order of its parts does not matter (event ids follow one INSERT's rows).
  if (q.dialect === 'postgres' && nodes.length === 1 && events.length <= 1) {
    const ctes = writes.map((w, i) => `w${i} AS (${w.sql})`).join(', ');
    if (extra.last) q.commitWithNext?.();
    addNodeRows(out, await q.all(`WITH ${ctes} ${nodes[0]!.sql}`, [...writes.flatMap((w) => w.params), ...nodes[0]!.params]));
    return out;
  }
  const parts = [...writes.map((w) => ({ ...w, nodes: false })), ...nodes.map((n) => ({ ...n, nodes: true }))];
  for (const [i, part] of parts.entries()) {
    if (extra.last && i === parts.length - 1) q.commitWithNext?.();
    if (part.nodes) addNodeRows(out, await q.all(part.sql, part.params));
    else await q.run(part.sql, part.params);
  }
  return out;
}

/** What else a plan's insert writes, in the same transaction (and on PostgreSQL the same statement). */
export interface InsertExtras {
  /** Events of other plans, after the plan's own: a child's start on its parent node. */
  also?: readonly EventInput[];
  /** Other writes: a parent node's move to wait on its new child. */
  alongside?: readonly Statement[];
  /** The plan's rows as its start leaves them, instead of the start written after them. */
  started?: StartedRows;
  /** The caller sends nothing after the insert: its last statement carries the COMMIT (Queryable.commitWithNext). */
  last?: boolean;
}

/**
 * A plan's rows as its start step leaves them, written with the plan instead of after it (a child
 * plan started by the worker that runs its first nodes): its status after the start, each node's
 * state after it, row ids reserved beforehand (reservedNodeIds) so that a node handed to the worker
 * is inserted with its lease (token `<row id>.<random>`, as a claim makes it), and the start's events.
 */
export interface StartedRows {
  status: string;
  nodes: ReadonlyMap<string, NodeState>;
  /** Row ids, one per graph node in order; none where no node is handed over (the rows then take new ids). */
  ids: readonly number[];
  /** The nodes handed to a worker: its id, the lease token, the lease's length in ms. */
  leases: ReadonlyMap<string, { owner: string; token: string; ms: number }>;
  events: readonly EventInput[];
}

/**
 * A new plan's rows as its start step leaves them (StartedRows), where the start only makes nodes ready
 * and hands some to `handOff`'s worker — a child plan started by the worker that runs it (`ids`: its
 * reserved row ids, the lease tokens carry them), or a plan made by a command (no ids, nothing handed
 * over); undefined for any other start, which is written as a step after the rows.
 */
export function startedRows(
  snapshot: Snapshot,
  step: Step,
  ids: readonly number[] = [],
  handOff?: { owner: string; leaseMs: number },
): StartedRows | undefined {
  const state = startedState(snapshot, step);
  if (!state) return undefined;
  // Row ids follow the graph's node order, as the snapshot's.
  const rowIds = new Map([...snapshot.nodes.keys()].map((node, i) => [node, ids[i]]));
  const leases = new Map<string, { owner: string; token: string; ms: number }>();
  for (const change of step.changes) {
    if (!change.claim) continue;
    const rowId = rowIds.get(change.node);
    if (!handOff || rowId === undefined) return undefined;
    leases.set(change.node, { owner: handOff.owner, token: newLeaseToken(rowId), ms: handOff.leaseMs });
  }
  return { status: state.status, nodes: state.nodes, ids, leases, events: step.events };
}

/** Node id → row id; and for nodes inserted with a lease, when it runs out (database clock, ms). */
export interface InsertedRows {
  rows: Map<string, number>;
  leaseExpiresAt: Map<string, number>;
}

/**
 * Row ids for new nodes, taken before their INSERT: an expression to read in a statement (`sql`),
 * and its value as the ids (`ids`). PostgreSQL takes them from the sequence; SQLite, whose
 * write transaction holds the database, counts on from past every id ever used (AUTOINCREMENT).
 */
export const reservedNodeIds = {
  /** The expression and its parameters. */
  sql(dialect: Queryable['dialect'], count: number): Statement {
    return dialect === 'postgres'
      ? // One array element per id, not generate_series(1, n): a row count in a parameter made PostgreSQL plan the read afresh each time.
        { sql: `(SELECT json_agg(nextval('nodes_id_seq')) FROM unnest(CAST(? AS int[])))`, params: [Array.from({ length: count }, () => 1)] }
      : { sql: `MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'nodes'), 0), COALESCE((SELECT MAX(id) FROM nodes), 0))`, params: [] };
  },
  ids(value: unknown, count: number): number[] {
    return Array.isArray(value) ? value.map(Number) : Array.from({ length: count }, (_, i) => Number(value) + i + 1);
  },
};

/**
 * Node rows for graph nodes with their live state, in a plan whose row the caller holds (its status
 * as read under that lock); returns node id → row id.
 */
export async function insertNodes(
  q: Queryable,
  planId: string,
  planStatus: string,
  nodes: readonly GraphNode[],
  states: ReadonlyMap<string, NodeState>,
): Promise<Map<string, number>> {
  const out: InsertedRows = { rows: new Map(), leaseExpiresAt: new Map() };
  for (const part of nodeStatements(planId, planStatus, nodes, states)) addNodeRows(out, await q.all(part.sql, part.params));
  return out.rows;
}

/** The INSERTs of node rows, 300 a statement; for a plan inserted as started, with their ids and the handed nodes' leases. */
function nodeStatements(
  planId: string,
  planStatus: string,
  nodes: readonly GraphNode[],
  states: ReadonlyMap<string, NodeState>,
  started?: StartedRows,
): Statement[] {
  // A node of a plan that is not running is held (migration 0010: claims do not scan it); the trigger
  // on plans keeps the flag when the plan's status crosses running later.
  const held = planStatus === 'running' ? 0 : 1;
  const ids = new Map(nodes.map((node, i) => [node.id, started?.ids[i]]));
  // NOW + NULL is NULL: a node not handed over has no lease. Rows of a plan started with no node handed over take new ids.
  const reserved = started !== undefined && started.ids.length > 0 ? started : undefined;
  const leased = reserved
    ? { columns: ', id, attempts, lease_owner, lease_token, lease_expires_at, started_at', values: ', ?, ?, ?, ?, NOW + ?, CASE WHEN ? = 1 THEN NOW END' }
    : { columns: '', values: '' };
  return chunk(nodes, 300).map((part) => {
    // A node born waiting for an answer (the LLM may add one) waits from now.
    const values = part.map(() => `(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NOW, CASE WHEN ? = 1 THEN NOW END, ${held}${leased.values})`).join(', ');
    return {
      sql:
        `INSERT INTO nodes (plan_id, node_id, type, status, label, attributes, cluster, output, answer, error, waiting, taken, updated_at, waiting_since, held${leased.columns}) ` +
        `VALUES ${values} RETURNING id, node_id AS "nodeId"${reserved ? ', lease_expires_at AS "leaseExpiresAt"' : ''}`,
      params: rowParams(part, (node) => {
        const state = states.get(node.id)!;
        if (!reserved) return nodeValues(planId, node, state);
        const lease = reserved.leases.get(node.id);
        return [
          ...nodeValues(planId, node, state),
          ids.get(node.id)!,
          state.attempts,
          lease?.owner ?? null,
          lease?.token ?? null,
          lease?.ms ?? null,
          lease ? 1 : 0,
        ];
      }),
    };
  });
}

function addNodeRows(out: InsertedRows, rows: ReadonlyArray<{ id: number | string; nodeId: string; leaseExpiresAt?: number | string | null }>): void {
  for (const row of rows) {
    out.rows.set(row.nodeId, Number(row.id));
    if (row.leaseExpiresAt !== undefined && row.leaseExpiresAt !== null) out.leaseExpiresAt.set(row.nodeId, Number(row.leaseExpiresAt));
  }
}

export async function insertEdges(q: Queryable, planId: string, edges: readonly GraphEdge[]): Promise<void> {
  for (const write of edgeStatements(planId, edges)) await q.run(write.sql, write.params);
}

function edgeStatements(planId: string, edges: readonly GraphEdge[]): Statement[] {
  return chunk(edges).map((part) => ({
    sql: `INSERT INTO edges (plan_id, from_node, to_node, when_match) VALUES ${part.map(() => '(?, ?, ?, ?)').join(', ')}`,
    params: rowParams(part, (e) => [planId, e.from, e.to, encodeText(e.attributes.when)]),
  }));
}

function nodeValues(planId: string, node: GraphNode, state: NodeState): unknown[] {
  return [
    planId,
    node.id,
    state.type,
    state.status,
    encodeText(node.attributes.label),
    JSON.stringify(state.attributes ?? {}),
    encodeText(node.cluster),
    encodeText(state.output),
    encodeText(state.answer),
    encodeText(state.error),
    state.waiting,
    state.taken,
    state.status === NODE_WAITS ? 1 : 0,
  ];
}

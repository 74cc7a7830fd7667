import { randomUUID } from 'node:crypto';
import { decodeText } from '../text.js';
import type { NodeState, OutEdge, PlanState } from '../../engine/snapshot.js';
import type { PlanStatus } from '../../model/types.js';
import { parseJsonObject, stateColumns, toNodeState, type StateRow } from '../rows.js';
import { chunk, forUpdate, marks, NO_SQL, type Queryable, type Statement } from './executor.js';

/**
 * Loading what a step reads, inside the transaction that will write it: on PostgreSQL the node rows
 * are locked (in id order, so that two transactions never wait on each other in a circle). A
 * loaded node's dependents are loaded with its outgoing edges, so a snapshot never holds a node's
 * edges without the nodes they lead to.
 */
export interface LoadedPlan {
  plan: PlanState;
  params: Record<string, string>;
  /** A child plan's agent (whose `agents` say which agents its agent nodes may call). */
  agent?: string;
  nodes: Map<string, NodeState>;
  edges: Map<string, OutEdge[]>;
  /** Node id → row id, for the write. */
  rows: Map<string, number>;
}

/** A node row as a step reads it (stateColumns), with its row id. */
export type Row = StateRow & { rowId: number };
const COLUMNS = `${stateColumns()}, id AS "rowId"`;

interface PlanRow {
  status: string;
  mode: string;
  attributes: string;
  params: string;
  parentPlanId: string | null;
  parentNodeId: string | null;
  root: string | null;
  agent: string | null;
}
const PLAN_FIELDS = `status, mode, attributes, params, parent_plan_id AS "parentPlanId", parent_node_id AS "parentNodeId", root_plan_id AS "root", agent_code AS "agent"`;

export async function loadPlan(q: Queryable, planId: string, lock: boolean): Promise<LoadedPlan | undefined> {
  const [row] = await q.all<PlanRow>(`SELECT ${PLAN_FIELDS} FROM plans WHERE id = ?${lock ? forUpdate(q) : ''}`, [planId]);
  return row ? loadedOf(planId, row) : undefined;
}

/** What loadPlan and loadNodes read, as columns of a plans row `p` and a nodes row `n`, for a read that joins them to others. */
export const LOADED_COLUMNS = {
  plan: `p.status AS "planStatus", p.mode AS "planMode", p.attributes AS "planAttributes", p.params AS "planParams", p.parent_plan_id AS "planParentPlanId", p.parent_node_id AS "planParentNodeId", p.root_plan_id AS "planRoot", p.agent_code AS "planAgent"`,
  node: `${stateColumns('n.')}, n.id AS "rowId"`,
};

/** A plan with one node, from a row read with LOADED_COLUMNS. */
export function loadedFromColumns(planId: string, row: Row & LoadedPlanColumns): LoadedPlan {
  const loaded = planOf(planId, row);
  addRows(loaded, [row]);
  return loaded;
}

/** The plan alone (no node yet), from a row read with LOADED_COLUMNS.plan: what loadPlan makes of its row. */
export function planOf(planId: string, row: LoadedPlanColumns): LoadedPlan {
  return loadedOf(planId, {
    status: row.planStatus,
    mode: row.planMode,
    attributes: row.planAttributes,
    params: row.planParams,
    parentPlanId: row.planParentPlanId,
    parentNodeId: row.planParentNodeId,
    root: row.planRoot,
    agent: row.planAgent,
  });
}

export interface LoadedPlanColumns {
  planStatus: string;
  planMode: string;
  planAttributes: string;
  planParams: string;
  planParentPlanId: string | null;
  planParentNodeId: string | null;
  planRoot: string | null;
  planAgent: string | null;
}

function loadedOf(planId: string, row: PlanRow): LoadedPlan {
  const plan: PlanState = { id: planId, status: row.status as PlanStatus, mode: row.mode, attributes: parseJsonObject(row.attributes) };
  if (row.parentPlanId !== null && row.parentNodeId !== null) plan.parent = { planId: row.parentPlanId, nodeId: row.parentNodeId };
  if (row.root !== null) plan.root = row.root;
  return {
    plan,
    params: parseJsonObject(row.params),
    ...(row.agent !== null ? { agent: row.agent } : {}),
    nodes: new Map(),
    edges: new Map(),
    rows: new Map(),
  };
}

/** Adds these nodes (locked) to the loaded plan; returns the ids that exist. */
export async function loadNodes(q: Queryable, loaded: LoadedPlan, ids: readonly string[]): Promise<string[]> {
  const wanted = ids.filter((id) => !loaded.nodes.has(id));
  for (const part of chunk(wanted)) {
    const rows = await q.all<Row>(`SELECT ${COLUMNS} FROM nodes WHERE plan_id = ? AND node_id IN (${marks(part.length)}) ORDER BY id${forUpdate(q)}`, [
      loaded.plan.id,
      ...part,
    ]);
    addRows(loaded, rows);
  }
  return ids.filter((id) => loaded.nodes.has(id));
}

/** Adds the outgoing edges of these nodes and the nodes they lead to (locked). */
export async function loadDependents(q: Queryable, loaded: LoadedPlan, sources: readonly string[]): Promise<void> {
  const wanted = sources.filter((id) => !loaded.edges.has(id));
  if (wanted.length > 0) addDependents(loaded, wanted, await readDependents(q, loaded.plan.id, wanted));
}

/** An outgoing edge (its id: the order of a node's edges) with the node it leads to. */
export type DependentRow = Row & { edgeId: number; from: string; when: string | null };

/**
 * The outgoing edges of these nodes with the nodes they lead to, locked in row id order, in one read
 * (per chunk of sources): to be added with addDependents — read at once with other reads where the
 * plan is known beforehand (a finish's, pipelined).
 */
export async function readDependents(q: Queryable, planId: string, sources: readonly string[]): Promise<DependentRow[]> {
  const out: DependentRow[] = [];
  for (const part of chunk(sources))
    out.push(...(await readDependentsOf(q, { plan: { sql: '?', params: [planId] }, nodes: { sql: marks(part.length), params: part } })));
  return out;
}

/** readDependents with the plan and the sources as SQL (`nodes`: a list for IN), and a further condition. */
export function readDependentsOf(q: Queryable, of: { plan: Statement; nodes: Statement }, gate: Statement = NO_SQL): Promise<DependentRow[]> {
  const read = dependentsOf(q, of, gate);
  return q.all<DependentRow>(read.sql, read.params);
}

/** readDependentsOf's statement, for a read that makes it one of its parts. */
export function dependentsOf(q: Queryable, of: { plan: Statement; nodes: Statement }, gate: Statement = NO_SQL): Statement {
  return {
    sql:
      `SELECT e.id AS "edgeId", e.from_node AS "from", e.when_match AS "when", ${LOADED_COLUMNS.node} FROM edges e ` +
      `JOIN nodes n ON n.plan_id = e.plan_id AND n.node_id = e.to_node WHERE e.plan_id = ${of.plan.sql} AND e.from_node IN (${of.nodes.sql})${gate.sql} ORDER BY n.id${forUpdate(q, 'OF n')}`,
    params: [...of.plan.params, ...of.nodes.params, ...gate.params],
  };
}

/** Adds what readDependents read of these sources: their edges, in edge order, and the nodes they lead to. */
export function addDependents(loaded: LoadedPlan, sources: readonly string[], rows: readonly DependentRow[]): void {
  const wanted = new Set(sources.filter((id) => !loaded.edges.has(id)));
  for (const id of wanted) loaded.edges.set(id, []);
  addRows(loaded, rows);
  for (const row of [...rows].sort((a, b) => Number(a.edgeId) - Number(b.edgeId))) {
    if (!wanted.has(row.from)) continue;
    loaded.edges.get(row.from)!.push(row.when === null ? { to: row.nodeId } : { to: row.nodeId, when: decodeText(row.when) });
  }
}

/** Adds the pending nodes whose sources have all finished, and pending roots; returns their ids in order. */
export async function loadCandidates(q: Queryable, loaded: LoadedPlan): Promise<string[]> {
  const rows = await q.all<Row & { root: boolean | number }>(
    `SELECT ${COLUMNS}, NOT EXISTS (SELECT 1 FROM edges e WHERE e.plan_id = nodes.plan_id AND e.to_node = nodes.node_id) AS "root" ` +
      `FROM nodes WHERE plan_id = ? AND status = 'pending' AND waiting = 0 ORDER BY id${forUpdate(q)}`,
    [loaded.plan.id],
  );
  addRows(loaded, rows);
  for (const row of rows) loaded.nodes.get(row.nodeId)!.root = row.root === true || row.root === 1;
  return rows.map((r) => r.nodeId);
}

/** Every node (locked, unless only read) and edge of the plan. */
export async function loadAll(q: Queryable, loaded: LoadedPlan, lock = true): Promise<void> {
  const rows = await q.all<Row>(`SELECT ${COLUMNS} FROM nodes WHERE plan_id = ? ORDER BY id${lock ? forUpdate(q) : ''}`, [loaded.plan.id]);
  addRows(loaded, rows);
  const edges = await q.all<{ from: string; to: string; when: string | null }>(
    `SELECT from_node AS "from", to_node AS "to", when_match AS "when" FROM edges WHERE plan_id = ? ORDER BY id`,
    [loaded.plan.id],
  );
  for (const node of loaded.nodes.keys()) if (!loaded.edges.has(node)) loaded.edges.set(node, []);
  for (const edge of edges) loaded.edges.get(edge.from)?.push(edge.when === null ? { to: edge.to } : { to: edge.to, when: decodeText(edge.when) });
}

/**
 * Many plans at once (a cascade down a tree): the plans locked, and for `all` every node (locked)
 * and edge of each — a constant number of statements whatever the number of plans.
 */
export async function loadMany(q: Queryable, planIds: readonly string[], options: { all: boolean }): Promise<Map<string, LoadedPlan>> {
  const out = new Map<string, LoadedPlan>();
  for (const part of chunk(planIds)) {
    const rows = await q.all<PlanRow & { id: string }>(
      `SELECT id, ${PLAN_FIELDS} FROM plans WHERE id IN (${marks(part.length)}) ORDER BY id${forUpdate(q)}`,
      part,
    );
    for (const row of rows) out.set(row.id, loadedOf(row.id, row));
  }
  if (!options.all || out.size === 0) return out;
  for (const part of chunk([...out.keys()])) {
    const nodes = await q.all<Row>(`SELECT ${COLUMNS} FROM nodes WHERE plan_id IN (${marks(part.length)}) ORDER BY id${forUpdate(q)}`, part);
    for (const row of nodes) addRows(out.get(row.planId)!, [row]);
    const edges = await q.all<{ plan: string; from: string; to: string; when: string | null }>(
      `SELECT plan_id AS "plan", from_node AS "from", to_node AS "to", when_match AS "when" FROM edges WHERE plan_id IN (${marks(part.length)}) ORDER BY id`,
      part,
    );
    for (const id of part) {
      const loaded = out.get(id)!;
      for (const node of loaded.nodes.keys()) if (!loaded.edges.has(node)) loaded.edges.set(node, []);
    }
    for (const edge of edges)
      out
        .get(edge.plan)!
        .edges.get(edge.from)
        ?.push(edge.when === null ? { to: edge.to } : { to: edge.to, when: decodeText(edge.when) });
  }
  return out;
}

/** A running node still held by this lease token, locked, with its lease token. */
export interface LeasedRow extends Row {
  leaseToken: string | null;
}

/** The leased rows lockLeased read, and each one's plan as planOf takes it. */
export interface Leased {
  rows: LeasedRow[];
  plans: Map<string, LoadedPlanColumns>;
}

/**
 * The running rows of these ids, locked in id order, and their plans as loadPlan reads them; `first`: a
 * condition the first read takes first (the tree lock, withTreeLock). PostgreSQL reads each row with its
 * plan, key-share locked (read as it is once the lock is had, not as the statement's snapshot saw it
 * before — the tree lock, say — and taken anyway by the write's checks). SQLite, whose write transaction
 * holds the whole file, reads the plans apart, once each: a finish's rows are mostly of one plan, and
 * each column a row carries costs the driver a property per row.
 */
export async function lockLeased(q: Queryable, rowIds: readonly number[], first: Statement = NO_SQL): Promise<Leased> {
  const onPostgres = q.dialect === 'postgres';
  const rows: Array<LeasedRow & Partial<LoadedPlanColumns>> = [];
  const locks = onPostgres ? `${forUpdate(q, 'OF n')} FOR KEY SHARE OF p` : '';
  const plan = onPostgres ? `, ${LOADED_COLUMNS.plan} FROM nodes n JOIN plans p ON p.id = n.plan_id` : ' FROM nodes n';
  for (const [i, part] of chunk(rowIds).entries()) {
    const before = i === 0 ? first : NO_SQL;
    rows.push(
      ...(await q.all<LeasedRow & Partial<LoadedPlanColumns>>(
        `SELECT ${LOADED_COLUMNS.node}, n.lease_token AS "leaseToken"${plan} WHERE n.id IN (${marks(part.length)}) AND n.status = 'running'${before.sql} ORDER BY n.id${locks}`,
        [...part, ...before.params],
      )),
    );
  }
  const plans = new Map<string, LoadedPlanColumns>();
  if (onPostgres) {
    for (const row of rows) if (!plans.has(row.planId)) plans.set(row.planId, row as LoadedPlanColumns);
  } else {
    const ids = [...new Set(rows.map((row) => row.planId))];
    for (const part of chunk(ids)) {
      const read = await q.all<LoadedPlanColumns & { id: string }>(
        `SELECT p.id, ${LOADED_COLUMNS.plan} FROM plans p WHERE p.id IN (${marks(part.length)})`,
        part,
      );
      for (const row of read) plans.set(row.id, row);
    }
  }
  return { rows, plans };
}

/** Adds node rows read (and locked) in this transaction — by a loader here, or the leased rows of a finish — unless already there. */
export function addRows(loaded: LoadedPlan, rows: readonly Row[]): void {
  for (const row of rows) {
    if (loaded.nodes.has(row.nodeId)) continue;
    loaded.nodes.set(row.nodeId, toNodeState(row));
    loaded.rows.set(row.nodeId, Number(row.rowId));
  }
}

/** A new lease token for the node in row `rowId` (as claims make them in SQL: `<row id>.<32 random hex digits>`). */
export function newLeaseToken(rowId: number): string {
  // A UUID's 122 random bits as 32 hex digits (Node draws UUIDs from a buffered pool: no system call per token).
  return `${rowId}.${randomUUID().replaceAll('-', '')}`;
}

/** The node id a lease token's row holds: tokens are `<row id>.<random>`. */
export function tokenRowId(token: string): number | undefined {
  const id = Number(token.slice(0, token.indexOf('.')));
  return Number.isSafeInteger(id) && id > 0 ? id : undefined;
}

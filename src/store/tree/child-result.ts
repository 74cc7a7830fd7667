import { REPLAN_REQUESTED } from '../../model/replan.js';
import { resolveReferences } from '../../execute/resolve-input.js';
import type { PlanStatus } from '../../model/types.js';
import type { AttemptResult } from '../../engine/attempts.js';
import { chunk, forUpdate, marks, NO_SQL, type Queryable, type Statement } from '../sql/executor.js';
import { LOADED_COLUMNS, loadedFromColumns, type LoadedPlan, type LoadedPlanColumns, type Row } from '../sql/load.js';
import { parseJsonObject } from '../rows.js';
import { decodeText } from '../text.js';
import { groupBy } from '../../model/group-by.js';

/** A child plan's end as its parent node's step needs it, with the node's link to it. */
export interface ChildEnd {
  mode: string;
  attributes: string;
  params: string;
  result: string | null;
  error: string | null;
  instance: string | null;
  /** The parent node: its status, the child it waits on, its lease (none while it waits). */
  status: string;
  child: string | null;
  leased: string | null;
  /** A completed child without a result of its own: its nodes (a workflow child's result is made of them), in order. */
  nodes: ChildNode[] | null;
}

export interface ChildNode {
  id: string;
  status: string;
  output: string | null;
  answer: string | null;
  sink: number | boolean;
}

/**
 * Whether the child's node `x` is a sink (no edge leaves it): counted, not `NOT EXISTS`, which the
 * planner turns into a hash of every edge of every plan (a scan of the whole table) even for a child
 * of one node.
 */
const SINK = `(SELECT COUNT(*) FROM edges e WHERE e.plan_id = x.plan_id AND e.from_node = x.node_id) = 0`;

/**
 * ChildEnd.nodes in SQL: each node of the child `c` with whether it is a sink, as a JSON array; two
 * parameters: the child is completing in this write, and the child's id — a constant, not `c.id`:
 * statistics taken while one large plan filled `nodes` make any plan's nodes look like all of them to
 * a correlated `plan_id = c.id`, which is then read with a scan of the whole table.
 */
function childNodes(q: Queryable): string {
  const fields = `'id', x.node_id, 'status', x.status, 'output', x.output, 'answer', x.answer, 'sink', ${SINK}`;
  const nodes =
    q.dialect === 'postgres'
      ? `(SELECT json_agg(json_build_object(${fields}) ORDER BY x.id) FROM nodes x WHERE x.plan_id = ?)`
      : `(SELECT json_group_array(json_object(${fields})) FROM (SELECT * FROM nodes WHERE plan_id = ? ORDER BY id) x)`;
  return `CASE WHEN (c.status = 'completed' OR ? = 1) AND c.result IS NULL THEN ${nodes} END`;
}

/**
 * The child's nodes as rows (ChildEnd.nodes), in order, on `gate`'s condition: for a read that runs
 * beside the link read rather than inside it (readAhead's), where the JSON aggregate would cost more to
 * plan, on every call, than the rest of the read together.
 */
export function readChildNodes(q: Queryable, childId: string, gate: Statement): Promise<ChildNode[]> {
  return q.all<ChildNode>(
    `SELECT x.node_id AS "id", x.status, x.output, x.answer, ${SINK} AS "sink" FROM nodes x WHERE x.plan_id = ?${gate.sql} ORDER BY x.id`,
    [childId, ...gate.params],
  );
}

/** The columns of childLink's read: the child's end, the parent node's link to it, the parent plan and node (linkOf makes them the parent node's step's input). */
export type ChildLinkRow = Pick<ChildEnd, 'child' | 'leased'> &
  Record<'childMode' | 'childAttributes' | 'childParams', string> & { childRevision: number | string } & Record<
    'childResult' | 'childError' | 'childInstance',
    string | null
  > & { nodes: ChildNode[] | string | null } & Row &
  LoadedPlanColumns;

/** The child's columns and its parent node's link (named apart from LOADED_COLUMNS.node, which has its own attributes, error, ...). */
const LINK_COLUMNS =
  `c.mode AS "childMode", c.attributes AS "childAttributes", c.params AS "childParams", c.result AS "childResult", c.error AS "childError", ` +
  `c.instance AS "childInstance", c.revision AS "childRevision", n.child_plan_id AS "child", n.lease_token AS "leased"`;

/** A child's end read with its parent plan and node: what the parent node's step takes (linkOf). */
export interface ChildLinked {
  end: ChildEnd;
  parent: LoadedPlan;
}

/**
 * childLink's read: the parent node named by `parent`'s SQL (two expressions and their parameters) —
 * the ids as constants, or (readAhead) as the child row's columns in one-time subqueries — with `gate`
 * a further condition and `columns` further columns (readAhead's); `nodes`: the child's nodes are read
 * if it has completed, or even though it has not completed yet (`ending`), or not here (`apart`: the
 * caller reads them with readChildNodes).
 */
export async function readChildLink<Columns extends object = object>(
  q: Queryable,
  childId: string,
  parent: { plan: Statement; node: Statement },
  nodes: 'if completed' | 'ending' | 'apart',
  gate: Statement = NO_SQL,
  columns?: Statement,
): Promise<(ChildLinkRow & Columns) | undefined> {
  const more = columns ? { sql: `, ${columns.sql}`, params: columns.params } : NO_SQL;
  const read: Statement = nodes === 'apart' ? { sql: 'NULL', params: [] } : { sql: childNodes(q), params: [nodes === 'ending' ? 1 : 0, childId] };
  const [row] = await q.all<ChildLinkRow & Columns>(
    `SELECT ${LINK_COLUMNS}, ${read.sql} AS "nodes"${more.sql}, ${LOADED_COLUMNS.plan}, ${LOADED_COLUMNS.node} ` +
      `FROM nodes n JOIN plans p ON p.id = n.plan_id JOIN plans c ON c.id = ? AND c.parent_plan_id = n.plan_id AND c.parent_node_id = n.node_id ` +
      `WHERE n.plan_id = ${parent.plan.sql} AND n.node_id = ${parent.node.sql}${gate.sql}${forUpdate(q, 'OF n, p')}`,
    [...read.params, ...more.params, childId, ...parent.plan.params, ...parent.node.params, ...gate.params],
  );
  return row;
}

/**
 * The links of several children at once (a cascade ends many), keyed by child id, without the
 * children's nodes (for children that ended otherwise than completed: read their ends with childLink):
 * one read per parent plan and 200 children instead of one each. As in childLink, the parent nodes are
 * looked up by the ids the children name, as constants (the plan's id and its nodes' ids): joined
 * through the children's rows, statistics of many one-node plans make the planner look a parent node
 * up by its plan alone, walking every node of a large parent plan once per child. The parent rows are
 * locked in row id order.
 */
export async function readChildLinks(
  q: Queryable,
  children: ReadonlyArray<{ id: string; parent: { planId: string; nodeId: string } }>,
): Promise<Map<string, ChildLinkRow>> {
  const out = new Map<string, ChildLinkRow>();
  for (const [planId, all] of groupBy(children, (child) => child.parent.planId)) {
    for (const part of chunk(all, 200)) {
      const ids = part.map((c) => c.id);
      const nodes = [...new Set(part.map((c) => c.parent.nodeId))];
      const rows = await q.all<ChildLinkRow & { childId: string }>(
        `SELECT c.id AS "childId", ${LINK_COLUMNS}, NULL AS "nodes", ${LOADED_COLUMNS.plan}, ${LOADED_COLUMNS.node} ` +
          `FROM nodes n JOIN plans p ON p.id = n.plan_id JOIN plans c ON c.id IN (${marks(ids.length)}) AND c.parent_plan_id = n.plan_id AND c.parent_node_id = n.node_id ` +
          `WHERE n.plan_id = ? AND n.node_id IN (${marks(nodes.length)}) ORDER BY n.id${forUpdate(q, 'OF n, p')}`,
        [...ids, planId, ...nodes],
      );
      for (const row of rows) out.set(row.childId, row);
    }
  }
  return out;
}

/**
 * The child plan's end and its parent node's link to it, with the parent plan and node loaded and
 * locked for the parent node's step, in one read (undefined: no such child, or its node is gone).
 * The parent node is looked up by the ids the child names (`parent`), as constants: joined through the
 * child's row, the planner may walk `nodes` in plan order up to the parent's plan (a merge join, which
 * statistics of a few large plans make look cheap). `ending`: the child completes in the write being
 * prepared (its nodes as that write leaves them are laid over what is read: node id → status and,
 * where the write sets it, output as stored).
 */
export async function childLink(
  q: Queryable,
  childId: string,
  parent: { planId: string; nodeId: string },
  ending?: ChildEnding,
): Promise<ChildLinked | undefined> {
  const row = await readChildLink(
    q,
    childId,
    { plan: { sql: '?', params: [parent.planId] }, node: { sql: '?', params: [parent.nodeId] } },
    ending !== undefined ? 'ending' : 'if completed',
  );
  return row && linkOf(row, ending);
}

/** The child's nodes as the write that ends it leaves them: node id → status and, where the write sets it, output as stored. */
export type ChildEnding = ReadonlyMap<string, { status: string; output?: string | null }>;

/** A read link row as the parent node's step takes it, with the child's nodes as `ending` leaves them laid over. */
export function linkOf(row: ChildLinkRow, ending?: ChildEnding): ChildLinked {
  const nodes = typeof row.nodes === 'string' ? (JSON.parse(row.nodes) as ChildNode[]) : row.nodes?.map((n) => ({ ...n }));
  for (const node of nodes ?? []) {
    const after = ending?.get(node.id);
    if (after) Object.assign(node, { status: after.status }, after.output !== undefined ? { output: after.output } : {});
  }
  const end: ChildEnd = {
    mode: row.childMode,
    attributes: row.childAttributes,
    params: row.childParams,
    result: row.childResult,
    error: row.childError,
    instance: row.childInstance,
    status: row.status,
    child: row.child,
    leased: row.leased,
    nodes: nodes ?? null,
  };
  return { end, parent: loadedFromColumns(row.planId, row) };
}

/**
 * What a child plan's end makes of its parent node's attempt (SPEC-level words in the README's
 * "Agents"): completed → done with the child's result (a reflection or ReAct child's final answer; a
 * workflow child's graph attribute `output`, references resolved, else its sink nodes' outputs as a
 * JSON object); failed → failed with the child's error and id (retryable per the node's retries,
 * except a re-plan request); cancelled → failed naming who cancelled it, not retried.
 */
export function childResult(childId: string, plan: ChildEnd, to: PlanStatus, by: { actor?: string; reason?: string }): AttemptResult {
  const name = `child plan ${childId}${plan.instance ? ` (${plan.instance})` : ''}`;
  if (to === 'cancelled') {
    const who = by.actor ? ` by ${by.actor}` : '';
    return { kind: 'failed', error: `${name} was cancelled${who}${by.reason ? `: ${by.reason}` : ''}`, retryable: false };
  }
  if (to !== 'completed') {
    const error = decodeText(plan.error) ?? `it ended ${to}`;
    const replan = error.startsWith(REPLAN_REQUESTED);
    return { kind: 'failed', error: replan ? error : `${name} failed: ${error}`, retryable: !replan };
  }
  if (plan.result !== null) return { kind: 'done', output: decodeText(plan.result) ?? '' };
  const nodes = plan.nodes ?? [];
  const byId = new Map(nodes.map((n) => [n.id, { status: n.status, output: decodeText(n.output), answer: decodeText(n.answer) }]));
  const output = parseJsonObject(plan.attributes).output;
  if (output !== undefined) {
    try {
      return { kind: 'done', output: resolveReferences(output, { params: parseJsonObject(plan.params), nodes: (id) => byId.get(id) }) };
    } catch (error) {
      return {
        kind: 'failed',
        error: `${name}: its output="${output}" could not be resolved: ${error instanceof Error ? error.message : String(error)}`,
        retryable: false,
      };
    }
  }
  const sinks = nodes.filter((n) => n.sink === true || n.sink === 1);
  return { kind: 'done', output: JSON.stringify(Object.fromEntries(sinks.map((n) => [n.id, decodeText(n.output) ?? decodeText(n.answer) ?? null]))) };
}

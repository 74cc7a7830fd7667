import { ACTIVE_NODE_STATUSES } from '../sql/waits.js';
import { marks, NO_SQL, type Queryable, type Statement } from '../sql/executor.js';
import { dependentsOf, type DependentRow, type Row } from '../sql/load.js';
import { FIRST_REVISION, reservedNodeIds } from '../sql/plans.js';
import type { SlotRead } from '../sql/tree.js';
import { readChildLink, readChildNodes, type ChildLinkRow } from './child-result.js';

/** Row ids reserved ahead for a child the parent node's end may start next (a child with more nodes reserves its own). */
export const IDS_AHEAD = 8;

/**
 * What a child plan's end needs, read with a finish's first reads (in their round trip, on
 * PostgreSQL) instead of after the step is decided: whether the child has anything active besides the
 * finishing nodes and, when it has not (it may end in this write), the parent node's link and the
 * nodes after it, locked as the read after would lock them. Read under the tree's lock, which the
 * finish's first read takes: no other writer of the tree interleaves, so what is read here is what a
 * read just before the write would see.
 */
export interface ChildAhead {
  childId: string;
  /** The finishing nodes the read looked past. */
  besides: ReadonlySet<string>;
  /** The finishing nodes' own dependents in the child, locked, read in the same statement as the parent node's (readDependents' rows). */
  own: DependentRow[];
  /**
   * Present when the child had nothing active besides those nodes: whether another of its nodes
   * failed, the link, the parent node's dependents, and what starting a child of an agent node that
   * the parent node's end hands over needs (its plan's depth, the root's counts, IDS_AHEAD row ids).
   */
  end?: { failed: boolean; link: ChildLinkRow; dependents: DependentRow[]; slot: { planId: string; root: string; read: SlotRead } };
}

/**
 * The slot a finish read ahead with its ending child (`end.slot`), for a child started in plan
 * `planId` of tree `root` — the ending child's parent plan; undefined for a child anywhere else.
 */
export function slotAhead(steps: ReadonlyArray<{ ahead?: ChildAhead }>, planId: string, root: string): SlotRead | undefined {
  const slot = steps.find((s) => s.ahead?.end)?.ahead?.end?.slot;
  return slot && slot.planId === planId && slot.root === root ? slot.read : undefined;
}

/** What the link read adds for the read-ahead: whether another node of the child failed, and the slot's counts and ids. */
interface AheadColumns {
  failedBesides: boolean | number;
  slotDepth: number | string;
  slotMade: number | string;
  slotInstances: string | null;
  slotIds: unknown;
}

/**
 * The three reads (sent at once): the link row, read only if nothing else of the child is active (with
 * AheadColumns), the child's nodes and the parent node's dependents under the same condition — the
 * parent named by the child's row, so that nothing read before is needed. A child whose link is gone (its parent node
 * cancelled, say) reads as not ending: the step falls back to reading after. `nodesKnown`: the finish
 * holds every node the child was started with (ClaimedNode.startedWith): its nodes are not read here
 * but made of the finish's own reads (knownNodes), and the link's revision says whether they still are all.
 */
export async function readAhead(q: Queryable, childId: string, root: string, finishing: readonly string[], nodesKnown = false): Promise<ChildAhead> {
  const besides = ` AND x.node_id NOT IN (${marks(finishing.length)})`;
  const quiet: Statement = {
    sql: ` AND NOT EXISTS (SELECT 1 FROM nodes x WHERE x.plan_id = ? AND x.status IN ${ACTIVE_NODE_STATUSES}${besides})`,
    params: [childId, ...finishing],
  };
  const parentOf = (column: string): Statement => ({ sql: `(SELECT ${column} FROM plans WHERE id = ?)`, params: [childId] });
  const reserve = reservedNodeIds.sql(q.dialect, IDS_AHEAD);
  const columns: Statement = {
    sql:
      `EXISTS (SELECT 1 FROM nodes x WHERE x.plan_id = ? AND x.status = 'failed'${besides}) AS "failedBesides", p.depth AS "slotDepth", ` +
      `(SELECT children_made FROM plans WHERE id = ?) AS "slotMade", (SELECT instances_made FROM plans WHERE id = ?) AS "slotInstances", ${reserve.sql} AS "slotIds"`,
    params: [childId, ...finishing, root, root, ...reserve.params],
  };
  // The finishing nodes' dependents and the parent node's, in one statement (locked in that order: the child's, then the parent's).
  const own = dependentsOf(q, { plan: { sql: '?', params: [childId] }, nodes: { sql: marks(finishing.length), params: [...finishing] } });
  const up = dependentsOf(q, { plan: parentOf('parent_plan_id'), nodes: parentOf('parent_node_id') }, quiet);
  const [link, nodes, both] = await Promise.all([
    readChildLink<AheadColumns>(q, childId, { plan: parentOf('parent_plan_id'), node: parentOf('parent_node_id') }, 'apart', quiet, columns),
    nodesKnown ? undefined : readChildNodes(q, childId, quiet),
    q.all<DependentRow & { part: string }>(
      `WITH own AS (${own.sql}), up AS (${up.sql}) SELECT 'own' AS "part", own.* FROM own UNION ALL SELECT 'up', up.* FROM up`,
      [...own.params, ...up.params],
    ),
  ]);
  const rowsOf = (part: string) => both.filter((row) => row.part === part).map(({ part: _, ...row }) => row);
  const dependents = rowsOf('up');
  const ahead: ChildAhead = { childId, besides: new Set(finishing), own: rowsOf('own') };
  if (link) {
    if (nodes) link.nodes = nodes;
    const read = { depth: link.slotDepth, made: link.slotMade, instances: link.slotInstances, ids: link.slotIds };
    ahead.end = { failed: link.failedBesides === true || link.failedBesides === 1, link, dependents, slot: { planId: link.planId, root, read } };
  }
  return ahead;
}

/**
 * The ending child's nodes where readAhead left them out: at the revision it was started with
 * (FIRST_REVISION: nothing added or removed since), the finishing nodes are all of them — their rows as the
 * finish read them, in row order, each a sink where no edge leaves it (the finish read their edges);
 * otherwise, or when a finishing row was not read (its lease lost), read now.
 */
export async function knownNodes(q: Queryable, ahead: ChildAhead, own: { rows: readonly Row[]; dependents: readonly DependentRow[] }): Promise<void> {
  const link = ahead.end?.link;
  if (!link || link.nodes !== null) return;
  const rows = own.rows.filter((row) => row.planId === ahead.childId && ahead.besides.has(row.nodeId));
  if (Number(link.childRevision) === FIRST_REVISION && rows.length === ahead.besides.size) {
    link.nodes = [...rows]
      .sort((a, b) => Number(a.rowId) - Number(b.rowId))
      .map((row) => ({ id: row.nodeId, status: row.status, output: row.output, answer: row.answer, sink: !own.dependents.some((d) => d.from === row.nodeId) }));
    return;
  }
  link.nodes = await readChildNodes(q, ahead.childId, NO_SQL);
}

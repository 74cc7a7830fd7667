import { ACTIVE_NODE_STATUSES } from '../sql/waits.js';
import { marks, type Queryable, type Statement } from '../sql/executor.js';
import { readDependentsOf, type DependentRow } from '../sql/load.js';
import { reservedNodeIds } from '../sql/plans.js';
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
 * cancelled, say) reads as not ending: the step falls back to reading after.
 */
export async function readAhead(q: Queryable, childId: string, root: string, finishing: readonly string[]): Promise<ChildAhead> {
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
  const [link, nodes, dependents] = await Promise.all([
    readChildLink<AheadColumns>(q, childId, { plan: parentOf('parent_plan_id'), node: parentOf('parent_node_id') }, 'apart', quiet, columns),
    readChildNodes(q, childId, quiet),
    readDependentsOf(q, { plan: parentOf('parent_plan_id'), nodes: parentOf('parent_node_id') }, quiet),
  ]);
  const ahead: ChildAhead = { childId, besides: new Set(finishing) };
  if (link) {
    link.nodes = nodes;
    const read = { depth: link.slotDepth, made: link.slotMade, instances: link.slotInstances, ids: link.slotIds };
    ahead.end = { failed: link.failedBesides === true || link.failedBesides === 1, link, dependents, slot: { planId: link.planId, root, read } };
  }
  return ahead;
}

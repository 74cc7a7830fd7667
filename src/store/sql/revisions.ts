import type { NodeState } from '../../engine/snapshot.js';
import type { Attributes, PlanGraph, RevisionAuthor } from '../../model/types.js';
import { decodeText, encodeText } from '../text.js';
import { marks, chunk, type Queryable } from './executor.js';
import { insertEdges, insertNodes } from './plans.js';

/** The latest revision's number and text, for a plan whose row the caller holds locked. */
export async function latestRevision(q: Queryable, planId: string): Promise<{ number: number; dot: string }> {
  const [row] = await q.all<{ number: number; dot: string }>(`SELECT number, dot FROM revisions WHERE plan_id = ? ORDER BY number DESC LIMIT 1`, [planId]);
  return { number: Number(row!.number), dot: decodeText(row!.dot) };
}

export interface StructureWrite {
  planId: string;
  /** The plan's status, read with its row locked (new nodes of a plan that is not running are held). */
  planStatus: string;
  number: number;
  parent: number;
  dot: string;
  author: RevisionAuthor;
  updateLog?: string;
  attributes: Attributes;
  next: PlanGraph;
  inserts: readonly NodeState[];
  deletes: readonly string[];
}

/**
 * A revision's structural rows: the revision, the plan's revision number and graph attributes, node
 * rows removed and added, and the plan's edges replaced. Returns the new nodes' row ids.
 */
export async function writeStructure(q: Queryable, w: StructureWrite): Promise<Map<string, number>> {
  await q.run(`INSERT INTO revisions (plan_id, number, dot, author, update_log, parent, created_at) VALUES (?, ?, ?, ?, ?, ?, NOW)`, [
    w.planId,
    w.number,
    encodeText(w.dot),
    w.author,
    encodeText(w.updateLog),
    w.parent,
  ]);
  // timeout_at NULL: a review's timeout is worked out again from the new attributes (reviewTimeout may have changed), still from its waiting_since.
  await q.run(`UPDATE plans SET revision = ?, attributes = ?, updated_at = NOW, timeout_at = NULL WHERE id = ?`, [
    w.number,
    JSON.stringify(w.attributes),
    w.planId,
  ]);
  for (const part of chunk(w.deletes)) await q.run(`DELETE FROM nodes WHERE plan_id = ? AND node_id IN (${marks(part.length)})`, [w.planId, ...part]);
  const inserted = new Set(w.inserts.map((n) => n.id));
  const rows = await insertNodes(
    q,
    w.planId,
    w.planStatus,
    w.next.nodes.filter((n) => inserted.has(n.id)),
    new Map(w.inserts.map((n) => [n.id, n])),
  );
  await q.run(`DELETE FROM edges WHERE plan_id = ?`, [w.planId]);
  await insertEdges(q, w.planId, w.next.edges);
  return rows;
}

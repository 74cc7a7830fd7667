import { decideReadiness, type IncomingEdge } from '../../engine/readiness.js';
import { assertNodeMove } from '../../state/node-moves.js';
import type { Driver, NodeStatus } from '../../model/types.js';
import { chunk, forUpdate, marks } from './executor.js';
import { insertEvents, setNodesStatus, type TxContext } from './context.js';

/**
 * Workflow-mode readiness in SQL: pending nodes whose upstream nodes have all finished become
 * `ready` (a taken edge reaches them) or `skipped` (none does), as decided by the pure
 * `decideReadiness`; skips cascade. Candidate rows are locked first (PostgreSQL), and their
 * sources read in a later statement, so of two transactions finishing two parents of one join,
 * the second always sees the first's result.
 */
type Candidates = { kind: 'all' } | { kind: 'dependentsOf'; nodeIds: readonly string[]; locked?: LockedDependents };

/**
 * The pending dependents of finished nodes, already locked by the caller's statement (PostgreSQL's
 * finish), with the incoming edges of those whose only upstream nodes are the finished ones —
 * nothing else can change their inputs, so they need no later read.
 */
export interface LockedDependents {
  pending: readonly string[];
  known: ReadonlyMap<string, IncomingEdge[]>;
}

/** After nodes finished (done, failed, skipped...): their pending dependents. */
export function propagateFrom(ctx: TxContext, planId: string, nodeIds: readonly string[], locked?: LockedDependents): Promise<void> {
  if (nodeIds.length === 0) return Promise.resolve();
  return propagate(ctx, planId, locked ? { kind: 'dependentsOf', nodeIds, locked } : { kind: 'dependentsOf', nodeIds });
}

/** When a plan starts or resumes: every pending node. */
export function propagateAll(ctx: TxContext, planId: string): Promise<void> {
  return propagate(ctx, planId, { kind: 'all' });
}

async function propagate(ctx: TxContext, planId: string, first: Candidates): Promise<void> {
  let candidates: Candidates | undefined = first;
  while (candidates) {
    const locked = candidates.kind === 'dependentsOf' ? candidates.locked : undefined;
    const pending = locked ? [...locked.pending] : await lockPending(ctx, planId, candidates);
    if (pending.length === 0) return;
    const unknown = locked ? pending.filter((id) => !locked.known.has(id)) : pending;
    const incoming = unknown.length > 0 ? await readIncoming(ctx, planId, unknown) : new Map<string, IncomingEdge[]>();
    if (locked) for (const [id, edges] of locked.known) incoming.set(id, edges);
    const ready: string[] = [];
    const skipped: string[] = [];
    for (const nodeId of pending) {
      const decision = decideReadiness(incoming.get(nodeId) ?? []);
      if (decision === 'ready') ready.push(nodeId);
      else if (decision === 'skipped') skipped.push(nodeId);
    }
    await move(ctx, planId, ready, 'ready', 'its dependencies are met');
    await move(ctx, planId, skipped, 'skipped', 'no taken edge reaches it');
    if (ready.length > 0) ctx.wakes.push({ reason: 'ready', planId });
    candidates = skipped.length > 0 ? { kind: 'dependentsOf', nodeIds: skipped } : undefined;
  }
}

async function lockPending(ctx: TxContext, planId: string, candidates: Candidates): Promise<string[]> {
  const { q } = ctx;
  if (candidates.kind === 'all') {
    const rows = await q.all<{ nodeId: string }>(`SELECT node_id AS "nodeId" FROM nodes WHERE plan_id = ? AND status = 'pending' ORDER BY id${forUpdate(q)}`, [planId]);
    return rows.map((r) => r.nodeId);
  }
  if (q.dialect === 'postgres' && candidates.nodeIds.length <= 500) {
    // One round trip: the dependents' ids as an array (an init plan), then their rows by the unique
    // (plan_id, node_id) index, locked in id order.
    const rows = await q.all<{ nodeId: string; status: string }>(
      `SELECT node_id AS "nodeId", status FROM nodes WHERE plan_id = ? AND node_id = ANY(ARRAY(SELECT to_node FROM edges WHERE plan_id = ? AND from_node IN (${marks(candidates.nodeIds.length)}))) ORDER BY id FOR UPDATE`,
      [planId, planId, ...candidates.nodeIds],
    );
    return rows.filter((r) => r.status === 'pending').map((r) => r.nodeId);
  }
  // No DISTINCT (the Set dedupes): with it SQLite walks the (plan_id, to_node) index over every
  // edge of the plan instead of seeking (plan_id, from_node) — O(plan) per finished node.
  const targets = new Set<string>();
  for (const part of chunk(candidates.nodeIds)) {
    const rows = await q.all<{ to: string }>(`SELECT to_node AS "to" FROM edges WHERE plan_id = ? AND from_node IN (${marks(part.length)})`, [planId, ...part]);
    for (const r of rows) targets.add(r.to);
  }
  // By (plan_id, node_id) only, so that the unique index is the obvious plan whatever the statistics.
  const out: string[] = [];
  for (const part of chunk([...targets])) {
    const rows = await q.all<{ nodeId: string; status: string }>(
      `SELECT node_id AS "nodeId", status FROM nodes WHERE plan_id = ? AND node_id IN (${marks(part.length)}) ORDER BY id${forUpdate(q)}`,
      [planId, ...part],
    );
    for (const r of rows) if (r.status === 'pending') out.push(r.nodeId);
  }
  return out;
}

interface IncomingRow {
  to: string;
  from: string;
  when: string | null;
  status: NodeStatus;
  output: string | null;
  answer: string | null;
  skippedBy: string | null;
}

async function readIncoming(ctx: TxContext, planId: string, nodeIds: readonly string[]): Promise<Map<string, IncomingEdge[]>> {
  const byTarget = new Map<string, IncomingEdge[]>();
  for (const part of chunk(nodeIds)) {
    const rows = await ctx.q.all<IncomingRow>(
      `SELECT e.to_node AS "to", e.from_node AS "from", e.when_match AS "when", s.status, s.output, s.answer, s.skipped_by AS "skippedBy" ` +
        `FROM edges e JOIN nodes s ON s.plan_id = e.plan_id AND s.node_id = e.from_node ` +
        `WHERE e.plan_id = ? AND e.to_node IN (${marks(part.length)})`,
      [planId, ...part],
    );
    for (const row of rows) {
      const edge: IncomingEdge = { from: row.from, sourceStatus: row.status, sourceOutput: row.output, sourceAnswer: row.answer };
      if (row.when !== null) edge.when = row.when;
      if (row.skippedBy !== null) edge.sourceSkippedBy = row.skippedBy as Driver;
      const list = byTarget.get(row.to);
      if (list) list.push(edge);
      else byTarget.set(row.to, [edge]);
    }
  }
  return byTarget;
}

async function move(ctx: TxContext, planId: string, nodeIds: readonly string[], to: 'ready' | 'skipped', reason: string): Promise<void> {
  if (nodeIds.length === 0) return;
  assertNodeMove({ node: nodeIds[0]!, from: 'pending', to, driver: 'engine' });
  if (ctx.q.dialect === 'postgres') {
    // One round trip per 500 nodes: the update and its events (in node order) in one statement.
    for (const part of chunk(nodeIds)) {
      await ctx.q.run(
        `WITH u AS (UPDATE nodes SET status = ?, updated_at = NOW${to === 'skipped' ? ', finished_at = NOW' : ''}, lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL ` +
          `WHERE plan_id = ? AND node_id IN (${marks(part.length)}) RETURNING id, plan_id, node_id) ` +
          `INSERT INTO events (plan_id, node_id, driver, from_status, to_status, reason, at) SELECT plan_id, node_id, 'engine', 'pending', ?, ?, NOW FROM u ORDER BY id`,
        [to, planId, ...part, to, reason],
      );
    }
    return;
  }
  await setNodesStatus(ctx.q, planId, nodeIds, to, to === 'skipped');
  await insertEvents(ctx.q, nodeIds.map((nodeId) => ({ planId, nodeId, driver: 'engine' as const, from: 'pending', to, reason })));
}

import type { Queryable } from './sql/executor.js';
import { nodeNotFound, planNotFound } from './sql/plans.js';
import {
  EDGE_COLUMNS,
  NODE_COLUMNS,
  PLAN_COLUMNS,
  REVISION_COLUMNS,
  toEdgeRecord,
  toNodeRecord,
  toPlanRecord,
  toRevisionRecord,
  type EdgeRow,
  type NodeRow,
  type PlanRow,
  type RevisionRow,
} from './rows.js';
import type { EdgeRecord, NodeRecord, PlanRecord, RevisionRecord } from './types.js';
import type { NodeStatus, PlanStatus } from '../model/types.js';
import { NotFoundError } from '../errors/errors.js';

/**
 * The read side of plans, nodes, edges and revisions: one SQL statement each, under the record field
 * names (rows.ts), so that a command that shows or changes one plan (`plan show`, `plan cancel`,
 * `answer`, operators run them in loops) starts without Prisma's client and its query compiler, a
 * third of a second here. The store suite (test/store/plans-suite.ts) holds every read of every
 * plan it stored equal to the generated Prisma client's read of the same rows. Made on a transaction,
 * they read what it has written so far (a command's read-back: PlanStore.change).
 */
export class Reads {
  constructor(private readonly db: Queryable) {}

  async getPlan(id: string): Promise<PlanRecord> {
    const [row] = await this.db.all<PlanRow>(`SELECT ${PLAN_COLUMNS} FROM plans WHERE id = ?`, [id]);
    if (!row) throw planNotFound(id);
    return toPlanRecord(row);
  }

  async listPlans(options: { status?: PlanStatus } = {}): Promise<PlanRecord[]> {
    const where = options.status !== undefined ? ' WHERE status = ?' : '';
    const rows = await this.db.all<PlanRow>(`SELECT ${PLAN_COLUMNS} FROM plans${where} ORDER BY id`, options.status !== undefined ? [options.status] : []);
    return rows.map(toPlanRecord);
  }

  /**
   * A page of plans, newest first (ids grow with time): those before `before` (a plan id), at most
   * `limit`; only root plans (`roots`), or one tree (`root`: the root and its descendants).
   */
  async pagePlans(options: { status?: PlanStatus; roots?: boolean; root?: string; before?: string; limit: number }): Promise<PlanRecord[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (condition: string, ...values: unknown[]) => {
      where.push(condition);
      params.push(...values);
    };
    if (options.status !== undefined) add('status = ?', options.status);
    if (options.roots) add('root_plan_id IS NULL');
    if (options.root !== undefined) add('(id = ? OR root_plan_id = ?)', options.root, options.root);
    if (options.before !== undefined) add('id < ?', options.before);
    const rows = await this.db.all<PlanRow>(
      `SELECT ${PLAN_COLUMNS} FROM plans${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ?`,
      [...params, options.limit],
    );
    return rows.map(toPlanRecord);
  }

  /** How many of the plan's nodes are in each status (one grouped count, not the nodes). */
  async statusCounts(planId: string): Promise<Partial<Record<NodeStatus, number>>> {
    const rows = await this.db.all<{ status: NodeStatus; count: number | string }>(
      `SELECT status, COUNT(*) AS "count" FROM nodes WHERE plan_id = ? GROUP BY status`,
      [planId],
    );
    return Object.fromEntries(rows.map((r) => [r.status, Number(r.count)]));
  }

  /** The plan's ready and running nodes, with what says what they wait for (what `waitingFor` needs of the nodes). */
  async activeNodes(planId: string): Promise<Array<Pick<NodeRecord, 'id' | 'status' | 'runAfter' | 'leaseOwner'>>> {
    const rows = await this.db.all<{ id: string; status: NodeStatus; runAfter: number | string | null; leaseOwner: string | null }>(
      `SELECT node_id AS "id", status, run_after AS "runAfter", lease_owner AS "leaseOwner" FROM nodes WHERE plan_id = ? AND status IN ('ready', 'running') ORDER BY id`,
      [planId],
    );
    return rows.map((r) => ({
      id: r.id,
      status: r.status,
      ...(r.runAfter !== null ? { runAfter: new Date(Number(r.runAfter)) } : {}),
      ...(r.leaseOwner !== null ? { leaseOwner: r.leaseOwner } : {}),
    }));
  }

  async getNodes(planId: string): Promise<NodeRecord[]> {
    const rows = await this.db.all<NodeRow>(`SELECT ${NODE_COLUMNS} FROM nodes WHERE plan_id = ? ORDER BY id`, [planId]);
    if (rows.length === 0) await this.getPlan(planId);
    return rows.map(toNodeRecord);
  }

  async getNode(planId: string, nodeId: string): Promise<NodeRecord> {
    const [row] = await this.db.all<NodeRow>(`SELECT ${NODE_COLUMNS} FROM nodes WHERE plan_id = ? AND node_id = ?`, [planId, nodeId]);
    if (!row) {
      await this.getPlan(planId);
      throw nodeNotFound(planId, nodeId);
    }
    return toNodeRecord(row);
  }

  async getEdges(planId: string): Promise<EdgeRecord[]> {
    const rows = await this.db.all<EdgeRow>(`SELECT ${EDGE_COLUMNS} FROM edges WHERE plan_id = ? ORDER BY id`, [planId]);
    if (rows.length === 0) await this.getPlan(planId);
    return rows.map(toEdgeRecord);
  }

  async listRevisions(planId: string): Promise<RevisionRecord[]> {
    const rows = await this.db.all<RevisionRow>(`SELECT ${REVISION_COLUMNS} FROM revisions WHERE plan_id = ? ORDER BY number`, [planId]);
    if (rows.length === 0) await this.getPlan(planId);
    return rows.map(toRevisionRecord);
  }

  async getRevision(planId: string, number?: number): Promise<RevisionRecord> {
    const [row] =
      number === undefined
        ? await this.db.all<RevisionRow>(`SELECT ${REVISION_COLUMNS} FROM revisions WHERE plan_id = ? ORDER BY number DESC LIMIT 1`, [planId])
        : await this.db.all<RevisionRow>(`SELECT ${REVISION_COLUMNS} FROM revisions WHERE plan_id = ? AND number = ?`, [planId, number]);
    if (!row) {
      const plan = await this.getPlan(planId);
      throw new NotFoundError(`plan ${planId} has no revision ${number}; its revisions are ${plan.revision === 1 ? '1' : `1 to ${plan.revision}`}`);
    }
    return toRevisionRecord(row);
  }
}

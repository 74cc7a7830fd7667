import type { PrismaClient } from '../generated/sqlite/client.js';
import type { Db } from './sql/executor.js';
import { nodeNotFound, planNotFound } from './sql/plans.js';
import { toEdgeRecord, toNodeRecord, toPlanRecord, toRevisionRecord } from './rows.js';
import type { EdgeRecord, NodeRecord, PlanRecord, RevisionRecord } from './types.js';
import type { PlanStatus } from '../model/types.js';
import { NotFoundError } from '../errors/errors.js';

/** The read side of plans and revisions, through the generated Prisma client (typed, off the hot path). */
export class Reads {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly db: Db,
  ) {}

  async getPlan(id: string): Promise<PlanRecord> {
    const row = await this.db.exclusive(() => this.prisma.plan.findUnique({ where: { id } }));
    if (!row) throw planNotFound(id);
    return toPlanRecord(row);
  }

  async listPlans(options: { status?: PlanStatus } = {}): Promise<PlanRecord[]> {
    const rows = await this.db.exclusive(() => this.prisma.plan.findMany({ where: options.status ? { status: options.status } : {}, orderBy: { id: 'asc' } }));
    return rows.map(toPlanRecord);
  }

  async getNodes(planId: string): Promise<NodeRecord[]> {
    const rows = await this.db.exclusive(() => this.prisma.node.findMany({ where: { planId }, orderBy: { id: 'asc' } }));
    if (rows.length === 0) await this.getPlan(planId);
    return rows.map(toNodeRecord);
  }

  async getNode(planId: string, nodeId: string): Promise<NodeRecord> {
    const row = await this.db.exclusive(() => this.prisma.node.findUnique({ where: { planId_nodeId: { planId, nodeId } } }));
    if (!row) {
      await this.getPlan(planId);
      throw nodeNotFound(planId, nodeId);
    }
    return toNodeRecord(row);
  }

  async getEdges(planId: string): Promise<EdgeRecord[]> {
    const rows = await this.db.exclusive(() => this.prisma.edge.findMany({ where: { planId }, orderBy: { id: 'asc' } }));
    if (rows.length === 0) await this.getPlan(planId);
    return rows.map(toEdgeRecord);
  }

  async listRevisions(planId: string): Promise<RevisionRecord[]> {
    const rows = await this.db.exclusive(() => this.prisma.revision.findMany({ where: { planId }, orderBy: { number: 'asc' } }));
    if (rows.length === 0) await this.getPlan(planId);
    return rows.map(toRevisionRecord);
  }

  async getRevision(planId: string, number?: number): Promise<RevisionRecord> {
    const row = await this.db.exclusive(() =>
      number === undefined
        ? this.prisma.revision.findFirst({ where: { planId }, orderBy: { number: 'desc' } })
        : this.prisma.revision.findUnique({ where: { planId_number: { planId, number } } }),
    );
    if (!row) {
      const plan = await this.getPlan(planId);
      throw new NotFoundError(`plan ${planId} has no revision ${number}; its revisions are ${plan.revision === 1 ? '1' : `1 to ${plan.revision}`}`);
    }
    return toRevisionRecord(row);
  }
}

import { refreshStatistics } from './sql/statistics.js';
import { start } from '../engine/plan-steps.js';
import { initialSnapshot } from '../engine/initial-state.js';
import type { NodeStatus, PlanStatus } from '../model/types.js';
import { newPlanId } from './ids.js';
import type { Reads } from './reads.js';
import type { Db } from './sql/executor.js';
import { loadAll, loadCandidates, loadNodes, loadPlan, loadDependents } from './sql/load.js';
import { decideWithMore, snapshotOf } from './decide.js';
import { insertPlan, nodeNotFound, planNotFound, startedRows } from './sql/plans.js';
import { latestRevision, writeStructure } from './sql/revisions.js';
import { lockTrees } from './sql/tree.js';
import { appendMessages } from './sql/messages.js';
import { NOTHING_ENDED, type StepWriter, type Written } from './step-writer.js';
import { readAfter, readIn, thePlan, type ReadBack } from './read-back.js';
import { waitingItems } from './sql/inbox.js';
import type {
  ChangeScope,
  CreatePlanInput,
  Decide,
  DecideRevision,
  EdgeRecord,
  EditableState,
  WaitingItem,
  NodeRecord,
  PlanRecord,
  PlanStore,
  RevisionRecord,
} from './types.js';

/** Plans and revisions: reads through Prisma, every write one transaction through the step writer. */
export class SqlPlanStore implements PlanStore {
  constructor(
    private readonly db: Db,
    private readonly reads: Reads,
    private readonly writer: StepWriter,
  ) {}

  async create(input: CreatePlanInput): Promise<PlanRecord> {
    const id = newPlanId();
    const { snapshot, candidates } = initialSnapshot(id, input.graph);
    const step = start(snapshot, candidates);
    // A start that only makes nodes ready is written with the plan's rows (each node inserted as the start leaves it), not as one update per node after them.
    const started = startedRows(snapshot, step);
    const read = thePlan(id);
    const { written, plan } = await this.db.tx(async (q) => {
      let written: Written;
      if (started) {
        await insertPlan(q, input, snapshot, { started });
        written = this.writer.inserted({ step, plan: snapshot.plan }, []);
        await this.writer.announce(q, written);
      } else {
        const { rows } = await insertPlan(q, input, snapshot);
        written = await this.writer.write(q, [{ step, plan: snapshot.plan }], (_, node) => rows.get(node), new Map());
      }
      return { written, plan: await readIn(q, read) };
    });
    const ended = await this.writer.after(written);
    if (this.db.dialect === 'postgres') await refreshStatistics(this.db, input.graph.nodes.length, input.graph.edges.length);
    return readAfter(this.db, id, ended, plan, read);
  }

  change(planId: string, scope: ChangeScope, decide: Decide): Promise<void>;
  change<T>(planId: string, scope: ChangeScope, decide: Decide, read: ReadBack<T>): Promise<T>;
  async change<T>(planId: string, scope: ChangeScope, decide: Decide, read?: ReadBack<T>): Promise<T | void> {
    const result = await this.db.tx(async (q) => {
      await lockTrees(q, [planId]);
      const loaded = await loadPlan(q, planId, true);
      if (!loaded) throw planNotFound(planId);
      if (scope.all) await loadAll(q, loaded);
      if (scope.nodes) {
        const found = await loadNodes(q, loaded, scope.nodes);
        const missing = scope.nodes.find((id) => !found.includes(id));
        if (missing !== undefined) throw nodeNotFound(planId, missing);
        await loadDependents(q, loaded, scope.nodes);
      }
      const candidates = scope.candidates ? await loadCandidates(q, loaded) : [];
      const step = await decideWithMore(q, loaded, (snapshot) => decide(snapshot, candidates));
      const written = step ? await this.writer.write(q, [{ step, plan: loaded.plan }], (_, node) => loaded.rows.get(node), new Map()) : undefined;
      return { written, read: read && (await readIn(q, read)) };
    });
    const ended = result.written ? await this.writer.after(result.written) : NOTHING_ENDED;
    return read && readAfter(this.db, planId, ended, result.read as T, read);
  }

  async revise(planId: string, decide: DecideRevision): Promise<{ revision: number } | undefined> {
    const result = await this.db.tx(async (q) => {
      await lockTrees(q, [planId]);
      const loaded = await loadPlan(q, planId, true);
      if (!loaded) throw planNotFound(planId);
      await loadAll(q, loaded);
      const latest = await latestRevision(q, planId);
      const write = decide({ snapshot: snapshotOf(loaded), revision: latest });
      if (!write) return undefined;
      const number = latest.number + 1;
      const { revised } = write;
      const inserted = await writeStructure(q, {
        planId,
        planStatus: loaded.plan.status,
        number,
        parent: latest.number,
        dot: write.dot,
        author: write.author,
        ...(write.updateLog !== undefined ? { updateLog: write.updateLog } : {}),
        attributes: write.next.attributes,
        next: write.next,
        inserts: revised.inserts,
        deletes: revised.deletes,
      });
      const by = revised.step.events.find((e) => e.kind === 'revision');
      const step = {
        ...revised.step,
        events: [
          {
            planId,
            kind: 'revision' as const,
            driver: by?.driver ?? ('operator' as const),
            ...(by?.actor !== undefined ? { actor: by.actor } : {}),
            reason: write.updateLog ?? `revision ${number}`,
            detail: { revision: number, parent: latest.number, author: write.author, changes: revised.changes.length },
          },
          ...revised.step.events,
        ],
      };
      if (write.messages) await appendMessages(q, planId, write.messages);
      const rowOf = (_: string, node: string) => loaded.rows.get(node) ?? inserted.get(node);
      return { number, written: await this.writer.write(q, [{ step, plan: loaded.plan }], rowOf, new Map()) };
    });
    if (!result) return undefined;
    await this.writer.after(result.written);
    return { revision: result.number };
  }

  async editable(planId: string): Promise<EditableState> {
    return this.db.tx(async (q) => {
      // One snapshot for the three reads (PostgreSQL; SQLite's transaction is one already).
      if (q.dialect === 'postgres') await q.run(`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ`);
      const loaded = await loadPlan(q, planId, false);
      if (!loaded) throw planNotFound(planId);
      await loadAll(q, loaded, false);
      const [last] = await q.all<{ id: number | null }>(`SELECT MAX(id) AS "id" FROM events WHERE plan_id = ?`, [planId]);
      return { revision: await latestRevision(q, planId), nodes: [...loaded.nodes.values()], asOfEvent: Number(last?.id ?? 0) };
    });
  }

  waiting(planId?: string, options?: { tree?: boolean }): Promise<WaitingItem[]> {
    return waitingItems(this.db, planId, options);
  }

  get(id: string): Promise<PlanRecord> {
    return this.reads.getPlan(id);
  }
  list(options?: { status?: PlanStatus }): Promise<PlanRecord[]> {
    return this.reads.listPlans(options);
  }
  page(options: { status?: PlanStatus; roots?: boolean; root?: string; before?: string; limit: number }): Promise<PlanRecord[]> {
    return this.reads.pagePlans(options);
  }
  statusCounts(planId: string): Promise<Partial<Record<NodeStatus, number>>> {
    return this.reads.statusCounts(planId);
  }
  activeNodes(planId: string): Promise<Array<Pick<NodeRecord, 'id' | 'status' | 'runAfter' | 'leaseOwner'>>> {
    return this.reads.activeNodes(planId);
  }
  nodes(planId: string): Promise<NodeRecord[]> {
    return this.reads.getNodes(planId);
  }
  node(planId: string, nodeId: string): Promise<NodeRecord> {
    return this.reads.getNode(planId, nodeId);
  }
  edges(planId: string): Promise<EdgeRecord[]> {
    return this.reads.getEdges(planId);
  }
  revisions(planId: string): Promise<RevisionRecord[]> {
    return this.reads.listRevisions(planId);
  }
  revision(planId: string, number?: number): Promise<RevisionRecord> {
    return this.reads.getRevision(planId, number);
  }
}

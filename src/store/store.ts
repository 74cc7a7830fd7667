import { ConflictError } from '../errors/errors.js';
import type { Driver, PlanStatus } from '../model/types.js';
import type { Connection } from './connect.js';
import { newPlanId } from './ids.js';
import { Reads } from './reads.js';
import { NODE_COLUMNS, toNodeRecord, type NodeRow } from './rows.js';
import { claimPostgres, claimSqlite } from './sql/claim.js';
import type { TxContext } from './sql/context.js';
import { countActive } from './sql/counts.js';
import { chunk, marks, type Db, type Queryable } from './sql/executor.js';
import { finishAttemptInTx, type Finished, type PlanCache } from './sql/finish.js';
import { finishChainPostgres, finishFastPostgres } from './sql/finish-fast.js';
import { expireLeases, renewLeases } from './sql/leases.js';
import { answer, applyMoves } from './sql/moves.js';
import { insertPlan, movePlan, startTarget } from './sql/plans.js';
import { settlePlan } from './sql/settle.js';
import { isRetryableDbError } from './sql/retry.js';
import type {
  ActiveCounts,
  AttemptOutcome,
  Backend,
  ClaimedNode,
  ClaimOptions,
  CreatePlanInput,
  EdgeRecord,
  EventRecord,
  ExpireOptions,
  FinishRequest,
  HandOff,
  ListEventsOptions,
  ListPlansOptions,
  NodeMoveRequest,
  NodeRecord,
  PlanRecord,
  RevisionRecord,
  Store,
  WakeEvent,
} from './types.js';
import { WAKE_CHANNEL, Wakes } from './wake.js';

const ANALYZE_AT_NODES = 1000;
/** Attempts a lost lease may cost a node that sets no `retries` (nor its plan): a crash is not the node's fault. */
const DEFAULT_EXPIRY_RETRIES = 2;

/** The one Store implementation: the backends differ only in their executor and a few statements. */
export class SqlStore implements Store {
  readonly backend: Backend;
  readonly #db: Db;
  readonly #reads: Reads;
  readonly #wakes: Wakes;
  /**
   * Lease tokens (claimed here, PostgreSQL) of nodes with dependents, with their count up to 2: a
   * `done` skips the batch fast path, and with exactly one dependent tries the chain step.
   */
  readonly #withDependents = new Map<string, number>();
  #closed = false;

  constructor(connection: Connection) {
    this.backend = connection.db.dialect;
    this.#db = connection.db;
    this.#reads = new Reads(connection.prisma, connection.db);
    this.#wakes = new Wakes(connection.target.kind === 'postgres' ? connection.target.url : undefined);
  }

  // --- reads (Prisma) ---------------------------------------------------------------------------
  getPlan(id: string): Promise<PlanRecord> {
    return this.#reads.getPlan(id);
  }
  listPlans(options?: ListPlansOptions): Promise<PlanRecord[]> {
    return this.#reads.listPlans(options);
  }
  getNodes(planId: string): Promise<NodeRecord[]> {
    return this.#reads.getNodes(planId);
  }
  getNode(planId: string, nodeId: string): Promise<NodeRecord> {
    return this.#reads.getNode(planId, nodeId);
  }
  getEdges(planId: string): Promise<EdgeRecord[]> {
    return this.#reads.getEdges(planId);
  }
  listRevisions(planId: string): Promise<RevisionRecord[]> {
    return this.#reads.listRevisions(planId);
  }
  getRevision(planId: string, number?: number): Promise<RevisionRecord> {
    return this.#reads.getRevision(planId, number);
  }
  listEvents(planId: string, options?: ListEventsOptions): Promise<EventRecord[]> {
    return this.#reads.listEvents(planId, options);
  }

  listAllEvents(options?: { after?: number; limit?: number }): Promise<EventRecord[]> {
    return this.#reads.listAllEvents(options);
  }

  lastEventId(): Promise<number> {
    return this.#reads.lastEventId();
  }

  // --- plans and moves ----------------------------------------------------------------------------
  async createPlan(input: CreatePlanInput & { status?: PlanStatus }): Promise<PlanRecord> {
    const id = newPlanId();
    await this.#write((ctx) => insertPlan(ctx, id, input, input.status ?? 'draft'));
    // A big plan changes the tables' shape at once: refresh PostgreSQL's statistics now rather
    // than when autovacuum gets to it, so that claims and finishes keep using the right index.
    if (this.#db.dialect === 'postgres') await this.#refreshStatistics(input.graph.nodes.length, input.graph.edges.length);
    return this.getPlan(id);
  }

  /**
   * ANALYZE the tables a new plan grew past autovacuum's default analyze threshold (50 rows + 10%
   * of what the statistics say), or both for a plan of ANALYZE_AT_NODES nodes or more. Stale
   * statistics (an `edges` table analysed when empty, say) talk the planner into sequential scans
   * and hash joins on the hot path's edge lookups.
   */
  async #refreshStatistics(nodes: number, edges: number): Promise<void> {
    if (nodes >= ANALYZE_AT_NODES) {
      await this.#db.run('ANALYZE nodes, edges');
      return;
    }
    if (nodes <= 50 && edges <= 50) return;
    const [known] = await this.#db.all<{ nodes: number | null; edges: number | null }>(
      `SELECT (SELECT reltuples FROM pg_class WHERE oid = to_regclass('nodes')) AS nodes, (SELECT reltuples FROM pg_class WHERE oid = to_regclass('edges')) AS edges`,
    );
    const grown = (added: number, tuples: number | null | undefined) => added > 50 + 0.1 * Math.max(0, Number(tuples ?? 0));
    const tables = [...(grown(nodes, known?.nodes) ? ['nodes'] : []), ...(grown(edges, known?.edges) ? ['edges'] : [])];
    if (tables.length > 0) await this.#db.run(`ANALYZE ${tables.join(', ')}`);
  }

  async applyNodeMoves(planId: string, moves: NodeMoveRequest[], driver: Driver, reason?: string): Promise<NodeRecord[]> {
    const ids = await this.#write((ctx) => applyMoves(ctx, planId, moves, driver, reason));
    return this.#nodes(planId, ids);
  }

  async setPlanStatus(planId: string, to: PlanStatus, driver: Driver, reason?: string, error?: string): Promise<PlanRecord> {
    await this.#write((ctx) => movePlan(ctx, planId, to, driver, reason, error));
    return this.getPlan(planId);
  }

  async startPlan(planId: string, driver: Driver = 'engine'): Promise<PlanRecord> {
    await this.#write(async (ctx) => movePlan(ctx, planId, await startTarget(ctx, planId), driver, 'started'));
    return this.getPlan(planId);
  }

  async cancelPlan(planId: string, driver: Driver, reason?: string): Promise<PlanRecord> {
    return this.setPlanStatus(planId, 'cancelled', driver, reason ?? 'cancelled');
  }

  // --- worker primitives ------------------------------------------------------------------------
  async claimReady(options: ClaimOptions): Promise<ClaimedNode[]> {
    if (options.limit <= 0) return [];
    if (this.#db.dialect === 'postgres') {
      if (this.#withDependents.size > 100_000) this.#withDependents.clear(); // tokens of lost leases: only a hint
      return claimPostgres(this.#db, options, this.#withDependents);
    }
    return this.#db.tx((q) => claimSqlite(q, options));
  }

  async renewLeases(owner: string, tokens: string[], leaseMs: number): Promise<string[]> {
    if (tokens.length === 0) return [];
    return renewLeases(this.#db, owner, tokens, leaseMs);
  }

  async expireLeases(options: ExpireOptions = {}): Promise<number> {
    let total = 0;
    for (;;) {
      const count = await this.#write((ctx) => expireLeases(ctx, options.defaultRetries ?? DEFAULT_EXPIRY_RETRIES));
      total += count;
      if (count < 500) return total;
    }
  }

  async finishAttempt(token: string, outcome: AttemptOutcome): Promise<NodeRecord> {
    const [result] = await this.finishAttempts([{ token, outcome }]);
    if (result instanceof Error) throw result;
    return result!;
  }

  async finishAttempts(requests: FinishRequest[], handOff?: HandOff): Promise<Array<NodeRecord | Error>> {
    const results: Array<NodeRecord | Error | undefined> = new Array(requests.length);
    let limit: number | undefined;
    const only = requests.length === 1 ? requests[0]! : undefined;
    if (this.#db.dialect === 'postgres' && only?.outcome.status === 'done' && this.#withDependents.get(only.token) === 1) {
      limit = handOff?.reserve();
      const record = await this.#finishChain(only, handOff, (limit ?? 0) > 0);
      if (record) return [record];
    }
    if (this.#db.dialect === 'postgres') {
      const fast = await finishFastPostgres(this.#db, requests, (r) => r.outcome.status === 'done' && this.#withDependents.has(r.token));
      for (const r of requests) this.#withDependents.delete(r.token);
      const settle = new Set<string>();
      const wakes: WakeEvent[] = [];
      for (const { index, row, ready } of fast) {
        results[index] = toNodeRecord(row);
        if (ready) wakes.push({ reason: 'ready', planId: row.planId });
        else {
          wakes.push({ reason: 'finished', planId: row.planId });
          settle.add(row.planId);
        }
      }
      const payloads = this.#wakes.payloads(wakes);
      if (payloads.length > 0) await this.#db.all(`SELECT ${payloads.map(() => 'pg_notify(?, ?)').join(', ')}`, payloads.flatMap((p) => [WAKE_CHANNEL, p]));
      for (const planId of settle) {
        const wake = await settlePlan(this.#db, planId);
        if (wake) wakes.push(wake);
      }
      this.#wakes.emit(wakes);
    }
    const rest = requests.map((request, index) => ({ request, index })).filter(({ index }) => results[index] === undefined);
    if (rest.length > 0) {
      let claims: ClaimedNode[] = [];
      let launched = false;
      const requeued = rest.some(({ request: { outcome } }) => outcome.status === 'released' || (outcome.status === 'failed' && outcome.retryAt !== undefined));
      const launch = () => {
        if (limit === undefined || launched) return;
        launched = true;
        handOff!.launch(claims);
      };
      const done = await this.#write(
        async (ctx) => {
          claims = [];
          const plans: PlanCache = new Map();
          const out: Array<Finished | Error> = [];
          for (const { request } of rest) {
            try {
              out.push(await finishAttemptInTx(ctx, request.token, request.outcome, plans));
            } catch (error) {
              if (!(error instanceof ConflictError)) throw error;
              out.push(error);
            }
          }
          // Hand the freed slots on: claim the new ready work in this same transaction.
          if (handOff && ctx.wakes.some((w) => w.reason === 'ready')) {
            limit ??= handOff.reserve();
            if (limit > 0) {
              const options = { owner: handOff.owner, leaseMs: handOff.leaseMs, limit };
              claims = ctx.q.dialect === 'postgres' ? await claimPostgres(ctx.q, options, this.#withDependents) : await claimSqlite(ctx.q, options);
            }
            if (claims.length < limit && !requeued) {
              // It took all there was: no worker needs waking for it, and those plans have running
              // nodes, whose finishers settle them. (A retry due later keeps its wake-up: the
              // worker sets its timer from it.)
              for (const w of ctx.wakes) if (w.reason === 'ready' && w.planId !== undefined) ctx.settle.delete(w.planId);
              ctx.wakes = ctx.wakes.filter((w) => w.reason !== 'ready');
            }
          }
          return out;
        },
        launch,
      ).finally(() => {
        claims = [];
        launch();
      });
      const byPlan = new Map<string, string[]>();
      for (const r of done) if (!(r instanceof Error) && !r.record) byPlan.set(r.planId, [...(byPlan.get(r.planId) ?? []), r.nodeId]);
      const records = new Map<string, NodeRecord>();
      for (const [planId, ids] of byPlan) for (const node of await this.#nodes(planId, ids)) records.set(`${planId}\u0000${node.id}`, node);
      done.forEach((r, i) => {
        results[rest[i]!.index] = r instanceof Error ? r : (r.record ?? records.get(`${r.planId}\u0000${r.nodeId}`)!);
      });
    }
    return results as Array<NodeRecord | Error>;
  }

  /**
   * The chain step (PostgreSQL): one statement finishes the node and moves its only dependent on,
   * claimed for the hand-off when it reserved a slot. Undefined: nothing was written (the token
   * no longer holds, the shape differs, or the statement failed) and the general path decides;
   * the hand-off's reservation then carries over to it.
   */
  async #finishChain(request: FinishRequest, handOff: HandOff | undefined, claim: boolean): Promise<NodeRecord | undefined> {
    // A failed statement wrote nothing (it is its own transaction): the general path retries it.
    // A deadlock or serialization failure wrote nothing: the general path below retries it.
    // Any other error is a bug and surfaces.
    const chained = await finishChainPostgres(this.#db, request, claim ? handOff : undefined).catch((error: unknown) => {
      if (isRetryableDbError(error)) return undefined;
      throw error;
    });
    if (!chained) return undefined;
    this.#withDependents.delete(request.token);
    const { row, claims } = chained;
    if (claims.length > 0 && chained.dependents > 0) this.#withDependents.set(claims[0]!.token, chained.dependents);
    handOff?.launch(claims);
    const wakes: WakeEvent[] = [{ reason: 'finished', planId: row.planId }];
    if (chained.next === 'ready') {
      wakes.push({ reason: 'ready', planId: row.planId });
      const payloads = this.#wakes.payloads(wakes);
      await this.#db.all(`SELECT ${payloads.map(() => 'pg_notify(?, ?)').join(', ')}`, payloads.flatMap((p) => [WAKE_CHANNEL, p]));
    }
    this.#wakes.emit(wakes);
    // Nothing moved on in a running plan (the dependent was no longer pending): maybe it is over.
    if (chained.planRunning && chained.next === undefined) {
      const wake = await settlePlan(this.#db, row.planId);
      if (wake) this.#wakes.emit([wake]);
    }
    return toNodeRecord(row);
  }

  async answerNode(planId: string, nodeId: string, text: string, driver: Driver): Promise<NodeRecord> {
    await this.#write((ctx) => answer(ctx, planId, nodeId, text, driver));
    return (await this.#nodes(planId, [nodeId]))[0]!;
  }

  countActive(): Promise<ActiveCounts> {
    return countActive(this.#db);
  }

  onWake(listener: (event: WakeEvent) => void): () => void {
    return this.#wakes.on(listener);
  }

  /** Resolves once this store receives other processes' wake-ups (PostgreSQL LISTEN is active). */
  get listening(): Promise<void> {
    return this.#wakes.listening;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#wakes.close();
    await this.#db.close();
  }

  // --- plumbing -------------------------------------------------------------------------------
  /**
   * One write transaction with its wake-ups and plan settlement: on SQLite the plans settle inside
   * the transaction (writers are serialised), on PostgreSQL right after commit (see settlePlan);
   * NOTIFY is sent inside the transaction so that it is delivered exactly when the rows are visible.
   */
  async #write<T>(fn: (ctx: TxContext) => Promise<T>, afterCommit?: () => void): Promise<T> {
    let wakes: WakeEvent[] = [];
    let settle = new Set<string>();
    const result = await this.#db.tx(async (q: Queryable) => {
      const ctx: TxContext = { q, wakes: [], settle: new Set() };
      const value = await fn(ctx);
      if (q.dialect === 'sqlite') {
        for (const planId of ctx.settle) {
          const wake = await settlePlan(q, planId);
          if (wake) ctx.wakes.push(wake);
        }
        ctx.settle.clear();
      } else {
        const payloads = this.#wakes.payloads(ctx.wakes);
        if (payloads.length > 0) await q.all(`SELECT ${payloads.map(() => 'pg_notify(?, ?)').join(', ')}`, payloads.flatMap((p) => [WAKE_CHANNEL, p]));
      }
      wakes = ctx.wakes;
      settle = ctx.settle;
      return value;
    });
    // Start handed-off work and wake workers first (new ready work must not wait for the settle
    // round trip), then settle — except plans this transaction gave ready work: whoever finishes
    // that work settles them.
    afterCommit?.();
    this.#wakes.emit(wakes);
    const settled: WakeEvent[] = [];
    for (const wake of wakes) if (wake.reason === 'ready' && wake.planId !== undefined) settle.delete(wake.planId);
    for (const planId of settle) {
      const wake = await settlePlan(this.#db, planId);
      if (wake) settled.push(wake);
    }
    this.#wakes.emit(settled);
    return result;
  }

  async #nodes(planId: string, nodeIds: readonly string[]): Promise<NodeRecord[]> {
    const out: NodeRecord[] = [];
    for (const part of chunk(nodeIds)) {
      const rows = await this.#db.all<NodeRow>(`SELECT ${NODE_COLUMNS} FROM nodes WHERE plan_id = ? AND node_id IN (${marks(part.length)}) ORDER BY id`, [planId, ...part]);
      out.push(...rows.map(toNodeRecord));
    }
    return out;
  }
}

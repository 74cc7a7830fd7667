import pg from 'pg';
import { openStore } from '../store/index.js';
import type { CreatePlanInput } from '../store/types.js';
import type { ToolCatalogue } from '../tools/types.js';
import { RunLog } from './scenarios/run-log.js';
import { runPlan } from './scenarios/run-plan.js';
import { agentChainPlan, agentWorld } from './scenarios/agents.js';
import { chainPlan, independentPlan, joinPlan } from './scenarios/shapes.js';
import { startPrivatePostgres } from './private-postgres.js';

/** The counters of a run, summed: statements and what they did, from pg_stat_statements and the statistics views. */
export interface Costs {
  roundTrips: number;
  commits: number;
  rows: number;
  buffers: number;
  walBytes: number;
  indexEntries: number;
  heap: Record<string, { inserted: number; updated: number; hot: number; indexes: string }>;
  /** Scans of each index of the tables (pg_stat_user_indexes), unused ones included: what the run looked up through it. */
  indexScans: Record<string, number>;
  statements: Array<{ query: string; calls: number; rows: number; walBytes: number; execMs: number; planMs: number }>;
}

const TABLES = ['plans', 'nodes', 'edges', 'events', 'revisions'];
/** Our own measuring queries, left out of the counts. */
const MEASURING = /pg_stat|pgstattuple|pg_current_wal|pg_relation|pg_index/;

/**
 * The measuring connection. Each of its statements is a transaction of its own, counted in the database's
 * commits like the worker's: it counts them, so that they are taken out (how many it runs depends on how long
 * the statistics take to settle, so on the machine's load).
 */
class Probe {
  issued = 0;
  constructor(private readonly client: pg.Client) {}

  query<R extends pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<pg.QueryResult<R>> {
    this.issued++;
    return this.client.query<R>(sql, params);
  }

  /**
   * The database's committed transactions, this connection's own included up to now: a backend reports its
   * counters when idle at most once a second unless told to (pg_stat_force_next_flush, PostgreSQL 15), and it
   * does so before it answers, so the next statement reads them. `issued` is how many of its own are in.
   */
  async commits(): Promise<{ commits: number; issued: number }> {
    await this.query('SELECT pg_stat_force_next_flush()');
    const issued = this.issued;
    const n = (await this.query<{ n: string }>('SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()')).rows[0]!.n;
    return { commits: Number(n), issued };
  }
}

async function snapshot(client: Probe) {
  const wal = (await client.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0]!.lsn;
  const commits = await client.commits();
  const tables = (
    await client.query<{ relname: string; ins: string; upd: string; hot: string }>(
      `SELECT relname, n_tup_ins AS ins, n_tup_upd AS upd, n_tup_hot_upd AS hot FROM pg_stat_user_tables WHERE relname = ANY($1)`,
      [TABLES],
    )
  ).rows;
  // Index items as pgstattuple counts them (live and dead: autovacuum is off, so nothing is taken away).
  const items = (
    await client.query<{ n: string }>(
      `SELECT COALESCE(SUM(s.tuple_count + s.dead_tuple_count), 0) AS n FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid, LATERAL pgstattuple(i.indexrelid) s WHERE t.relname = ANY($1)`,
      [TABLES],
    )
  ).rows[0]!.n;
  const indexes = (
    await client.query<{ relname: string; n: string; partial: string }>(
      `SELECT t.relname, count(*) AS n, count(*) FILTER (WHERE i.indpred IS NOT NULL) AS partial FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid WHERE t.relname = ANY($1) GROUP BY t.relname`,
      [TABLES],
    )
  ).rows;
  const scans = (
    await client.query<{ name: string; n: string }>(`SELECT indexrelname AS name, idx_scan AS n FROM pg_stat_user_indexes WHERE relname = ANY($1)`, [TABLES])
  ).rows;
  return {
    wal,
    commits,
    scans: new Map(scans.map((i) => [i.name, Number(i.n)])),
    tables: new Map(tables.map((t) => [t.relname, t])),
    items: Number(items),
    indexes: new Map(indexes.map((i) => [i.relname, `${i.n} indexes${Number(i.partial) > 0 ? ` (${i.partial} partial)` : ''}`])),
  };
}

/**
 * Waits until the statistics views stop changing: a backend reports its table counters when it ends
 * (or, idle, up to seconds later), so the stores are closed before the counters are read.
 */
async function settled(client: Probe): Promise<void> {
  let last = '';
  for (let i = 0; i < 30; i++) {
    const now = JSON.stringify((await client.query(`SELECT relname, n_tup_ins, n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables ORDER BY relname`)).rows);
    if (now === last) return;
    last = now;
    await new Promise((resolve) => setTimeout(resolve, 1100));
  }
}

/** A plan made (and started) by a store of its own, before anything is counted: only running it is. */
async function created(url: string, input: CreatePlanInput): Promise<string> {
  const store = await openStore({ url });
  try {
    return (await store.plans.create(input)).id;
  } finally {
    await store.close();
  }
}

/**
 * Runs the plan to its end with a real worker (concurrency 10) on a store of its own, and counts what
 * that cost the server; the store is closed before the counters are read (so that they are all in).
 */
async function measure(client: Probe, url: string, tools: ToolCatalogue, planId: string, agents?: number): Promise<Costs> {
  await settled(client);
  await client.query('SELECT pg_stat_statements_reset()');
  const before = await snapshot(client);
  const store = await openStore({ url });
  // Agent nodes need the starter of their children (the bench's one-node workflow agent).
  const world = agents !== undefined ? await agentWorld(store, tools, agents + 10) : undefined;
  try {
    // The product's default poll (every 30 s): what is counted is per step, not per second of a slow machine.
    await runPlan(store, tools, planId, 10, 600_000, { pollSeconds: 30, ...(world ? { children: world.children } : {}) });
  } finally {
    await world?.dispose();
    await store.close();
  }
  await settled(client);
  const after = await snapshot(client);
  const statements = (
    await client.query<{ query: string; calls: string; rows: string; blocks: string; wal: string; ms: string; plan: string }>(
      `SELECT query, calls, rows, shared_blks_hit + shared_blks_read AS blocks, wal_bytes AS wal, total_exec_time AS ms, total_plan_time AS plan FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    )
  ).rows.filter((s) => !MEASURING.test(s.query));
  const heap: Costs['heap'] = {};
  for (const table of TABLES) {
    const [a, b] = [after.tables.get(table), before.tables.get(table)];
    if (!a || !b) continue;
    heap[table] = {
      inserted: Number(a.ins) - Number(b.ins),
      updated: Number(a.upd) - Number(b.upd),
      hot: Number(a.hot) - Number(b.hot),
      indexes: after.indexes.get(table) ?? 'no indexes',
    };
  }
  const walDiff = (await client.query<{ d: string }>('SELECT pg_wal_lsn_diff($1, $2) AS d', [after.wal, before.wal])).rows[0]!.d;
  return {
    roundTrips: statements.reduce((n, s) => n + Number(s.calls), 0),
    // The measuring connection's own statements between the two readings are not the run's.
    commits: after.commits.commits - before.commits.commits - (after.commits.issued - before.commits.issued),
    rows: statements.reduce((n, s) => n + Number(s.rows), 0),
    buffers: statements.reduce((n, s) => n + Number(s.blocks), 0),
    walBytes: Number(walDiff),
    indexEntries: after.items - before.items,
    heap,
    indexScans: Object.fromEntries([...after.scans].map(([name, n]) => [name, n - (before.scans.get(name) ?? 0)])),
    statements: statements
      .map((s) => ({
        query: s.query.replace(/\s+/g, ' '),
        calls: Number(s.calls),
        rows: Number(s.rows),
        walBytes: Number(s.wal),
        execMs: Number(s.ms),
        planMs: Number(s.plan),
      }))
      .sort((a, b) => b.calls - a.calls),
  };
}

const per = (value: number, count: number) => (value / count).toFixed(value / count >= 100 ? 0 : 2);

function report(name: string, unit: string, count: number, costs: Costs): string[] {
  const lines = [`${name}: per ${unit} (${count} ${unit}s)`];
  lines.push(`  statements (BEGIN and COMMIT included; a transaction's pipelined ones share a round trip)  ${per(costs.roundTrips, count)}`);
  lines.push(`  transactions committed (a statement on its own is one)  ${per(costs.commits, count)}`);
  lines.push(`  rows returned or written  ${per(costs.rows, count)}`);
  lines.push(`  buffers touched  ${per(costs.buffers, count)}`);
  lines.push(`  WAL bytes  ${per(costs.walBytes, count)}`);
  lines.push(`  index items added (B-tree deduplication keeps one item for entries of the same key)  ${per(costs.indexEntries, count)}`);
  for (const [table, h] of Object.entries(costs.heap)) {
    if (h.inserted + h.updated === 0) continue;
    lines.push(`  ${table}: rows inserted ${per(h.inserted, count)}, updated ${per(h.updated, count)} (HOT ${per(h.hot, count)}); ${h.indexes}`);
  }
  const scans = Object.entries(costs.indexScans).sort(([a], [b]) => a.localeCompare(b));
  lines.push(`  index scans: ${scans.map(([name, n]) => `${name} ${per(n, count)}`).join(', ')}`);
  lines.push(`  statements, most called first (calls, rows, WAL bytes, server time executing and planning in ms, per ${unit}):`);
  for (const s of costs.statements.slice(0, 12))
    lines.push(
      `    ${per(s.calls, count).padStart(6)} ${per(s.rows, count).padStart(7)} ${per(s.walBytes, count).padStart(7)} ${(s.execMs / count).toFixed(3).padStart(7)} ${(s.planMs / count).toFixed(3).padStart(7)}  ${s.query.slice(0, 90)}`,
    );
  return lines;
}

/** The counts of the runs, and the server they were taken on. */
export interface StepCosts {
  server: string;
  chain: { steps: number; costs: Costs };
  throughput: { nodes: number; costs: Costs };
  /** A join of `parents` independent nodes (the bench's join), per parent. */
  join?: { parents: number; costs: Costs };
  /** A chain of agent nodes, each running a one-node workflow child (the agent step of `dotplan bench`). */
  agents?: { steps: number; costs: Costs };
}

/**
 * What a step costs on PostgreSQL, counted rather than timed (so that the next change can be compared
 * on any machine): a chain of `chain` no-op nodes, `nodes` independent ones, a join of `join` parents and
 * a chain of `agents` agent nodes, each run to its end by a real worker on a private server with
 * pg_stat_statements.
 */
export async function measureStepCosts(
  sizes: { chain: number; nodes: number; join?: number; agents?: number } = { chain: 500, nodes: 10_000, join: 10_000, agents: 200 },
): Promise<StepCosts> {
  // Autovacuum off: what a run wrote stays countable (nothing is cleaned up behind the counts).
  const server = await startPrivatePostgres({
    shared_preload_libraries: 'pg_stat_statements',
    'pg_stat_statements.track': 'all',
    'pg_stat_statements.track_planning': 'on',
    autovacuum: 'off',
    jit: 'off',
  });
  try {
    const connection = new pg.Client({ connectionString: server.url });
    await connection.connect();
    const client = new Probe(connection);
    try {
      await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
      await client.query('CREATE EXTENSION IF NOT EXISTS pgstattuple');
      const log = new RunLog();
      const tools = await log.registry();
      const chain = await measure(client, server.url, tools, await created(server.url, chainPlan(sizes.chain)));
      const throughput = await measure(client, server.url, tools, await created(server.url, independentPlan(sizes.nodes)));
      const join = sizes.join
        ? { parents: sizes.join, costs: await measure(client, server.url, tools, await created(server.url, joinPlan(sizes.join))) }
        : undefined;
      const agents = sizes.agents
        ? { steps: sizes.agents, costs: await measure(client, server.url, tools, await created(server.url, agentChainPlan(sizes.agents)), sizes.agents) }
        : undefined;
      return {
        server: await server.version(),
        chain: { steps: sizes.chain, costs: chain },
        throughput: { nodes: sizes.nodes, costs: throughput },
        ...(join ? { join } : {}),
        ...(agents ? { agents } : {}),
      };
    } finally {
      await connection.end();
    }
  } finally {
    await server.destroy();
  }
}

/** The counts per chain step and per node, as text. */
export function formatStepCosts(costs: StepCosts): string {
  return [
    `What a step costs: ${costs.server}, a private server (pg_stat_statements, autovacuum off), worker concurrency 10`,
    '',
    ...report('chain step', 'step', costs.chain.steps, costs.chain.costs),
    '',
    ...report('throughput', 'node', costs.throughput.nodes, costs.throughput.costs),
    ...(costs.join ? ['', ...report('join (its parents run, then the node joining them)', 'parent', costs.join.parents, costs.join.costs)] : []),
    ...(costs.agents ? ['', ...report('agent step (a one-node workflow child)', 'step', costs.agents.steps, costs.agents.costs)] : []),
  ].join('\n');
}

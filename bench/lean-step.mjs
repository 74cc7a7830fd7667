#!/usr/bin/env node
// A prototype of a lean PostgreSQL chain step (the perf issue's item 1), timed against the floor: the same
// main writes as a step's one statement — two node rows (the finished node and the next one, with its
// lease) checked against what the step expects in the UPDATE's WHERE, three events, the plan's updated_at —
// from typed arrays (`unnest`), with no lock-only CTEs, no JSON in or out, and nothing else (no claim of
// other ready nodes, no notify, no plan moves, no abort on a mismatch). Run as a named prepared statement
// under plan_cache_mode `auto` (PostgreSQL's default: it kept planning this one afresh, a custom plan per
// call) and `force_generic_plan`, alternating; p50 round trip of each, and of the floor's bare UPDATE.
//   npm run build && node bench/lean-step.mjs [rounds]
// DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres): a scratch database is made.
import pg from 'pg';
import { openScratchStore } from '../dist/bench/scratch-store.js';
import { chainPlan } from '../dist/bench/scenarios/shapes.js';
import { measureFloor } from '../dist/bench/floor.js';

const ROUNDS = Number(process.argv[2] ?? 3);
const STEPS = 1_500;
const server = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const NOW = `(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::bigint`;
const LEAN =
  `WITH v AS (SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::int[], $6::int[], $7::int[], $8::int[], $9::text[], $10::bool[]) ` +
  `AS v(id, exp_status, exp_token, status, exp_waiting, waiting, exp_taken, taken, output, claim)), ` +
  `u AS (UPDATE nodes n SET status = v.status, waiting = v.waiting, taken = v.taken, output = COALESCE(v.output, n.output), ` +
  `lease_owner = CASE WHEN v.claim THEN $11 END, lease_token = CASE WHEN v.claim THEN n.id || '.' || replace(gen_random_uuid()::text, '-', '') END, ` +
  `lease_expires_at = CASE WHEN v.claim THEN ${NOW} + 10000 END, attempts = n.attempts + v.claim::int, ` +
  `started_at = CASE WHEN v.claim THEN ${NOW} ELSE n.started_at END, finished_at = CASE WHEN v.claim THEN n.finished_at ELSE ${NOW} END, updated_at = ${NOW} ` +
  `FROM v WHERE n.id = v.id AND n.id = ANY($1) AND n.status = v.exp_status AND n.waiting = v.exp_waiting AND n.taken = v.exp_taken ` +
  `AND n.lease_token IS NOT DISTINCT FROM v.exp_token RETURNING n.id, n.lease_token), ` +
  `e AS (INSERT INTO events (plan_id, node_id, kind, driver, actor, from_status, to_status, reason, detail, at) ` +
  `SELECT $12, x.node, 'status', 'engine', $11, x.f, x.t, x.r, NULL, ${NOW} FROM unnest($13::text[], $14::text[], $15::text[], $16::text[]) AS x(node, f, t, r)), ` +
  `p AS (UPDATE plans SET updated_at = ${NOW} WHERE id = $12) ` +
  `SELECT u.id, u.lease_token FROM u`;

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** One chain of STEPS lean steps on its own connection in `mode`; the p50 round trip over its second half, in ms. */
async function chain(url, mode) {
  const store = (await import('../dist/store/index.js')).openStore;
  const opened = await store({ url });
  const plan = await opened.plans.create(chainPlan(STEPS + 1));
  await opened.close();
  const client = new pg.Client({ connectionString: url, options: `-c jit=off -c plan_cache_mode=${mode}` });
  await client.connect();
  try {
    const rows = (await client.query('SELECT id, node_id FROM nodes WHERE plan_id = $1 ORDER BY id', [plan.id])).rows;
    await client.query(`UPDATE nodes SET status = 'running', waiting = 0, lease_owner = 'w', lease_token = 't', attempts = 1 WHERE id = $1`, [rows[0].id]);
    let token = 't';
    const times = [];
    for (let i = 0; i < STEPS; i++) {
      const [a, b] = [rows[i], rows[i + 1]];
      const values = [
        [a.id, b.id],
        ['running', 'pending'],
        [token, null],
        ['done', 'running'],
        [0, 1],
        [0, 0],
        [0, 0],
        [0, 0],
        [`out ${i}`, null],
        [false, true],
        'w',
        plan.id,
        [a.node_id, b.node_id, b.node_id],
        ['running', 'pending', 'ready'],
        ['done', 'ready', 'running'],
        [null, 'its dependencies are met', 'claimed by w'],
      ];
      const started = performance.now();
      const result = await client.query({ name: 'lean_step', text: LEAN, values });
      times.push(performance.now() - started);
      const next = result.rows.find((r) => r.id === b.id);
      if (result.rows.length !== 2 || !next?.lease_token) throw new Error(`step ${i}: the lean statement wrote ${result.rows.length} rows`);
      token = next.lease_token;
    }
    return median(times.slice(STEPS / 2));
  } finally {
    await client.end();
  }
}

const scratch = await openScratchStore({ backend: 'postgres', databaseUrl: server });
const url = scratch.store.target?.url;
await scratch.store.close();
try {
  const results = { auto: [], force_generic_plan: [], floor: [] };
  for (let r = 0; r < ROUNDS; r++) {
    for (const mode of r % 2 === 0 ? ['auto', 'force_generic_plan'] : ['force_generic_plan', 'auto']) results[mode].push(await chain(url, mode));
    const floor = await measureFloor({ connectionString: url, rateMs: 200 });
    results.floor.push(floor.find((f) => f.scenario === 'floor-latency').value);
  }
  for (const [name, list] of Object.entries(results)) {
    console.log(`${name.padEnd(19)} p50 ${median(list).toFixed(3)} ms (rounds: ${list.map((x) => x.toFixed(3)).join(', ')})`);
  }
} finally {
  await scratch.dispose();
}

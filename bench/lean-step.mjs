#!/usr/bin/env node
// Prototypes of a lean PostgreSQL chain step (the perf issue's item 1), timed against the floor. The
// prototype makes the same main writes as a step's one statement — two node rows (the finished node, and
// the next one with its lease) checked against what the step expects in the UPDATE's own WHERE, three
// events, the plan's updated_at — from typed arrays (`unnest`), with no lock-only CTEs and no JSON in or
// out, and nothing else (no claim of other ready nodes, no plan moves, no notify, no abort on a mismatch).
// Variants add back parts of the real statement (src/store/sql/persist-postgres.ts), to see what each
// costs. Each runs as a named prepared statement on a connection of its own, in alternating rounds; the
// p50 round trip (send to answer) over the second half of a chain of 1,500 steps, and the floor's.
//   npm run build && node bench/lean-step.mjs [rounds] [--layouts]
// DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres): a scratch database is made; its `options`
// (`?options=-c%20synchronous_commit%3Doff`, say) reach every connection.
import pg from 'pg';
import { openScratchFor } from '../dist/bench/scratch-store.js';
import { percentile } from '../dist/bench/stats.js';
import { chainPlan } from '../dist/bench/scenarios/shapes.js';
import { measureFloor } from '../dist/bench/floor.js';
import { openStore } from '../dist/store/index.js';
import { withServerOptions } from '../dist/store/pg-options.js';

/** The median as the bench takes its p50s (stats.ts: nearest rank). */
const p50 = (values) => percentile(values, 50);

const ROUNDS = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 3);
const STEPS = 1_500;
const NOW = `(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::bigint`;
/** The real statement's description of a handed node's dependents (claim.ts's BASIS_DEPENDENTS). */
const BASIS =
  `(SELECT CASE WHEN count(*) <= 500 THEN COALESCE(json_agg(d ORDER BY d.k), '[]'::json) END FROM (SELECT e.id AS k, c.id AS "rowId", ` +
  `c.node_id AS "to", e.when_match AS "when", c.type, c.status, c.attempts, c.waiting, c.taken FROM edges e JOIN nodes c ON c.plan_id = e.plan_id ` +
  `AND c.node_id = e.to_node WHERE e.plan_id = n.plan_id AND e.from_node = n.node_id LIMIT 501) d)`;

/**
 * The statement: `parts` adds the real statement's basis in RETURNING, rows out as json_agg with the
 * plan's columns, the plan touch that skips a locked plan, and the lock-only CTEs gating the writes;
 * `idle` adds its CTEs that do nothing in a chain step (plan moves, claims of other nodes, notify).
 */
function statement({ parts = false, idle = false, table = 'nodes', touch: touchPlan = true }) {
  const v =
    `v AS (SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::int[], $6::int[], $7::int[], $8::int[], $9::text[], $10::bool[]) ` +
    `AS v(id, exp_status, exp_token, status, exp_waiting, waiting, exp_taken, taken, output, claim))`;
  const locks = parts
    ? `, l AS (SELECT n.id FROM nodes n JOIN v ON v.id = n.id WHERE n.id = ANY($1) AND n.status = v.exp_status AND n.waiting = v.exp_waiting ` +
      `AND n.taken = v.exp_taken AND (v.exp_token IS NULL OR n.lease_token = v.exp_token) ORDER BY n.id FOR UPDATE OF n), ` +
      `pl AS (SELECT p.id FROM plans p WHERE p.id = $12 AND p.status = 'running' FOR KEY SHARE OF p), ` +
      `ok AS (SELECT count(*) = 2 AND (SELECT count(*) FROM pl) = 1 AS ok FROM l)`
    : '';
  const gate = parts ? ' AND (SELECT ok FROM ok)' : '';
  const returning =
    `n.id AS "rowId", n.plan_id AS "planId", n.node_id AS "nodeId", n.type, n.label, n.attributes, n.attempts, n.waiting, n.taken, ` +
    `n.lease_token AS "token", n.lease_expires_at AS "leaseExpiresAt", v.claim` +
    (parts ? `, CASE WHEN v.claim THEN ${BASIS} END AS "dependents"` : '');
  const u =
    `u AS (UPDATE ${table} n SET status = v.status, waiting = v.waiting, taken = v.taken, output = COALESCE(v.output, n.output), ` +
    `lease_owner = CASE WHEN v.claim THEN $11 END, lease_token = CASE WHEN v.claim THEN n.id || '.' || replace(gen_random_uuid()::text, '-', '') END, ` +
    `lease_expires_at = CASE WHEN v.claim THEN ${NOW} + 10000 END, attempts = n.attempts + v.claim::int, ` +
    `started_at = CASE WHEN v.claim THEN ${NOW} ELSE n.started_at END, finished_at = CASE WHEN v.claim THEN n.finished_at ELSE ${NOW} END, updated_at = ${NOW} ` +
    `FROM v WHERE n.id = v.id AND n.id = ANY($1) AND n.status = v.exp_status AND n.waiting = v.exp_waiting AND n.taken = v.exp_taken ` +
    `AND n.lease_token IS NOT DISTINCT FROM v.exp_token${gate} RETURNING ${returning})`;
  const events =
    `e AS (INSERT INTO events (plan_id, node_id, kind, driver, actor, from_status, to_status, reason, detail, at) ` +
    `SELECT $12, x.node, 'status', 'engine', $11, x.f, x.t, x.r, NULL, ${NOW} FROM unnest($13::text[], $14::text[], $15::text[], $16::text[]) AS x(node, f, t, r)` +
    `${parts ? ' WHERE (SELECT ok FROM ok)' : ''})`;
  const touch = parts
    ? `pt AS (SELECT p.id FROM plans p WHERE p.id = ANY(ARRAY(SELECT "planId" FROM u)) ORDER BY p.id FOR NO KEY UPDATE OF p SKIP LOCKED), ` +
      `ptu AS (UPDATE plans SET updated_at = ${NOW} WHERE plans.id = ANY(ARRAY(SELECT id FROM pt)))`
    : touchPlan
      ? `p AS (UPDATE plans SET updated_at = ${NOW} WHERE id = $12)`
      : `p AS (SELECT $12::text AS id)`;
  const nothing = idle
    ? `, pv AS (SELECT * FROM json_to_recordset(CAST($17 AS json)) AS pv(plan_id text, from_status text, to_status text, set_error boolean, error text)), ` +
      `pu AS (UPDATE plans SET status = pv.to_status, error = CASE WHEN pv.set_error THEN pv.error ELSE plans.error END, updated_at = ${NOW} ` +
      `FROM pv WHERE plans.id = pv.plan_id AND plans.id = ANY($18::text[]) AND plans.status = pv.from_status RETURNING plans.id), ` +
      `c AS (SELECT n.id FROM nodes n WHERE n.status = 'ready' AND n.held = 0 AND n.run_after <= ${NOW} ` +
      `AND (SELECT p.status FROM plans p WHERE p.id = n.plan_id) = 'running' AND n.id NOT IN (SELECT id FROM v) ORDER BY n.run_after, n.id ` +
      `LIMIT $19::int FOR UPDATE OF n SKIP LOCKED), ` +
      `cu AS (UPDATE nodes SET status = 'running', lease_owner = $11, attempts = nodes.attempts + 1 FROM c WHERE nodes.id = c.id RETURNING nodes.id), ` +
      `nt AS (SELECT pg_notify('dotplan_lean', x) FROM unnest($20::text[]) AS x)`
    : '';
  const more = idle ? `(SELECT count(*) FROM nt) AS "notified", (SELECT json_agg(id) FROM pu) AS "plans", (SELECT json_agg(id) FROM cu) AS "claimed", ` : '';
  const out = parts
    ? `SELECT ${more}(SELECT json_agg(x) FROM (SELECT u.*, pp.params, pp.attributes AS "planAttributes", pp.status AS "planStatus", pp.mode AS "planMode", ` +
      `pp.revision AS "planRevision", pp.root_plan_id AS "planRoot", pp.agent_code AS "planAgent" FROM u CROSS JOIN LATERAL ` +
      `(SELECT * FROM plans p WHERE p.id = u."planId") pp ORDER BY u."rowId") x) AS "rows"`
    : `SELECT ${more}u."rowId", u.token FROM u`;
  return `WITH ${v}${locks}, ${u}, ${events}, ${touch}${nothing} ${out}`;
}

const VARIANTS = {
  'prototype, planned per call (plan_cache_mode auto)': { mode: 'auto' },
  'prototype (a generic plan)': { mode: 'force_generic_plan' },
  '+ basis, json_agg out, touch skipping locked, lock CTEs': { mode: 'force_generic_plan', parts: true },
  '+ the CTEs idle in a chain step (plan moves, claims, notify)': { mode: 'force_generic_plan', parts: true, idle: true },
};

/**
 * Layouts the prototype could write into (`--layouts`): the hand-off of the next node as one event
 * (pending → running) instead of two, and a node table whose only indexes are its keys (`nodes_hot`, a
 * copy of `nodes` with fillfactor 70 and no trigger), so that a status move is a HOT update — the ready and
 * running lookups would then need a structure of their own, not written here.
 */
const LAYOUTS = {
  'prototype (a generic plan)': { mode: 'force_generic_plan' },
  'prototype, one event per hand-off (2 events)': { mode: 'force_generic_plan', events: 2 },
  'prototype on a HOT node table (keys only, fillfactor 70)': { mode: 'force_generic_plan', table: 'nodes_hot' },
  'HOT node table, 2 events': { mode: 'force_generic_plan', table: 'nodes_hot', events: 2 },
  'HOT node table, 2 events, no plan touch': { mode: 'force_generic_plan', table: 'nodes_hot', events: 2, touch: false },
};
const CHOSEN = process.argv.includes('--layouts') ? LAYOUTS : VARIANTS;

/** `nodes_hot` made once (a copy of `nodes` with only its keys indexed), and `planId`'s rows copied into it. */
async function copyIntoHotTable(client, planId) {
  await client.query(
    `DO $$ BEGIN IF to_regclass('nodes_hot') IS NULL THEN CREATE TABLE nodes_hot (LIKE nodes INCLUDING DEFAULTS) WITH (fillfactor = 70); ` +
      `ALTER TABLE nodes_hot ADD PRIMARY KEY (id); CREATE UNIQUE INDEX nodes_hot_plan_node ON nodes_hot (plan_id, node_id); END IF; END $$`,
  );
  await client.query(`INSERT INTO nodes_hot SELECT * FROM nodes WHERE plan_id = $1`, [planId]);
}

/** A chain of STEPS steps by `variant` on a connection of its own; the p50 round trip over its second half, in ms. */
async function chain(url, name, variant) {
  const store = await openStore({ url });
  const plan = await store.plans.create(chainPlan(STEPS + 1));
  await store.close();
  const client = new pg.Client(withServerOptions(url, `-c jit=off -c plan_cache_mode=${variant.mode}`));
  await client.connect();
  try {
    const table = variant.table ?? 'nodes';
    if (table === 'nodes_hot') await copyIntoHotTable(client, plan.id);
    const rows = (await client.query('SELECT id, node_id FROM nodes WHERE plan_id = $1 ORDER BY id', [plan.id])).rows;
    await client.query(`UPDATE ${table} SET status = 'running', waiting = 0, lease_owner = 'w', lease_token = 't', attempts = 1 WHERE id = $1`, [rows[0].id]);
    const text = statement(variant);
    const statementName = `lean_${Object.keys(CHOSEN).indexOf(name)}`;
    const handOff = variant.events === 2;
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
        ...(handOff
          ? [
              [a.node_id, b.node_id],
              ['running', 'pending'],
              ['done', 'running'],
              [null, 'its dependencies are met; claimed by w'],
            ]
          : [
              [a.node_id, b.node_id, b.node_id],
              ['running', 'pending', 'ready'],
              ['done', 'ready', 'running'],
              [null, 'its dependencies are met', 'claimed by w'],
            ]),
        ...(variant.idle ? ['[]', [], 9, []] : []),
      ];
      const started = performance.now();
      const result = await client.query({ name: statementName, text, values });
      times.push(performance.now() - started);
      const written = variant.parts ? (result.rows[0]?.rows ?? []) : result.rows;
      const next = written.find((r) => r.rowId === b.id);
      if (written.length !== 2 || !next?.token) throw new Error(`${name}, step ${i}: the statement wrote ${written.length} node rows`);
      token = next.token;
    }
    return p50(times.slice(STEPS / 2));
  } finally {
    await client.end();
  }
}

const scratch = await openScratchFor('postgres');
const url = scratch.store.target?.url;
try {
  const results = { ...Object.fromEntries(Object.keys(CHOSEN).map((name) => [name, []])), 'the floor (a bare UPDATE)': [] };
  for (let r = 0; r < ROUNDS; r++) {
    const names = Object.keys(CHOSEN);
    for (const name of r % 2 === 0 ? names : [...names].reverse()) results[name].push(await chain(url, name, CHOSEN[name]));
    const floor = await measureFloor({ connectionString: url, rateMs: 200 });
    results['the floor (a bare UPDATE)'].push(floor.find((f) => f.scenario === 'floor-latency').value);
  }
  for (const [name, list] of Object.entries(results)) {
    console.log(`${p50(list).toFixed(3)} ms  ${name} (rounds: ${list.map((x) => x.toFixed(3)).join(', ')})`);
  }
  const stats = new pg.Client({ connectionString: url });
  await stats.connect();
  await new Promise((resolve) => setTimeout(resolve, 1_000)); // the backends' statistics reach the view within a second
  const tables = await stats.query(
    `SELECT relname, n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname IN ('nodes', 'nodes_hot') ORDER BY relname`,
  );
  for (const t of tables.rows) console.log(`${t.relname}: ${t.n_tup_upd} updates, ${t.n_tup_hot_upd} HOT`);
  await stats.end();
} finally {
  await scratch.dispose();
}

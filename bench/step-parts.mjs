#!/usr/bin/env node
// The engine's own chain-step statement (stepQuery, src/store/sql/step-statement.ts: a finish from a claim's basis, the
// next node handed over, three events) run in a loop on one connection as a named prepared statement, as the worker
// runs it, with parts of its text cut out, to see what each part costs; alternating rounds, the p50 round trip (send to
// answer) over the second half of a chain of 1,500 steps, and the floor's. Each runs on its generic plan, as the
// engine's statement does (cutting parts can tip PostgreSQL's plan cache towards planning every call afresh, which would
// hide what the part cost); --auto leaves the choice to PostgreSQL. Beside each line, how many calls were planned
// afresh (custom plans, pg_prepared_statements).
//   npm run build && node bench/step-parts.mjs [rounds] [--grow <nodes>] [--costs] [--auto] [--only <variant>,<variant>]
// --grow: a plan of that many nodes is stored first, and the database analysed, as a database in use would be.
// --costs: each chain also prints the estimated cost of the statement's custom and generic plans (EXPLAIN EXECUTE);
// PostgreSQL keeps the generic plan while its cost is below the custom plans' with their planning.
// DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres): a scratch database is made.
import pg from 'pg';
import pgUtils from 'pg/lib/utils.js';
import { openScratchFor } from '../dist/bench/scratch-store.js';
import { percentile } from '../dist/bench/stats.js';
import { chainPlan } from '../dist/bench/scenarios/shapes.js';
import { measureFloor } from '../dist/bench/floor.js';
import { openStore } from '../dist/store/index.js';
import { stepQuery } from '../dist/store/sql/step-statement.js';
import { BASIS_DEPENDENTS } from '../dist/store/sql/claim.js';
import { withNow } from '../dist/store/sql/executor.js';
import { withServerOptions } from '../dist/store/pg-options.js';

const args = process.argv.slice(2);
const option = (name) => {
  const at = args.indexOf(name);
  return at >= 0 ? args.splice(at, 2)[1] : undefined;
};
const flag = (name) => {
  const at = args.indexOf(name);
  return at >= 0 && args.splice(at, 1).length > 0;
};
const grow = Number(option('--grow') ?? 0);
const only = option('--only');
const costs = flag('--costs');
const auto = flag('--auto');
const ROUNDS = Number(args[0] ?? 3);
const STEPS = 1_500;
const p50 = (values) => percentile(values, 50);

/** The variants: the statement's text with a part cut out (each cut checks that it found its part). */
const cut = (find, replace) => (text) => {
  const out = text.replace(find, replace);
  if (out === text) throw new Error(`the statement has no ${find}`);
  return out;
};
const CUTS = {
  'no dependents read back': cut(`CASE WHEN (v.f & 16) <> 0 THEN ${BASIS_DEPENDENTS} END`, 'NULL::json'),
  'no key-share lock of the plan': cut(' FOR KEY SHARE OF p)', ')'),
  'no plan touch': cut(
    /pt AS \(.*?\), ptu AS \(UPDATE plans SET updated_at = NOW WHERE plans\.id = ANY\(ARRAY\(SELECT id FROM pt\)\)\)/,
    'pt AS (SELECT 1), ptu AS (SELECT 1)',
  ),
  'no check function': cut('dotplan_step_holds(', '('),
  'no events': cut(/e AS \(INSERT INTO events .*?\) x ORDER BY k\)/, 'e AS (SELECT 1)'),
};
const VARIANTS = {
  'the statement': (text) => text,
  ...CUTS,
  'no id list in the node update': cut('AND nodes.id = ANY(CAST(? AS int[])) AND', 'AND CAST(? AS int[]) IS NOT NULL AND'),
  'the writes alone (all five cut)': (text) => Object.values(CUTS).reduce((t, f) => f(t), text),
};
const chosen = only === undefined ? Object.keys(VARIANTS) : only.split(',');

/** `?` → `$n` and `NOW` → the database clock, as postgres-db.ts sends a statement. */
function toPg(source) {
  let n = 0;
  return withNow(source, 'postgres').replace(/\?/g, () => `$${++n}`);
}

/** Node `i` done under lease `token`, node `i + 1` handed over: the rows a worker's chain step writes (captured from one). */
function chainStep(planId, revision, rows, i, token) {
  const [done, next] = [rows[i], rows[i + 1]];
  const base = { plan_id: planId, set_answer: false, answer: null, set_skipped_by: false, skipped_by: null, attributes: null, waits: false, relative: false };
  const event = (ord, node, from, to, reason) => ({
    ord,
    plan_id: planId,
    node_id: node,
    kind: 'status',
    driver: 'engine',
    actor: 'w',
    from_status: from,
    to_status: to,
    reason,
    detail: null,
    plan_move: false,
  });
  return {
    nodes: [
      {
        ...base,
        id: done.id,
        node_id: done.node_id,
        exp_status: 'running',
        exp_waiting: 0,
        exp_taken: i === 0 ? 0 : 1,
        exp_token: token,
        status: 'done',
        waiting: 0,
        taken: i === 0 ? 0 : 1,
        set_output: true,
        output: 'null',
        set_error: true,
        error: null,
        attempts: null,
        run_after_delay: null,
        claim: false,
        clear_lease: true,
        finished: true,
      },
      {
        ...base,
        id: next.id,
        node_id: next.node_id,
        exp_status: 'pending',
        exp_waiting: 1,
        exp_taken: 0,
        exp_token: null,
        status: 'running',
        waiting: 0,
        taken: 1,
        set_output: false,
        output: null,
        set_error: false,
        error: null,
        attempts: 1,
        run_after_delay: 0,
        claim: true,
        clear_lease: false,
        finished: false,
      },
    ],
    plans: [],
    events: [
      event(0, done.node_id, 'running', 'done', null),
      event(1, next.node_id, 'pending', 'ready', 'its dependencies are met'),
      event(2, next.node_id, 'ready', 'running', 'claimed by w'),
    ],
    expect: [{ plan_id: planId, status: 'running', revision }],
  };
}

/** A chain of STEPS steps by `variant` on a connection of its own: its p50 round trip (ms) and the plans it was run on. */
async function chain(url, variant) {
  const store = await openStore({ url });
  const plan = await store.plans.create(chainPlan(STEPS + 1));
  await store.close();
  const client = new pg.Client(withServerOptions(url, `-c jit=off${auto ? '' : ' -c plan_cache_mode=force_generic_plan'}`));
  await client.connect();
  try {
    await client.query(`UPDATE plans SET status = 'running' WHERE id = $1`, [plan.id]);
    const revision = (await client.query('SELECT revision FROM plans WHERE id = $1', [plan.id])).rows[0].revision;
    const rows = (await client.query('SELECT id, node_id FROM nodes WHERE plan_id = $1 ORDER BY id', [plan.id])).rows;
    await client.query(`UPDATE nodes SET status = 'running', waiting = 0, lease_owner = 'w', lease_token = 't', attempts = 1 WHERE id = $1`, [rows[0].id]);
    const known = new Map([[plan.id, { params: {}, planAttributes: {}, status: 'running', mode: 'workflow', revision }]]);
    const name = `step_parts_${Object.keys(VARIANTS).indexOf(variant)}`;
    let token = 't';
    let values;
    const times = [];
    for (let i = 0; i < STEPS; i++) {
      const q = stepQuery(
        chainStep(plan.id, revision, rows, i, token),
        { owner: 'w', leaseMs: 30_000, limit: 10, claimOthers: false },
        { channel: 'x', payloads: [] },
        known,
      );
      values = q.values;
      const started = performance.now();
      const result = await client.query({ name, text: toPg(VARIANTS[variant](q.text)), values });
      times.push(performance.now() - started);
      const next = result.rows.find((r) => r.rowId === rows[i + 1].id);
      if (!next?.token) throw new Error(`${variant}, step ${i}: the next node was not handed over`);
      token = next.token;
    }
    const [planned] = (await client.query('SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = $1', [name])).rows;
    let cost = '';
    if (costs) {
      const literals = values.map((v) => (v === null || v === undefined ? 'NULL' : client.escapeLiteral(String(pgUtils.prepareValue(v))))).join(', ');
      const estimate = async (mode) => {
        await client.query(`SET plan_cache_mode = ${mode}`); // (set back for the next chain's connection: each has its own)
        const [line] = (await client.query(`EXPLAIN EXECUTE ${name}(${literals})`)).rows;
        return /cost=[\d.]+\.\.([\d.]+)/.exec(line['QUERY PLAN'])[1];
      };
      cost = `; cost custom ${await estimate('force_custom_plan')}, generic ${await estimate('force_generic_plan')}`;
    }
    return { ms: p50(times.slice(STEPS / 2)), note: `${planned.custom_plans} custom plans${cost}` };
  } finally {
    await client.end();
  }
}

const scratch = await openScratchFor('postgres');
const url = scratch.store.target?.url;
try {
  if (grow > 0) {
    await scratch.store.plans.create(chainPlan(grow));
    const client = new pg.Client(url);
    await client.connect();
    await client.query('ANALYZE');
    await client.end();
  }
  const results = { ...Object.fromEntries(chosen.map((v) => [v, []])), 'the floor (a bare UPDATE)': [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const variant of round % 2 === 0 ? chosen : [...chosen].reverse()) {
      const result = await chain(url, variant);
      results[variant].push(result.ms);
      console.log(`round ${round + 1}: ${variant} ${result.ms.toFixed(3)} ms (${result.note})`);
    }
    const floor = await measureFloor({ connectionString: url, rateMs: 200 });
    results['the floor (a bare UPDATE)'].push(floor.find((f) => f.scenario === 'floor-latency').value);
  }
  for (const [name, list] of Object.entries(results)) {
    console.log(`${p50(list).toFixed(3)} ms  ${name} (rounds: ${list.map((x) => x.toFixed(3)).join(', ')})`);
  }
} finally {
  await scratch.dispose();
}

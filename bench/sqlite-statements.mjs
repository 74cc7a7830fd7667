#!/usr/bin/env node
// What each SQLite statement costs the worker's thread in a chain step, a throughput node or an agent step:
// runs a plan twice on a fresh database file with a real worker (concurrency 10, as in the bench) and times
// every call of every prepared statement in the second run (better-sqlite3's run/all/get, wrapped), COMMIT
// and BEGIN included. Prints the step's p50 (or the run's rate), then per statement text: its time per
// step (or node; the mean, so checkpoints and other outliers count), its calls and its p50 per call.
//   npm run build && node bench/sqlite-statements.mjs [chain|throughput|agent] [steps or nodes]
import { createRequire } from 'node:module';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

const require = createRequire(import.meta.url);
const Database = require('better-sqlite3');
const [kind = 'chain', size = kind === 'throughput' ? '10000' : kind === 'agent' ? '300' : '2000'] = process.argv.slice(2);
const n = Number(size);

// Every statement the store prepares from here on is timed while `timing` is on (the second run).
const calls = new Map();
let timing = false;
const prepare = Database.prototype.prepare;
Database.prototype.prepare = function (sql) {
  const statement = prepare.call(this, sql);
  const text = sql.replace(/\s+/g, ' ');
  for (const method of ['run', 'all', 'get']) {
    const original = statement[method];
    statement[method] = function (...args) {
      if (!timing) return original.apply(this, args);
      const start = process.hrtime.bigint();
      try {
        return original.apply(this, args);
      } finally {
        let times = calls.get(text);
        if (!times) calls.set(text, (times = []));
        times.push(Number(process.hrtime.bigint() - start) / 1000);
      }
    };
  }
  return statement;
};

const { openScratchStore } = await import('../dist/bench/scratch-store.js');
const { runPlan } = await import('../dist/bench/scenarios/run-plan.js');
const { chainPlan, independentPlan } = await import('../dist/bench/scenarios/shapes.js');
const { agentChainPlan, agentWorld } = await import('../dist/bench/scenarios/agents.js');
const { RunLog } = await import('../dist/bench/scenarios/run-log.js');
const { percentile, gaps } = await import('../dist/bench/stats.js');

const dir = await mkdtemp(path.join(os.tmpdir(), 'dotplan-sqlite-statements-'));
const scratch = await openScratchStore({ backend: 'sqlite', databaseUrl: `file:${path.join(dir, 'bench.db')}` });
try {
  const log = new RunLog();
  const tools = await log.registry();
  const world = kind === 'agent' ? await agentWorld(scratch.store, tools, 4 * n + 10) : undefined;
  for (let run = 0; run < 2; run++) {
    const shape = kind === 'throughput' ? independentPlan(n) : kind === 'agent' ? agentChainPlan(n) : chainPlan(n);
    const plan = await scratch.store.plans.create(shape);
    timing = run === 1;
    const timed = await runPlan(scratch.store, tools, plan.id, 10, 600_000, world ? { children: world.children } : {});
    timing = false;
    if (run === 0) continue;
    if (kind === 'throughput') console.log(`${Math.round(n / ((timed.finishedAt - timed.startedAt) / 1000)).toLocaleString('en-US')} nodes/s`);
    else {
      const starts = kind === 'agent' ? log.startsOf((await scratch.store.plans.nodes(plan.id)).map((node) => node.childPlanId)) : log.starts(plan.id);
      console.log(`p50 step ${percentile(gaps(starts), 50).toFixed(3)} ms`);
    }
  }
  await world?.dispose();
} finally {
  await scratch.dispose();
  await rm(dir, { recursive: true, force: true });
}

const per = kind === 'throughput' ? 'node' : 'step';
let total = 0;
const rows = [...calls].map(([text, times]) => {
  const sum = times.reduce((a, b) => a + b, 0);
  total += sum;
  return { text, count: times.length, p50: percentile(times, 50), each: sum / n };
});
rows.sort((a, b) => b.each - a.each);
for (const r of rows.filter((r) => r.each >= 0.05))
  console.log(
    `${r.each.toFixed(1).padStart(7)} µs/${per} ${String(r.count).padStart(7)} calls, p50 ${r.p50.toFixed(1).padStart(7)} µs  ${r.text.slice(0, 100)}`,
  );
console.log(`${(total / n).toFixed(1)} µs/${per} in all statements`);

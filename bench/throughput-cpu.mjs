#!/usr/bin/env node
// Where the PostgreSQL throughput scenario's CPU goes: 10,000 independent no-op nodes run by one worker
// (concurrency 10) on a warm process, each round timed from the worker's start to the plan's end, with the
// CPU time of this process (the worker, every thread) and of every `postgres` process on the machine (the
// server is local; Linux's /proc) over the same span, per node. Shows whether the scenario is bound by the
// machine's two cores or by waiting (round trips, the batches' turns).
//   npm run build && node bench/throughput-cpu.mjs [rounds]
// DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres): a scratch database is made.
import { readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import { openScratchFor } from '../dist/bench/scratch-store.js';
import { RunLog } from '../dist/bench/scenarios/run-log.js';
import { runPlan } from '../dist/bench/scenarios/run-plan.js';
import { independentPlan } from '../dist/bench/scenarios/shapes.js';

const ROUNDS = Number(process.argv[2] ?? 3);
const NODES = 10_000;
const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** CPU time (user + system, ms) of every process named `postgres`. */
function serverCpu() {
  let total = 0;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres') continue;
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      total += ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
    } catch {
      // the process ended meanwhile
    }
  }
  return total;
}

const scratch = await openScratchFor('postgres');
try {
  const log = new RunLog();
  const tools = await log.registry();
  const warm = await scratch.store.plans.create(independentPlan(3_000));
  await runPlan(scratch.store, tools, warm.id, 10, 120_000);
  for (let round = 1; round <= ROUNDS; round++) {
    const plan = await scratch.store.plans.create(independentPlan(NODES));
    const [server, worker] = [serverCpu(), process.cpuUsage()];
    const run = await runPlan(scratch.store, tools, plan.id, 10, 120_000);
    const workerMs = (({ user, system }) => (user + system) / 1000)(process.cpuUsage(worker));
    const serverMs = serverCpu() - server;
    const wallMs = run.finishedAt - run.startedAt;
    const busy = (workerMs + serverMs) / (wallMs * os.availableParallelism());
    console.log(
      `round ${round}: ${Math.round(NODES / (wallMs / 1000))} nodes/s; per node ${((workerMs / NODES) * 1000).toFixed(1)} µs of the worker's CPU and ` +
        `${((serverMs / NODES) * 1000).toFixed(1)} µs of the server's; the ${os.availableParallelism()} cores ${Math.round(busy * 100)}% busy`,
    );
  }
} finally {
  await scratch.dispose();
}

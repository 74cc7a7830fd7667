#!/usr/bin/env node
// CPU per step, beside the step's time: a chain (p50 step), a ladder (`ladder`: each step joins the step before and a
// side node of its own, as the bench's two-parent step; the p50 gap between the steps' starts), a chain of agent nodes each running a one-node workflow
// child (`agent`: p50 step, the gap between the children's tool starts, as the bench's agent step) or the throughput
// plan (nodes/s) run by a real worker
// (concurrency 10 unless told) on a scratch database, timed from the worker's start (the plan is stored before), with the CPU
// it cost per step or node: the worker's main thread, its other threads (V8's compiler and collector, the lease
// thread) and, on PostgreSQL, every local `postgres` process (read from /proc: run it on a machine doing nothing
// else). Each measurement is a process of its own, and its second run is the one counted (the first warms it).
// With --vs <checkout>, the other checkout's build runs in the same rounds, interleaved (A B, B A, …), so that a
// change is measured against the code before it on the same machine in the same minutes. --concurrency <n> (default
// 10, as in the bench): the worker's slots, and so how many nodes one write can carry.
//   npm run build && node bench/step-cpu.mjs [chain|ladder|agent|throughput] [steps or nodes] [rounds] [postgres|sqlite] [--vs ../other] [--concurrency n]
// PostgreSQL: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres); a scratch database per process.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));

if (process.argv[2] === '--one') {
  const [, , , dist, kind, n, backend, concurrency] = process.argv;
  console.log(JSON.stringify(await measureOnce(dist, kind, Number(n), backend, Number(concurrency))));
  process.exit(0);
}

const args = process.argv.slice(2);
const option = (name) => {
  const at = args.indexOf(name);
  return at >= 0 ? args.splice(at, 2)[1] : undefined;
};
const vs = option('--vs');
const other = vs === undefined ? undefined : path.resolve(vs);
const concurrency = option('--concurrency') ?? '10';
const [kind = 'chain', n = kind === 'chain' || kind === 'ladder' ? '2000' : kind === 'agent' ? '1000' : '10000', rounds = '3', backend = 'postgres'] = args;
const stepped = kind === 'chain' || kind === 'ladder' || kind === 'agent';
const builds = { A: path.resolve(HERE, '..', 'dist'), ...(other ? { B: path.join(other, 'dist') } : {}) };
const results = Object.fromEntries(Object.keys(builds).map((k) => [k, []]));
for (let round = 0; round < Number(rounds); round++) {
  const order = round % 2 === 0 ? Object.keys(builds) : Object.keys(builds).reverse();
  for (const build of order) {
    const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--one', builds[build], kind, n, backend, concurrency], { encoding: 'utf8' });
    const result = JSON.parse(out.trim().split('\n').at(-1));
    results[build].push(result);
    console.log(`round ${round + 1} ${build}: ${line(result)}`);
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
for (const [build, list] of Object.entries(results)) {
  const pick = (key) => list.map((r) => r[key]);
  const summary = Object.fromEntries(['value', 'main', 'other', 'postgres'].map((key) => [key, median(pick(key))]));
  const values = pick('value');
  console.log(`${build} (${builds[build]}), median of ${list.length}: ${line(summary)}; ${unit()} ${fmt(Math.min(...values))}–${fmt(Math.max(...values))}`);
}

function unit() {
  return stepped ? 'p50 step (ms)' : 'nodes/s';
}
function fmt(value) {
  return stepped ? value.toFixed(3) : Math.round(value).toLocaleString('en-US');
}
function line(r) {
  const per = stepped ? 'step' : 'node';
  const pg = backend === 'postgres' ? `, postgres ${r.postgres.toFixed(3)}` : '';
  return `${unit()} ${fmt(r.value)}; CPU ms per ${per}: main thread ${r.main.toFixed(3)}, other threads ${r.other.toFixed(3)}${pg}`;
}

async function measureOnce(dist, kind, steps, backend, concurrency) {
  const load = (p) => import(pathToFileURL(path.join(dist, p)).href);
  const { openScratchFor } = await load('bench/scratch-store.js');
  const { runPlan } = await load('bench/scenarios/run-plan.js');
  const { chainPlan, independentPlan, ladderPlan } = await load('bench/scenarios/shapes.js');
  const { RunLog } = await load('bench/scenarios/run-log.js');
  const { percentile, gaps } = await load('bench/stats.js');
  const { agentChainPlan, agentWorld } = await load('bench/scenarios/agents.js');
  const scratch = await openScratchFor(backend);
  const log = new RunLog();
  const tools = await log.registry();
  // Agent nodes' children are made of the bench's one-node template by a child starter of its own.
  const world = kind === 'agent' ? await agentWorld(scratch.store, tools, 2 * steps + 10) : undefined;
  let result;
  try {
    for (let run = 0; run < 2; run++) {
      const shape =
        kind === 'chain' ? chainPlan(steps) : kind === 'ladder' ? ladderPlan(steps) : kind === 'agent' ? agentChainPlan(steps) : independentPlan(steps);
      const plan = await scratch.store.plans.create(shape);
      const [threads0, pg0] = [threadTimes(), postgresTime()];
      const timed = await runPlan(scratch.store, tools, plan.id, concurrency, 600_000, world ? { children: world.children } : {});
      const [threads1, pg1] = [threadTimes(), postgresTime()];
      const main = threads1.get(String(process.pid)) - threads0.get(String(process.pid));
      let other = 0;
      for (const [tid, ms] of threads1) if (tid !== String(process.pid)) other += ms - (threads0.get(tid) ?? 0);
      const starts =
        kind === 'agent'
          ? log.startsOf((await scratch.store.plans.nodes(plan.id)).map((n) => n.childPlanId))
          : log.starts(plan.id, kind === 'ladder' ? (node) => !node.endsWith('s') : undefined);
      const value = kind === 'throughput' ? steps / ((timed.finishedAt - timed.startedAt) / 1000) : percentile(gaps(starts), 50);
      result = { value, main: main / steps, other: other / steps, postgres: (pg1 - pg0) / steps };
    }
  } finally {
    await world?.dispose();
    await scratch.dispose();
  }
  return result;
}

/** CPU ms of each thread of this process (user + system, clock ticks of 10 ms). */
function threadTimes() {
  const out = new Map();
  for (const tid of readdirSync('/proc/self/task')) {
    let stat;
    try {
      stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // the thread ended meanwhile
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    out.set(tid, (Number(fields[11]) + Number(fields[12])) * 10);
  }
  return out;
}

/** CPU ms of every `postgres` process on the machine. */
function postgresTime() {
  let total = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (!readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('postgres')) continue;
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      total += (Number(fields[11]) + Number(fields[12])) * 10;
    } catch {
      // the process ended meanwhile
    }
  }
  return total;
}

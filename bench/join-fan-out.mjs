#!/usr/bin/env node
// A join against its fan-out, as the bench's "join / fan-out time" row measures them, for several builds in
// the same minutes: 10,000 independent no-op nodes (the fan-out), then a plan of 10,000 parents and one node
// joining them, each run by a real worker of concurrency 10 on a scratch database; a process per measurement,
// the second of two runs of each plan counted, the builds in turn (A B C, C B A, …); medians of the rounds.
//   npm run build && node bench/join-fan-out.mjs [postgres|sqlite] [rounds] [checkout …]   (default: this checkout)
// PostgreSQL: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres); a scratch database per process.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const NODES = 10_000;

if (process.argv[2] === '--one') {
  const [, , , dist, backend] = process.argv;
  const load = (p) => import(pathToFileURL(path.join(dist, p)).href);
  const { openScratchFor } = await load('bench/scratch-store.js');
  const { runPlan } = await load('bench/scenarios/run-plan.js');
  const { independentPlan, joinPlan } = await load('bench/scenarios/shapes.js');
  const { RunLog } = await load('bench/scenarios/run-log.js');
  const scratch = await openScratchFor(backend);
  const tools = await new RunLog().registry();
  const ms = {};
  try {
    for (let run = 0; run < 2; run++)
      for (const [name, shape] of [
        ['fanOut', independentPlan],
        ['join', joinPlan],
      ]) {
        const plan = await scratch.store.plans.create(shape(NODES));
        const timed = await runPlan(scratch.store, tools, plan.id, 10, 600_000, {});
        ms[name] = timed.finishedAt - timed.startedAt;
      }
  } finally {
    await scratch.dispose();
  }
  console.log(JSON.stringify(ms));
  process.exit(0);
}

const [backend = 'postgres', rounds = '4', ...checkouts] = process.argv.slice(2);
const builds = (checkouts.length > 0 ? checkouts : [path.resolve(HERE, '..')]).map((c) => path.join(path.resolve(c), 'dist'));
const results = new Map(builds.map((b) => [b, []]));
for (let round = 0; round < Number(rounds); round++) {
  for (const build of round % 2 === 0 ? builds : [...builds].reverse()) {
    const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--one', build, backend], { encoding: 'utf8' });
    const ms = JSON.parse(out.trim().split('\n').at(-1));
    results.get(build).push(ms);
    console.log(`round ${round + 1} ${build}: join ${ms.join.toFixed(0)} ms, fan-out ${ms.fanOut.toFixed(0)} ms, ${(ms.join / ms.fanOut).toFixed(2)}×`);
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
for (const [build, list] of results) {
  const ratios = list.map((r) => r.join / r.fanOut);
  console.log(
    `${build}, median of ${list.length}: join ${median(list.map((r) => r.join)).toFixed(0)} ms, fan-out ${median(list.map((r) => r.fanOut)).toFixed(0)} ms, ` +
      `join / fan-out ${median(ratios).toFixed(2)}× (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`,
  );
}

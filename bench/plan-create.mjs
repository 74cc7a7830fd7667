#!/usr/bin/env node
// What storing and starting a plan costs: `store.plans.create` of a plan of 10,000 independent nodes (every node
// made ready by its start), 4 times, and of 200 three-node chains, on a scratch database, each build a process of
// its own; with --vs <checkout>, another checkout's build in the same rounds, in turn (A B, B A, …).
//   npm run build && node bench/plan-create.mjs [rounds] [sqlite|postgres] [--vs ../other]
// PostgreSQL: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres); a scratch database per process.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));

if (process.argv[2] === '--one') {
  const [, , , dist, backend] = process.argv;
  const load = (p) => import(pathToFileURL(path.join(dist, p)).href);
  const { openScratchFor } = await load('bench/scratch-store.js');
  const { independentPlan, chainPlan } = await load('bench/scenarios/shapes.js');
  const scratch = await openScratchFor(backend);
  try {
    const large = [];
    for (let i = 0; i < 4; i++) {
      const started = performance.now();
      await scratch.store.plans.create(independentPlan(10_000));
      large.push(performance.now() - started);
    }
    const started = performance.now();
    for (let i = 0; i < 200; i++) await scratch.store.plans.create(chainPlan(3));
    console.log(JSON.stringify({ large, small: (performance.now() - started) / 200 }));
  } finally {
    await scratch.dispose();
  }
  process.exit(0);
}

const args = process.argv.slice(2);
const at = args.indexOf('--vs');
const other = at >= 0 ? path.resolve(args.splice(at, 2)[1]) : undefined;
const [rounds = '3', backend = 'sqlite'] = args;
const builds = { A: path.resolve(HERE, '..', 'dist'), ...(other ? { B: path.join(other, 'dist') } : {}) };
const results = Object.fromEntries(Object.keys(builds).map((k) => [k, { large: [], small: [] }]));
for (let round = 0; round < Number(rounds); round++) {
  for (const build of round % 2 === 0 ? Object.keys(builds) : Object.keys(builds).reverse()) {
    const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--one', builds[build], backend], { encoding: 'utf8' });
    const { large, small } = JSON.parse(out.trim().split('\n').at(-1));
    results[build].large.push(...large);
    results[build].small.push(small);
    console.log(`round ${round + 1} ${build}: 10,000 nodes ${large.map((ms) => Math.round(ms)).join(', ')} ms; a 3-node chain ${small.toFixed(2)} ms`);
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
for (const [build, { large, small }] of Object.entries(results)) {
  console.log(
    `${build} (${builds[build]}): 10,000 nodes median ${Math.round(median(large))} ms (${Math.round(Math.min(...large))}–${Math.round(Math.max(...large))}); ` +
      `a 3-node chain median ${median(small).toFixed(2)} ms`,
  );
}

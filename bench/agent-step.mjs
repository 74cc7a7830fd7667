#!/usr/bin/env node
// An agent step beside a plain chain step, for before/after comparisons of the agent path: each round
// opens a fresh database, runs a plain chain and then a chain of agent nodes (each a one-node workflow
// child), and prints both p50 gaps and their ratio; then the medians. With --count, one more round counts
// the statements the worker sends per step of each chain, by text, around the database driver; with --timed,
// also each statement's median wall time per step (send to answer: pipelined ones overlap) and their sum. With --like-bench, each
// round first runs `dotplan bench`'s throughput scenario (10,000 nodes) on the same database, as the bench
// does before its chains: its statistics are the ones the agent step's query plans then meet. With --cpu,
// each round also prints the CPU time this process (the worker: every thread, user and system) spent per
// step over the second half of each chain, from its middle tool start to its last (the first half holds
// the worker's start-up: its lease thread loading, say); the database server's time is not in it. With
// --warm=<n>, each round first runs n pairs of chains (a plain one, an agent one) that are not counted, so that
// both are measured on a warmed process: the bench's plain chain runs after its throughput scenario has run
// the same finish path 10,000 times, while a cold plain chain is still warming up through its 500 steps.
// With --timeline (instead of --count), one more round after the timed ones marks when each statement is
// given to the driver and answered and when each tool starts, and prints for each chain the median offset
// of each mark from its step's tool start (the chain's first tenth left out): where a step's wall time
// goes, statement by statement.
//   npm run build && node bench/agent-step.mjs [sqlite|postgres] [rounds] [--count] [--timed] [--like-bench] [--cpu] [--warm=<n>] [--timeline]
// PostgreSQL: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres); a scratch database is made per round.
import Database from 'better-sqlite3';
import pg from 'pg';
import { openScratchFor } from '../dist/bench/scratch-store.js';
import { percentile } from '../dist/bench/stats.js';
import { measureChain } from '../dist/bench/scenarios/chain.js';
import { measureAgentChain } from '../dist/bench/scenarios/agents.js';
import { RunLog } from '../dist/bench/scenarios/run-log.js';
import { measureThroughput } from '../dist/bench/scenarios/throughput.js';

/** The median as the bench takes its p50s (stats.ts: nearest rank). */
const p50 = (values) => percentile(values, 50);

const args = process.argv.slice(2);
const timeline = args.includes('--timeline');
const timed = !timeline && args.includes('--timed');
const count = !timeline && (args.includes('--count') || timed);
const likeBench = args.includes('--like-bench');
const cpu = args.includes('--cpu');
const warmUps = Number(args.find((a) => a.startsWith('--warm='))?.slice('--warm='.length) ?? 0);
const [backend = 'sqlite', rounds = '3'] = args.filter((a) => !a.startsWith('--'));
const PLAIN_STEPS = 500;
const AGENT_STEPS = 200;

/**
 * Statement text → calls while `counting` names a chain ('plain' or 'agent'), around pg's Client.query and
 * better-sqlite3's statements; with --timed, each call's wall time too (send to answer: pipelined ones overlap).
 */
const calls = { plain: new Map(), agent: new Map() };
const times = { plain: new Map(), agent: new Map() };
let counting;
const keyOf = (text) => String(text).replace(/\s+/g, ' ').slice(0, 100);
/** --timeline: [time, what] while `counting` names a chain — statements sent and answered, tools started. */
const marks = { plain: [], agent: [] };
const mark = (what) => {
  if (timeline && counting) marks[counting].push([performance.now(), what]);
};
const tally = (text) => {
  if (timeline && counting) {
    const label = String(text).slice(0, 60).replace(/\s+/g, ' ');
    mark(`sent     ${label}`);
    return () => mark(`answered ${label}`);
  }
  if (!counting) return undefined;
  const key = keyOf(text);
  const [byText, timesOf] = [calls[counting], times[counting]];
  byText.set(key, (byText.get(key) ?? 0) + 1);
  if (!timed) return undefined;
  const started = performance.now();
  return () => {
    let list = timesOf.get(key);
    if (!list) timesOf.set(key, (list = []));
    list.push(performance.now() - started);
  };
};
if (count || timeline) {
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (config, ...rest) {
    const done = tally(typeof config === 'string' ? config : config.text);
    // pg-pool's query passes a callback (and gets no promise back): its answer is the callback's call.
    const callback = rest.length > 0 && typeof rest.at(-1) === 'function' ? rest.length - 1 : -1;
    if (done && callback >= 0) {
      const given = rest[callback];
      rest[callback] = (...answer) => {
        done();
        return given(...answer);
      };
    }
    const result = query.call(this, config, ...rest);
    if (done && typeof result?.then === 'function') result.then(done, done);
    return result;
  };
  const prepare = Database.prototype.prepare;
  Database.prototype.prepare = function (sql) {
    const statement = prepare.call(this, sql);
    for (const method of ['run', 'all', 'get']) {
      const call = statement[method];
      statement[method] = function (...params) {
        const done = tally(sql);
        try {
          return call.apply(this, params);
        } finally {
          done?.();
        }
      };
    }
    return statement;
  };
}

/**
 * The process's CPU time (all threads, user + system, in ms) per step over the second half of the
 * no-op tool's starts since the previous call of next(): the tool is wrapped to note the CPU time at each start.
 */
function cpuPerStep(tools) {
  let at = [];
  onToolStart(tools, () => at.push(process.cpuUsage()));
  return {
    next() {
      const [first, last] = [at[Math.floor(at.length / 2)], at[at.length - 1]];
      const steps = at.length - 1 - Math.floor(at.length / 2);
      at = [];
      return steps > 0 ? (last.user - first.user + last.system - first.system) / 1000 / steps : NaN;
    },
  };
}

/** Calls `seen` at each start of the chains' no-op tool (--cpu notes the CPU time, --timeline marks it). */
function onToolStart(tools, seen) {
  const noop = tools.get('noop');
  const run = noop.run;
  noop.run = (input, ctx) => {
    seen();
    return run(input, ctx);
  };
}

/** --timeline: each mark's median offset from its step's tool start, over the steps after the first tenth, in order of the medians. */
function printTimeline(chain) {
  const steps = [];
  for (const [at, what] of marks[chain]) {
    if (what === 'tool started') steps.push([[at, what]]);
    else steps.at(-1)?.push([at, what]);
  }
  const offsets = new Map();
  for (const step of steps.slice(Math.ceil(steps.length / 10), -1)) {
    const seen = new Set();
    for (const [at, what] of step) {
      if (seen.has(what)) continue; // a statement sent twice in a step: its first
      seen.add(what);
      if (!offsets.has(what)) offsets.set(what, []);
      offsets.get(what).push(at - step[0][0]);
    }
  }
  const counted = steps.length - 1 - Math.ceil(steps.length / 10);
  console.log(`timeline of a ${chain} step (ms from its tool's start, medians over ${counted} steps; marks in fewer than half of them left out):`);
  const rows = [...offsets].filter(([, list]) => list.length >= counted / 2).map(([what, list]) => [what, p50(list)]);
  for (const [what, at] of rows.sort((a, b) => a[1] - b[1])) console.log(`  ${at.toFixed(3).padStart(7)}  ${what}`);
}

/** One round on a fresh database: the plain chain's and the agent chain's p50 step, in ms. */
async function round(counted = false) {
  const scratch = await openScratchFor(backend);
  try {
    const log = new RunLog();
    const tools = await log.registry();
    const steps = cpu ? cpuPerStep(tools) : undefined;
    if (counted && timeline) onToolStart(tools, () => mark('tool started'));
    if (likeBench) await measureThroughput(backend, scratch.store, tools, log, 10_000, 10);
    // Chains run and not counted: both paths warmed (the JIT's, V8's heap) before the measured pair.
    for (let i = 0; i < warmUps; i++) {
      await measureChain(backend, scratch.store, tools, log, PLAIN_STEPS, 10);
      await measureAgentChain(backend, scratch.store, tools, log, AGENT_STEPS, 10);
    }
    steps?.next(); // from here on: the throughput scenario's and the warm-ups' starts are not the chain's
    counting = counted ? 'plain' : undefined;
    const plain = (await measureChain(backend, scratch.store, tools, log, PLAIN_STEPS, 10)).results.find((r) => r.scenario === 'chain-latency-p50').value;
    const plainCpu = steps?.next();
    counting = counted ? 'agent' : undefined;
    const agent = (await measureAgentChain(backend, scratch.store, tools, log, AGENT_STEPS, 10)).value;
    counting = undefined;
    const agentCpu = steps?.next();
    return { plain, agent, ratio: agent / plain, ...(steps ? { plainCpu, agentCpu } : {}) };
  } finally {
    await scratch.dispose();
  }
}

const results = [];
for (let i = 1; i <= Number(rounds); i++) {
  const r = await round();
  results.push(r);
  const spent = cpu ? `; worker CPU per step: plain ${r.plainCpu.toFixed(3)} ms, agent ${r.agentCpu.toFixed(3)} ms` : '';
  console.log(`round ${i}: plain step ${r.plain.toFixed(3)} ms, agent step ${r.agent.toFixed(3)} ms, ratio ${r.ratio.toFixed(2)}×${spent}`);
}
const pick = (key) => p50(results.map((r) => r[key]));
const spentAll = cpu ? `; worker CPU per step: plain ${pick('plainCpu').toFixed(3)} ms, agent ${pick('agentCpu').toFixed(3)} ms` : '';
console.log(
  `${backend}, median of ${results.length}: plain step ${pick('plain').toFixed(3)} ms, agent step ${pick('agent').toFixed(3)} ms, ratio ${pick('ratio').toFixed(2)}×${spentAll}`,
);
if (timeline) {
  await round(true);
  for (const chain of ['agent', 'plain']) printTimeline(chain);
}
if (count) {
  // Counted in a round of its own, after the timed ones: the wrapper's cost stays out of their figures.
  const counted = await round(true);
  for (const [chain, steps, stepP50] of [
    ['agent', AGENT_STEPS, counted.agent],
    ['plain', PLAIN_STEPS, counted.plain],
  ]) {
    const total = [...calls[chain].values()].reduce((a, b) => a + b, 0);
    // A statement's typical time is its median call (a checkpointing COMMIT is not typical), times its calls per step.
    const perStep = (text, n) => (times[chain].has(text) ? (p50(times[chain].get(text)) * n) / steps : undefined);
    const sum = [...calls[chain]].reduce((a, [text, n]) => a + (perStep(text, n) ?? 0), 0);
    const timedSum = timed ? `; their median times add up to ${sum.toFixed(3)} ms per step (the step's p50 in this round: ${stepP50.toFixed(3)} ms)` : '';
    console.log(`statements per ${chain} step (${steps} steps, an extra round): ${(total / steps).toFixed(1)}${timedSum}`);
    for (const [text, n] of [...calls[chain]].sort((a, b) => (perStep(b[0], b[1]) ?? b[1]) - (perStep(a[0], a[1]) ?? a[1]))) {
      if (n < steps / 10) continue;
      const ms = timed ? `${(perStep(text, n)?.toFixed(3) ?? '—').padStart(7)} ms  ` : '';
      console.log(`  ${(n / steps).toFixed(2).padStart(5)}  ${ms}${text}`);
    }
  }
}

#!/usr/bin/env node
// Where a plain chain step's time goes, on the worker's clock: from a node's tool start to the send of the
// statement that writes its result (the worker's work before the write), from that send to its answer (the
// round trip and the server's work; on SQLite the statement's own time), and from the answer to the next
// node's tool start (the worker's work after it); on SQLite also how much of the write its statements took
// (the rest is the worker's JavaScript between them). Medians over the second half of a warm chain, per round.
// With --agent, the same for an agent step (a chain of agent nodes, each a one-node workflow child): from a
// child's tool start to the write that ends it and starts the next child, and on to that child's tool start
// (on PostgreSQL "before the write" then holds the step's reads ahead of its write, the child's end among them).
//   npm run build && node bench/step-phases.mjs [sqlite|postgres] [rounds] [--agent]
// PostgreSQL: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres); a scratch database is made per round.
import Database from 'better-sqlite3';
import pg from 'pg';
import { openScratchFor } from '../dist/bench/scratch-store.js';
import { percentile } from '../dist/bench/stats.js';
import { measureChain } from '../dist/bench/scenarios/chain.js';
import { measureAgentChain } from '../dist/bench/scenarios/agents.js';
import { RunLog } from '../dist/bench/scenarios/run-log.js';

/** The median as the bench takes its p50s (stats.ts: nearest rank). */
const p50 = (values) => percentile(values, 50);

const agent = process.argv.includes('--agent');
const [backend = 'postgres', rounds = '3'] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const STEPS = agent ? 1_000 : 2_000;
/** The chain measured: plain nodes, or agent nodes (each step two nodes and a child plan). */
const chain = (store, tools, log, steps) => (agent ? measureAgentChain : measureChain)(backend, store, tools, log, steps, 10);
/** The write of a step: PostgreSQL's one statement, SQLite's transaction (BEGIN IMMEDIATE to COMMIT). */
const isWrite = (text) => /^WITH v AS \(SELECT \* FROM unnest/.test(text);

let marks = [];
let on = false;
const mark = (kind) => on && marks.push({ kind, at: performance.now() });

const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (config, ...rest) {
  const text = typeof config === 'string' ? config : config.text;
  if (!isWrite(text)) return query.call(this, config, ...rest);
  mark('send');
  // A pool's query passes a callback (and gets no promise back); a held client's returns a promise.
  const callback = rest.findIndex((a) => typeof a === 'function');
  if (callback >= 0) {
    const done = rest[callback];
    rest[callback] = (...args) => {
      mark('answer');
      return done(...args);
    };
  }
  const result = query.call(this, config, ...rest);
  if (typeof result?.then === 'function')
    result.then(
      () => mark('answer'),
      () => undefined,
    );
  return result;
};
// SQLite: every statement's own time inside a write is summed (`statements`): the rest of the write is the
// worker's JavaScript between its statements, run while the transaction holds the database.
let inWrite = false;
let statements = 0;
const prepare = Database.prototype.prepare;
Database.prototype.prepare = function (sql) {
  const statement = prepare.call(this, sql);
  const kind = sql === 'BEGIN IMMEDIATE' ? 'send' : sql === 'COMMIT' ? 'answer' : undefined;
  for (const method of ['run', 'all', 'get']) {
    const call = statement[method];
    statement[method] = function (...params) {
      if (kind === 'send') {
        mark(kind);
        [inWrite, statements] = [true, 0];
      }
      const started = performance.now();
      const out = call.apply(this, params);
      if (inWrite) statements += performance.now() - started;
      if (kind === 'answer') {
        inWrite = false;
        if (on) marks.push({ kind: 'statements', at: statements });
        mark(kind);
      }
      return out;
    };
  }
  return statement;
};

async function round() {
  const scratch = await openScratchFor(backend);
  try {
    const log = new RunLog();
    const tools = await log.registry();
    const noop = tools.get('noop');
    const run = noop.run;
    noop.run = (input, ctx) => {
      mark('tool');
      return run(input, ctx);
    };
    await chain(scratch.store, tools, log, 500); // warm-up, not counted
    marks = [];
    on = true;
    await chain(scratch.store, tools, log, STEPS);
    on = false;
    // Each tool start, then the first write sent after it and that write's answer, then the next tool start.
    const before = [];
    const sql = [];
    const write = [];
    const after = [];
    const steps = [];
    for (let i = 0; i < marks.length; i++) {
      if (marks[i].kind !== 'tool') continue;
      const send = marks.slice(i + 1).find((m) => m.kind === 'send');
      const answer = send && marks.slice(marks.indexOf(send) + 1).find((m) => m.kind === 'answer');
      const next = answer && marks.slice(marks.indexOf(answer) + 1).find((m) => m.kind === 'tool');
      if (!next) continue;
      const inside = marks.slice(marks.indexOf(send) + 1, marks.indexOf(answer)).find((m) => m.kind === 'statements');
      if (inside) sql.push(inside.at);
      before.push(send.at - marks[i].at);
      write.push(answer.at - send.at);
      after.push(next.at - answer.at);
      steps.push(next.at - marks[i].at);
    }
    const half = (list) => list.slice(Math.floor(list.length / 2));
    return {
      before: p50(half(before)),
      write: p50(half(write)),
      ...(sql.length > 0 ? { sql: p50(half(sql)) } : {}),
      after: p50(half(after)),
      step: p50(half(steps)),
    };
  } finally {
    await scratch.dispose();
  }
}

const results = [];
for (let i = 1; i <= Number(rounds); i++) {
  const r = await round();
  results.push(r);
  const inside = r.sql === undefined ? '' : ` (its statements ${r.sql.toFixed(3)})`;
  console.log(
    `round ${i}: step ${r.step.toFixed(3)} ms = before the write ${r.before.toFixed(3)} + the write ${r.write.toFixed(3)}${inside} + after it ${r.after.toFixed(3)} (medians)`,
  );
}
const pick = (key) => p50(results.map((r) => r[key])).toFixed(3);
const statementsIn = results[0].sql === undefined ? '' : ` (its statements ${pick('sql')})`;
console.log(
  `${backend}, median of ${results.length} rounds: step ${pick('step')} ms = before the write ${pick('before')} + the write ${pick('write')}${statementsIn} + after it ${pick('after')}`,
);

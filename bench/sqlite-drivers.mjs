#!/usr/bin/env node
// A chain step's SQLite transaction (two reads, two node updates, three events, a plan touch, in WAL mode
// with synchronous=NORMAL, as dotplan opens its file) on better-sqlite3 and on libsql, in alternating
// rounds of 5,000 transactions; the median time per transaction of each round, then the median round.
// For comparing SQLite drivers (the perf issue's install-time question), and builds of better-sqlite3's native
// module (`--binding <name>=<path to better_sqlite3.node>`, repeatable: each loaded in this process beside the
// installed one, as better-sqlite3's `nativeBinding`). libsql is not a dependency: it is measured where installed.
//   npm run build && [npm i --no-save libsql &&] node bench/sqlite-drivers.mjs [rounds] [--binding name=file ...]
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { percentile } from '../dist/bench/stats.js';

/** The median as the bench takes its p50s (stats.ts: nearest rank). */
const p50 = (values) => percentile(values, 50);

const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const BetterSqlite3 = require('better-sqlite3');
/** Each driver: how it opens a database file. */
const drivers = { 'better-sqlite3': (file) => new BetterSqlite3(file) };
try {
  const Libsql = require('libsql');
  drivers.libsql = (file) => new Libsql(file);
} catch {
  console.log('libsql is not installed: not measured (npm i --no-save libsql)');
}
for (let at = args.indexOf('--binding'); at >= 0; at = args.indexOf('--binding')) {
  const [name, file] = args.splice(at, 2)[1].split('=');
  const addon = require(path.resolve(file));
  drivers[name] = (dbFile) => new BetterSqlite3(dbFile, { nativeBinding: addon });
}
const ROUNDS = Number(args[0] ?? 6);
const STEPS = 5_000;

function round(name) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dotplan-drivers-'));
  const db = drivers[name](path.join(dir, 'bench.db'));
  try {
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = NORMAL');
    db.exec('PRAGMA foreign_keys = ON');
    db.exec(
      'CREATE TABLE plans (id TEXT PRIMARY KEY, status TEXT, updated_at INTEGER); ' +
        'CREATE TABLE nodes (id INTEGER PRIMARY KEY AUTOINCREMENT, plan_id TEXT NOT NULL, node_id TEXT NOT NULL, status TEXT NOT NULL, ' +
        'run_after INTEGER NOT NULL DEFAULT 0, output TEXT, lease_token TEXT, attributes TEXT); ' +
        'CREATE UNIQUE INDEX nodes_key ON nodes (plan_id, node_id); CREATE INDEX nodes_status ON nodes (status, run_after, id); ' +
        'CREATE INDEX nodes_plan_status ON nodes (plan_id, status); ' +
        'CREATE TABLE events (id INTEGER PRIMARY KEY AUTOINCREMENT, plan_id TEXT NOT NULL, node_id TEXT, kind TEXT, from_status TEXT, ' +
        'to_status TEXT, reason TEXT, detail TEXT, at INTEGER); CREATE INDEX events_plan ON events (plan_id, id);',
    );
    db.prepare('INSERT INTO plans VALUES (?, ?, ?)').run('p1', 'running', 0);
    const insert = db.prepare('INSERT INTO nodes (plan_id, node_id, status, attributes) VALUES (?, ?, ?, ?)');
    db.exec('BEGIN');
    for (let i = 0; i <= STEPS; i++) insert.run('p1', `n${i}`, 'pending', JSON.stringify({ type: 'function', toolCode: 'noop', toolInput: `x${i}` }));
    db.exec('COMMIT');
    const begin = db.prepare('BEGIN IMMEDIATE');
    const commit = db.prepare('COMMIT');
    const read = db.prepare('SELECT id, plan_id AS planId, node_id AS nodeId, status, attributes FROM nodes WHERE id = ?');
    const dependent = db.prepare('SELECT id, status FROM nodes WHERE plan_id = ? AND node_id = ?');
    const update = db.prepare('UPDATE nodes SET status = ?, output = ?, lease_token = ? WHERE id = ? AND status = ?');
    const event = '(?, ?, ?, ?, ?, ?, ?, ?)';
    const events = db.prepare(`INSERT INTO events (plan_id, node_id, kind, from_status, to_status, reason, detail, at) VALUES ${event}, ${event}, ${event}`);
    const touch = db.prepare('UPDATE plans SET updated_at = ? WHERE id = ? RETURNING status');
    update.run('running', null, 'token 0', 1, 'pending');
    const times = [];
    for (let i = 1; i < STEPS; i++) {
      const started = process.hrtime.bigint();
      begin.run();
      read.get(i);
      dependent.get('p1', `n${i}`);
      update.run('done', `out ${i}`, null, i, 'running');
      update.run('running', null, `token ${i}`, i + 1, 'pending');
      events.run(
        ...['p1', `n${i - 1}`, 'status', 'running', 'done', null, null, 0],
        ...['p1', `n${i}`, 'status', 'pending', 'ready', 'its dependencies are met', null, 0],
        ...['p1', `n${i}`, 'status', 'ready', 'running', 'claimed', null, 0],
      );
      touch.all(Date.now(), 'p1');
      commit.run();
      times.push(Number(process.hrtime.bigint() - started) / 1000);
    }
    return p50(times);
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const results = Object.fromEntries(Object.keys(drivers).map((name) => [name, []]));
for (let r = 0; r < ROUNDS; r++) {
  const order = r % 2 === 0 ? Object.keys(drivers) : Object.keys(drivers).reverse();
  for (const name of order) results[name].push(round(name));
}
for (const [name, list] of Object.entries(results)) {
  console.log(`${name.padEnd(15)} ${p50(list).toFixed(1)} µs per transaction (rounds: ${list.map((x) => x.toFixed(1)).join(', ')})`);
}

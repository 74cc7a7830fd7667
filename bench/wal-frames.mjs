#!/usr/bin/env node
// The pages an agent step and a plain step write on SQLite: runs a 500-step plain chain and a 200-step
// agent chain on a fresh database file, each while a second connection holds a read transaction open
// (so that no checkpoint recycles the WAL and every commit's frames stay in it), then reads the WAL's
// frame headers and names each frame's page by the b-tree it belongs to (SQLite's dbstat table).
// Prints commits and frames per step, then frames per step by table or index, most first.
//   npm run build && node bench/wal-frames.mjs [--like-bench]
// --like-bench: first runs `dotplan bench`'s throughput scenario (10,000 nodes) on the same database.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { openScratchStore } from '../dist/bench/scratch-store.js';
import { measureChain } from '../dist/bench/scenarios/chain.js';
import { measureAgentChain } from '../dist/bench/scenarios/agents.js';
import { RunLog } from '../dist/bench/scenarios/run-log.js';
import { measureThroughput } from '../dist/bench/scenarios/throughput.js';

const dir = await mkdtemp(path.join(os.tmpdir(), 'dotplan-wal-frames-'));
const file = path.join(dir, 'bench.db');
const scratch = await openScratchStore({ backend: 'sqlite', databaseUrl: `file:${file}` });
const log = new RunLog();
const tools = await log.registry();

/** The commits of the WAL file, each as the page numbers of its frames (a frame with a database size ends a commit). */
async function commitsInWal() {
  const wal = await readFile(`${file}-wal`);
  const pageSize = wal.readUInt32BE(8);
  const commits = [];
  let frames = [];
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) {
    frames.push(wal.readUInt32BE(at));
    if (wal.readUInt32BE(at + 4) !== 0) {
      commits.push(frames);
      frames = [];
    }
  }
  return commits;
}

async function count(label, steps, run) {
  const truncate = new Database(file);
  truncate.pragma('wal_checkpoint(TRUNCATE)');
  truncate.close();
  const reader = new Database(file);
  reader.exec('BEGIN');
  reader.prepare('SELECT count(*) FROM plans').get();
  try {
    await run();
  } finally {
    reader.exec('COMMIT');
    reader.close();
  }
  const commits = await commitsInWal();
  const pages = new Database(file, { readonly: true });
  const owner = new Map(
    pages
      .prepare('SELECT name, pageno FROM dbstat')
      .all()
      .map((r) => [r.pageno, r.name]),
  );
  pages.close();
  const byBtree = new Map();
  for (const page of commits.flat()) {
    const name = owner.get(page) ?? `page ${page} (freed since)`;
    byBtree.set(name, (byBtree.get(name) ?? 0) + 1);
  }
  const frames = commits.reduce((n, c) => n + c.length, 0);
  console.log(`${label}: ${(commits.length / steps).toFixed(2)} commits and ${(frames / steps).toFixed(2)} WAL frames per step (${steps} steps)`);
  for (const [name, n] of [...byBtree].sort((a, b) => b[1] - a[1])) if (n / steps >= 0.05) console.log(`  ${(n / steps).toFixed(2).padStart(6)}  ${name}`);
}

try {
  if (process.argv.includes('--like-bench')) await measureThroughput('sqlite', scratch.store, tools, log, 10_000, 10);
  await count('plain chain step', 500, () => measureChain('sqlite', scratch.store, tools, log, 500, 10));
  await count('agent step (one-node workflow child)', 200, () => measureAgentChain('sqlite', scratch.store, tools, log, 200, 10));
} finally {
  await scratch.dispose();
  await rm(dir, { recursive: true, force: true });
}

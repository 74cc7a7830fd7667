/**
 * On a SQLite file a worker's lease thread checkpoints the write-ahead log, and the store's own
 * connection leaves that to it while the worker runs: a checkpoint's page copies and fsyncs no longer
 * land in the middle of the worker's writes. What is checked is what the database file holds by itself
 * (a copy of it without its log): the pages a checkpoint has copied there, and only those.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { independentPlan } from '../../src/bench/scenarios/shapes.js';
import { RunLog } from '../../src/bench/scenarios/run-log.js';
import { defaultConfig } from '../../src/config/defaults.js';
import { Worker } from '../../src/worker/worker.js';
import { createTestStore, testBackend, type TestStore } from '../support/db.js';
import { waitUntil } from '../support/wait.js';

/** Nodes whose plans leave about twice the 1,000 pages in the log past which a commit checkpoints by SQLite's default (about a tenth of a page a node). */
const PAST_THRESHOLD = 20_000;

describe.runIf(testBackend() === 'sqlite')('checkpoints of a SQLite file', () => {
  let store: TestStore;
  let file: string;
  let scratch: string;

  beforeEach(async () => {
    store = await createTestStore('sqlite');
    file = store.url.slice('file:'.length);
    scratch = mkdtempSync(join(tmpdir(), 'dotplan-checkpoints-'));
  });
  afterEach(async () => {
    await store.cleanup();
    rmSync(scratch, { recursive: true, force: true });
  });

  let copies = 0;
  /** The plans' statuses as the database file holds them without its log (what checkpoints copied there). */
  function inFileAlone(): Map<string, string> {
    const copy = join(scratch, `alone-${copies++}.db`);
    copyFileSync(file, copy);
    const db = new Database(copy);
    try {
      if (!db.prepare(`SELECT 1 FROM sqlite_schema WHERE name = 'plans'`).get()) return new Map(); // not even the tables yet
      return new Map(
        db
          .prepare('SELECT id, status FROM plans')
          .all()
          .map((r) => [(r as { id: string }).id, (r as { status: string }).status]),
      );
    } finally {
      db.close();
    }
  }

  /** Plans of PAST_THRESHOLD nodes in all, in commits of their own; their ids. */
  async function pastThreshold(title: string): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await store.plans.create(independentPlan(PAST_THRESHOLD / 4, `${title} ${i}`))).id);
    return ids;
  }

  it('leaves the checkpoints to another connection while handed off, and checkpoints at its commits again once released', async () => {
    const release = await store.handOffCheckpoints!();
    const big = await pastThreshold('past the threshold');
    // Past SQLite's own threshold, and no commit copied any of them into the file.
    const before = inFileAlone();
    expect(big.filter((id) => before.has(id))).toEqual([]);

    await release();
    await release(); // a second call of the same release changes nothing
    const next = await store.plans.create(independentPlan(1, 'released'));
    // The log was past the threshold: this commit checkpointed it, and everything is in the file now.
    const alone = inFileAlone();
    expect([...big, next.id].every((id) => alone.has(id))).toBe(true);
  });

  it("is checkpointed by the worker's lease thread while the worker runs, and by the store again after it stops", async () => {
    const log = new RunLog();
    const plan = await store.plans.create(independentPlan(50, 'run by the worker'));
    const worker = new Worker({
      store,
      tools: await log.registry(),
      poll: '0 0 * * * *',
      concurrency: 5,
      leaseMs: 30_000,
      retryDefaults: defaultConfig().retry,
    });
    const errors: unknown[] = [];
    worker.on('worker:error', (error) => errors.push(error));
    worker.start();
    try {
      // A plan of 50 nodes leaves far fewer pages in the log than SQLite's threshold: only a checkpoint
      // made by the thread puts its end in the file while the worker runs.
      expect(await waitUntil(() => inFileAlone().get(plan.id) === 'completed', 'the completed plan to be checkpointed into the file')).toBe(true);
      expect(log.runs(plan.id).size).toBe(50);
    } finally {
      await worker.stop({ drain: true });
    }
    expect(errors).toEqual([]);

    // The worker stopped: the store's connection checkpoints at its commits again. The first two plans
    // took the log past the threshold, and the commit that did copied them into the file (what came
    // after may still wait in the log for the next time it is past).
    const big = await pastThreshold('after the worker');
    const alone = inFileAlone();
    expect(big.slice(0, 2).every((id) => alone.has(id))).toBe(true);
  });
});

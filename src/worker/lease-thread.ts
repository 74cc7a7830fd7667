/**
 * The lease thread (a `worker_threads` thread started by `LeaseKeeper`): renews the leases of the
 * nodes its worker runs, on its own timer and its own database connection, so that a long
 * synchronous piece of work on the worker's event loop (a big rewrite, a `when` pattern over a big
 * output) cannot make them expire. The renewal statement is the store's (`renewLeases`). On a SQLite
 * file it also checkpoints the write-ahead log (`checkpointMs`), which the worker's connection then
 * leaves to it: the page copies and fsyncs of a checkpoint run beside the worker's writes, not in them.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Db } from '../store/sql/executor.js';
import { renewLeases } from '../store/sql/leases.js';
import { withServerOptions } from '../store/pg-options.js';
import { HeldLeases } from './held-leases.js';
import type { FromLeaseThread, LeaseThreadData, ToLeaseThread } from './lease-messages.js';

const data = workerData as LeaseThreadData;
const port = parentPort!;
/** Leases told by message (those that did not fit in shared memory). */
const held = new Set<string>();
/** Leases the main thread keeps in shared memory. */
const shared = new HeldLeases(data.held);
/** Leases in shared memory reported lost, not renewed again: the main thread lets them go once it hears. */
const reported = new Set<string>();
let failing = false;
let renewing: Promise<void> | undefined;

function post(message: FromLeaseThread): void {
  port.postMessage(message);
}

/** Its own connection: a better-sqlite3 handle on the same file, or a one-connection pg pool. */
async function open(): Promise<Db> {
  const { target, leaseMs } = data;
  if (target.kind === 'sqlite') {
    const [{ default: Database }, { SqliteDb }] = await Promise.all([import('better-sqlite3'), import('../store/sql/sqlite-db.js')]);
    const handle = new Database(target.file, { fileMustExist: true, timeout: Math.max(100, Math.floor(leaseMs / 3)) });
    return new SqliteDb(handle, target.file, async () => void handle.close());
  }
  const [{ default: pg }, { PostgresDb }] = await Promise.all([import('pg'), import('../store/sql/postgres-db.js')]);
  const pool = new pg.Pool({ ...withServerOptions(target.url, '-c jit=off'), max: 1, connectionTimeoutMillis: Math.max(1000, leaseMs) });
  pool.on('error', () => undefined); // a dropped idle connection: the pool opens another at the next renewal
  (await pool.connect()).release();
  return new PostgresDb(pool, () => pool.end());
}

async function renew(db: Db): Promise<void> {
  const inMemory = new Set(shared.read());
  for (const token of reported) if (!inMemory.has(token)) reported.delete(token);
  const tokens = [...held, ...[...inMemory].filter((t) => !reported.has(t))];
  if (tokens.length === 0) return;
  try {
    const renewed = new Set(await renewLeases(db, data.owner, tokens, data.leaseMs));
    // A token released meanwhile is no loss: the node finished.
    const still = new Set(shared.read());
    const lost: string[] = [];
    for (const token of tokens) {
      if (renewed.has(token)) continue;
      if (held.delete(token)) lost.push(token);
      else if (still.has(token)) {
        reported.add(token);
        lost.push(token);
      }
    }
    if (lost.length > 0) post({ lost });
    if (failing) post({ recovered: true });
    failing = false;
  } catch (error) {
    if (!failing) post(describe(error));
    failing = true;
  }
}

/**
 * A passive checkpoint: copies the log's committed pages into the database file as far as readers allow,
 * without waiting on anyone (a write goes on meanwhile); a log fully copied is started over by the next
 * write. One that cannot run now (another connection checkpoints) is simply made at the next tick.
 */
async function checkpoint(db: Db): Promise<void> {
  try {
    await db.all('PRAGMA wal_checkpoint(PASSIVE)');
  } catch {
    // the file is busy or away: the next tick tries again, and a renewal reports an unreachable database
  }
}

/** What the main thread needs of an error to tell an unreachable database from other failures: its message and code. */
function describe(error: unknown): FromLeaseThread {
  const code = (error as { code?: unknown } | null)?.code;
  return { error: error instanceof Error ? error.message : String(error), ...(typeof code === 'string' ? { code } : {}) };
}

async function main(): Promise<void> {
  // Listening from the start: what the main thread says while the connection opens is kept.
  const stopping: { stop?: () => void; asked?: boolean } = {};
  port.on('message', (message: ToLeaseThread) => {
    if ('hold' in message) {
      for (const token of message.hold) held.add(token);
      for (const token of message.release) held.delete(token);
    } else if (stopping.stop) stopping.stop();
    else stopping.asked = true;
  });
  let db: Db;
  try {
    db = await open();
  } catch (error) {
    post({ unavailable: error instanceof Error ? error.message : String(error) });
    port.close();
    return;
  }
  const timer = setInterval(() => {
    renewing ??= renew(db).finally(() => (renewing = undefined));
  }, data.everyMs);
  // A checkpoint still running at the next tick (a long log, a slow disk) is not joined by another: queued
  // behind it on the thread's one connection, they would hold up the renewals too.
  let checkpointing: Promise<void> | undefined;
  const checkpoints =
    data.checkpointMs === undefined
      ? undefined
      : setInterval(() => {
          checkpointing ??= checkpoint(db).finally(() => (checkpointing = undefined));
        }, data.checkpointMs);
  stopping.stop = () => {
    clearInterval(timer);
    clearInterval(checkpoints);
    void (async () => {
      await renewing;
      await checkpointing;
      await db.close().catch(() => undefined);
      post({ stopped: true });
      port.close();
    })();
  };
  post({ ready: true });
  if (stopping.asked) stopping.stop();
}

void main();

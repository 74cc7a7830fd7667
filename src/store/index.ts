/**
 * Storage: plans, revisions, nodes, edges and events on SQLite (default) or PostgreSQL, through
 * Prisma 7 with driver adapters. `openStore` resolves the URL, connects, applies pending migrations,
 * and gives three small interfaces: plans and revisions, the work queue, the event feed.
 */
import { connect, resolveDatabase } from './connect.js';
import { SqlAttentionQueue } from './attention-queue.js';
import { SqlLlmQueue } from './llm-queue.js';
import { SqlEventFeed } from './event-feed.js';
import { migrate } from './migrate.js';
import { SqlPlanStore } from './plan-store.js';
import { SqlTokenStore } from './sql/tokens.js';
import { SqlRequestKeys } from './request-keys.js';
import { SqlRemoteTasks } from './remote-tasks.js';
import { SqlSessions } from './sessions.js';
import { Reads } from './reads.js';
import type { SqliteDb } from './sql/sqlite-db.js';
import { StepWriter } from './step-writer.js';
import type { Store } from './types.js';
import type { RetryDefaults } from '../engine/retry-policy.js';
import { defaultConfig } from '../config/defaults.js';
import { Wakes } from './wake.js';
import { TreeStore } from './tree/tree-store.js';
import { SqlWorkQueue } from './work-queue.js';

export interface OpenStoreOptions {
  /** `postgres://…`/`postgresql://…` for PostgreSQL, `file:<path>` for a SQLite file; unset: `.dotplan/dotplan.db` under cwd. */
  url?: string;
  /** Base for the default SQLite file and relative `file:` paths; default process.cwd(). */
  cwd?: string;
  /** Where the migration folders are (tests); default the package's prisma/migrations. */
  migrationsDir?: string;
  /**
   * Make the database if it does not exist (default true). false: a SQLite file that does not exist
   * reads as an empty database and is not created (commands that only read create nothing).
   */
  create?: boolean;
  /** The configured `retry` policy, for the nodes whose end the store writes itself (an agent node's, when its child ends); default the built-in one. */
  retryDefaults?: RetryDefaults;
}

export async function openStore(options: OpenStoreOptions = {}): Promise<Store> {
  const connection = await connect(resolveDatabase(options.url, options.cwd), { create: options.create ?? true });
  const { db, target } = connection;
  try {
    await migrate(db, options.migrationsDir);
  } catch (error) {
    await db.close().catch(() => undefined);
    throw error;
  }
  const wakes = new Wakes(connection.listener ? { postgresListener: connection.listener } : { dataVersion: () => (db as SqliteDb).dataVersion() });
  const writer = new StepWriter(db, wakes, options.retryDefaults ?? defaultConfig().retry);
  const tree = new TreeStore(db, writer);
  let closed = false;
  return {
    backend: db.dialect,
    target,
    ...(db.dialect === 'sqlite' && target.kind === 'sqlite' ? { handOffCheckpoints: () => (db as SqliteDb).handOffCheckpoints() } : {}),
    plans: new SqlPlanStore(db, new Reads(db), writer),
    queue: new SqlWorkQueue(db, writer, tree),
    events: new SqlEventFeed(db, wakes),
    llm: new SqlLlmQueue(db),
    tree,
    attention: new SqlAttentionQueue(db),
    tokens: new SqlTokenStore(db),
    requestKeys: new SqlRequestKeys(db),
    remote: new SqlRemoteTasks(db),
    sessions: new SqlSessions(db),
    async close() {
      if (closed) return;
      closed = true;
      await wakes.close();
      await writer.drain();
      await db.close();
    },
  };
}

export { resolveDatabase, redact, type DatabaseTarget } from './connect.js';
export { migrate, loadMigrations, checksum, DEFAULT_MIGRATIONS_DIR } from './migrate.js';
export { newPlanId } from './ids.js';
export { endsPlan } from './event-feed.js';
export { EXPIRY_RETRIES, leaseLost } from './work-queue.js';
export * from './types.js';
export type { LlmCallInput, LlmCallRecord, LlmOutcome, LlmPurpose, LlmQueue, LlmState, LlmWork } from './llm-queue.js';
export type { AttentionQueue, DueNotice } from './attention-queue.js';
export type { TokenRecord, TokenStore } from './sql/tokens.js';
export type { KeyClaim, RequestKeys } from './request-keys.js';
export type { RemoteCancel, RemoteTasks } from './remote-tasks.js';
export type { SessionRecord, Sessions } from './sessions.js';
export { pathOf } from './tree/path-from-root.js';
export type { TreeStore, TreeLimits, NewChild, StartedChild, ChildHandOff, CascadePlace, DecideCascade, TreePlace } from './tree/tree-store.js';

/** Start-up migrations: pending ones applied and recorded, edits to applied ones reported. */
import { cpSync, mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DotplanError } from '../../src/errors/errors.js';
import { connect, resolveDatabase } from '../../src/store/connect.js';
import { DEFAULT_MIGRATIONS_DIR, migrate, splitStatements } from '../../src/store/migrate.js';
import { openStore } from '../../src/store/index.js';
import type { Db } from '../../src/store/sql/executor.js';
import { childSlot } from '../../src/store/sql/tree.js';
import { createPostgresDatabase, testBackend, type TestBackend } from '../support/db.js';

describe('splitStatements', () => {
  it('drops comment lines and splits at semicolons that end a line', () => {
    expect(splitStatements('-- a comment; with a semicolon\nCREATE TABLE a (x TEXT);\n\n-- next\nCREATE INDEX i ON a (x);')).toEqual([
      'CREATE TABLE a (x TEXT)',
      'CREATE INDEX i ON a (x)',
    ]);
  });
});

function migrationSuite(backend: TestBackend) {
  describe(`migrations on ${backend}`, () => {
    let dir: string;
    let url: string;
    let drop: () => Promise<void> = async () => undefined;
    const provider = backend === 'sqlite' ? 'sqlite' : 'postgresql';
    const shipped = readdirSync(join(DEFAULT_MIGRATIONS_DIR, provider)).sort();
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'dotplan-migrations-'));
      cpSync(DEFAULT_MIGRATIONS_DIR, join(dir, 'migrations'), { recursive: true });
      if (backend === 'sqlite') url = `file:${join(dir, 'db.sqlite')}`;
      else ({ url, drop } = await createPostgresDatabase());
    });
    afterAll(async () => {
      await drop();
      rmSync(dir, { recursive: true, force: true });
    });

    /** A database migrated up to (not including) `first`, for `fn` to fill and then upgrade; closed and dropped after. */
    async function migratedBefore(first: string, fn: (db: Db) => Promise<void>): Promise<void> {
      const before = join(dir, `before-${first}`);
      cpSync(DEFAULT_MIGRATIONS_DIR, before, { recursive: true });
      for (const name of shipped.filter((n) => n >= first)) rmSync(join(before, provider, name), { recursive: true });
      const upgraded =
        backend === 'sqlite' ? { url: `file:${join(dir, `upgrade-${first}.sqlite`)}`, drop: async () => undefined } : await createPostgresDatabase();
      try {
        const { db } = await connect(resolveDatabase(upgraded.url));
        try {
          await migrate(db, before);
          await fn(db);
        } finally {
          await db.close();
        }
      } finally {
        await upgraded.drop();
      }
    }

    it('upgrades stored plans through 0010 and 0011: the nodes of a paused plan held, events kept with their ids and numbered on', async () => {
      await migratedBefore('0010', async (db) => {
        for (const [id, status] of [
          ['p_running', 'running'],
          ['p_paused', 'paused'],
        ])
          await db.run(
            `INSERT INTO plans (id, title, status, mode, params, attributes, revision, created_at, updated_at) VALUES (?, ?, ?, 'workflow', '{}', '{}', 1, 1, 1)`,
            [id, id, status],
          );
        for (const plan of ['p_running', 'p_paused'])
          for (const [node, status] of [
            ['a', 'done'],
            ['b', 'ready'],
            ['c', 'pending'],
          ])
            await db.run(`INSERT INTO nodes (plan_id, node_id, type, status, attributes, updated_at) VALUES (?, ?, 'function', ?, '{}', 1)`, [
              plan,
              node,
              status,
            ]);
        for (let i = 0; i < 3; i++)
          await db.run(`INSERT INTO events (plan_id, driver, from_status, to_status, at) VALUES ('p_paused', 'operator', '', 'running', ?)`, [i]);
        const ids = (await db.all<{ id: number }>('SELECT id FROM events ORDER BY id')).map((r) => Number(r.id));
        expect(await migrate(db)).toEqual(shipped.filter((n) => n >= '0010'));
        const held = await db.all<{ plan: string; node: string; held: number }>(
          `SELECT plan_id AS "plan", node_id AS "node", held FROM nodes ORDER BY plan_id, node_id`,
        );
        expect(held.map((r) => `${r.plan}/${r.node}:${Number(r.held)}`)).toEqual([
          'p_paused/a:0',
          'p_paused/b:1',
          'p_paused/c:1',
          'p_running/a:0',
          'p_running/b:0',
          'p_running/c:0',
        ]);
        expect((await db.all<{ id: number }>('SELECT id FROM events ORDER BY id')).map((r) => Number(r.id))).toEqual(ids);
        // Numbering goes on after the kept ids, and an event no longer needs its plan's row.
        await db.run(`INSERT INTO events (plan_id, driver, from_status, to_status, at) VALUES ('p_gone', 'operator', '', 'running', 9)`);
        const [last] = await db.all<{ id: number; plan: string }>('SELECT id, plan_id AS "plan" FROM events ORDER BY id DESC LIMIT 1');
        expect([Number(last!.id), last!.plan]).toEqual([ids.at(-1)! + 1, 'p_gone']);
        // The trigger: resuming lets the plan's nodes go; pausing holds the ones that could still run.
        await db.run(`UPDATE plans SET status = 'running' WHERE id = 'p_paused'`);
        expect(await db.all(`SELECT node_id FROM nodes WHERE held = 1`)).toEqual([]);
        await db.run(`UPDATE plans SET status = 'cancelled' WHERE id = 'p_running'`);
        const nowHeld = await db.all<{ node: string }>(`SELECT node_id AS "node" FROM nodes WHERE held = 1 ORDER BY node_id`);
        expect(nowHeld.map((r) => r.node)).toEqual(['b', 'c']);
      });
    });

    it("upgrades stored trees through 0012: each root counts its children and each agent's last instance, and the next child numbers on", async () => {
      await migratedBefore('0012', async (db) => {
        const plan = `INSERT INTO plans (id, title, status, mode, params, attributes, revision, created_at, updated_at, parent_plan_id, parent_node_id, parent_attempt, root_plan_id, depth, agent_code, instance) VALUES (?, ?, 'running', 'workflow', '{}', '{}', 1, 1, 1, ?, ?, ?, ?, ?, ?, ?)`;
        await db.run(plan, ['p_root', 'root', null, null, null, null, 0, null, null]);
        await db.run(plan, ['p_alone', 'alone', null, null, null, null, 0, null, null]);
        // searcher_002 and writer_001 under the root; searcher_001 was made one level further down.
        await db.run(plan, ['p_s1', 's1', 'p_root', 'a', 1, 'p_root', 1, 'searcher', 'searcher_001']);
        await db.run(plan, ['p_s2', 's2', 'p_s1', 'x', 1, 'p_root', 2, 'searcher', 'searcher_002']);
        await db.run(plan, ['p_w1', 'w1', 'p_root', 'b', 1, 'p_root', 1, 'writer', 'writer_001']);
        expect(await migrate(db)).toEqual(shipped.filter((n) => n >= '0012'));
        const counts = await db.all<{ id: string; made: number; instances: string | null }>(
          `SELECT id, children_made AS "made", instances_made AS "instances" FROM plans WHERE root_plan_id IS NULL ORDER BY id`,
        );
        expect(counts.map((c) => [c.id, Number(c.made), c.instances === null ? null : (JSON.parse(c.instances) as unknown)])).toEqual([
          ['p_alone', 0, null],
          ['p_root', 3, { searcher: 2, writer: 1 }],
        ]);
        // The next searcher of the tree is searcher_003, read off the root's row.
        await db.run(
          `INSERT INTO nodes (plan_id, node_id, type, status, attributes, updated_at, lease_token) VALUES ('p_root', 'c', 'agent', 'running', '{}', 1, 'held')`,
        );
        const [{ id }] = (await db.all<{ id: number }>(`SELECT id FROM nodes WHERE node_id = 'c'`)) as [{ id: number }];
        const slot = await db.tx((q) => childSlot(q, Number(id), 'p_root', 'searcher', 1));
        expect(slot).toMatchObject({ leaseToken: 'held', made: 3, instance: 'searcher_003' });
      });
    });

    it('upgrades stored revisions through 0013: every revision kept, still deleted with its plan, and the LLM queue and status indexes hold only the plans they look up', async () => {
      await migratedBefore('0013', async (db) => {
        const plan = `INSERT INTO plans (id, title, status, mode, params, attributes, revision, created_at, updated_at, llm_due) VALUES (?, ?, 'running', ?, '{}', '{}', 2, 1, 1, ?)`;
        await db.run(plan, ['p_one', 'one', 'workflow', 0]);
        await db.run(plan, ['p_two', 'two', 'reflection', 2]);
        const revision = `INSERT INTO revisions (plan_id, number, dot, author, update_log, parent, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`;
        await db.run(revision, ['p_one', 1, 'digraph one { a }', 'template', null, null, 10]);
        await db.run(revision, ['p_one', 2, 'digraph one { a -> b }', 'person', 'added b', 1, 20]);
        await db.run(revision, ['p_two', 1, 'digraph two { }', 'llm', 'first draft', null, 30]);
        const read = () =>
          db.all<{ plan: string; number: number; dot: string; author: string; log: string | null; parent: number | null; at: number }>(
            `SELECT plan_id AS "plan", number, dot, author, update_log AS "log", parent, created_at AS "at" FROM revisions ORDER BY plan_id, number`,
          );
        const before = (await read()).map((r) => ({ ...r, number: Number(r.number), parent: r.parent === null ? null : Number(r.parent), at: Number(r.at) }));
        expect(await migrate(db)).toEqual(shipped.filter((n) => n >= '0013'));
        const after = (await read()).map((r) => ({ ...r, number: Number(r.number), parent: r.parent === null ? null : Number(r.parent), at: Number(r.at) }));
        expect(after).toEqual(before);
        expect(after).toHaveLength(3);
        // Still one revision per number, and deleted with its plan.
        await expect(db.run(revision, ['p_one', 2, 'digraph one { }', 'person', null, 1, 40])).rejects.toThrow();
        await db.run(`DELETE FROM plans WHERE id = 'p_one'`);
        expect((await read()).map((r) => [r.plan, Number(r.number)])).toEqual([['p_two', 1]]);
        // The LLM queue's index and the status index are partial: a plan without requests due, or not waiting for a review, has no entry.
        const partial = async (name: string) => {
          const [index] =
            backend === 'sqlite'
              ? await db.all<{ partial: unknown }>(`SELECT partial FROM pragma_index_list('plans') WHERE name = ?`, [name])
              : await db.all<{ partial: unknown }>(`SELECT pg_get_expr(indpred, indrelid) AS "partial" FROM pg_index WHERE indexrelid = CAST(? AS regclass)`, [
                  name,
                ]);
          return String(index!.partial);
        };
        expect(await partial('plans_mode_status_llm_due_idx')).toBe(backend === 'sqlite' ? '1' : '(llm_due > 0)');
        expect(await partial('plans_status_idx')).toBe(backend === 'sqlite' ? '1' : "(status = 'awaiting_review'::text)");
      });
    });

    it('applies a new migration folder once, in its own recorded step', async () => {
      const migrations = join(dir, 'migrations');
      await (await openStore({ url, migrationsDir: migrations })).close();
      mkdirSync(join(migrations, provider, '9001_extra'));
      writeFileSync(
        join(migrations, provider, '9001_extra', 'migration.sql'),
        '-- test only\nCREATE TABLE extra_test (id INTEGER NOT NULL);\nCREATE INDEX extra_test_id_idx ON extra_test (id);\n',
      );
      const connection = await connect(resolveDatabase(url));
      try {
        expect(await migrate(connection.db, migrations)).toEqual(['9001_extra']);
        expect(await migrate(connection.db, migrations)).toEqual([]);
        const rows = await connection.db.all<{ name: string }>('SELECT name FROM _dotplan_migrations ORDER BY name');
        expect(rows.map((r) => r.name)).toEqual([...shipped, '9001_extra']);
        expect(await connection.db.all('SELECT id FROM extra_test')).toEqual([]);
      } finally {
        await connection.db.close();
      }
    });

    it('applies concurrently started migrations exactly once', async () => {
      const migrations = join(dir, 'migrations');
      mkdirSync(join(migrations, provider, '9002_more'));
      writeFileSync(join(migrations, provider, '9002_more', 'migration.sql'), 'CREATE TABLE more_test (id INTEGER NOT NULL);\n');
      const stores = await Promise.all([1, 2, 3].map(() => openStore({ url, migrationsDir: migrations })));
      await Promise.all(stores.map((s) => s.close()));
      const connection = await connect(resolveDatabase(url));
      try {
        const rows = await connection.db.all<{ name: string }>('SELECT name FROM _dotplan_migrations ORDER BY name');
        expect(rows.map((r) => r.name)).toEqual([...shipped, '9001_extra', '9002_more']);
      } finally {
        await connection.db.close();
      }
    });

    it('reports a migration edited after it was applied, and applies nothing', async () => {
      const migrations = join(dir, 'migrations');
      const file = join(migrations, provider, '0001_init', 'migration.sql');
      writeFileSync(file, readFileSync(file, 'utf8').replace('"title" TEXT NOT NULL', '"title" TEXT'));
      const error = await openStore({ url, migrationsDir: migrations }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DotplanError);
      expect((error as DotplanError).code).toBe('DATABASE');
      expect((error as Error).message).toMatch(new RegExp(`migration ${provider}/0001_init was changed after it was applied`));
    });
  });
}

migrationSuite(testBackend());

/**
 * schema.prisma is the source of truth; the hand-written migrations of both providers must build
 * exactly its tables, columns (type, nullability) and indexes. Introspects migrated databases.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, resolveDatabase } from '../../src/store/connect.js';
import type { Db } from '../../src/store/sql/executor.js';
import { createTestStore, testBackend, type TestBackend, type TestStore } from '../support/db.js';
import { COLUMN_TYPES, parseSchema, type ExpectedTable } from './schema-model.js';

interface ActualTable {
  columns: Array<{ name: string; type: string; nullable: boolean }>;
  indexes: Array<{ columns: string[]; unique: boolean }>;
}

async function introspect(db: Db, tables: string[]): Promise<Record<string, ActualTable>> {
  const out: Record<string, ActualTable> = {};
  for (const table of tables) {
    if (db.dialect === 'sqlite') {
      const columns = await db.all<{ name: string; type: string; notnull: number; pk: number }>(
        `SELECT name, type, "notnull", pk FROM pragma_table_info('${table}')`,
      );
      const list = await db.all<{ name: string; unique: number; origin: string }>(`SELECT name, "unique", origin FROM pragma_index_list('${table}')`);
      const indexes = [];
      for (const index of list.filter((i) => i.origin === 'c')) {
        const cols = await db.all<{ name: string }>(`SELECT name FROM pragma_index_info('${index.name}') ORDER BY seqno`);
        indexes.push({ columns: cols.map((c) => c.name), unique: index.unique === 1 });
      }
      out[table] = { columns: columns.map((c) => ({ name: c.name, type: c.type, nullable: c.notnull === 0 && c.pk === 0 })), indexes };
    } else {
      const columns = await db.all<{ name: string; type: string; nullable: string }>(
        `SELECT column_name AS "name", data_type AS "type", is_nullable AS "nullable" FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position`,
        [table],
      );
      const indexes = await db.all<{ columns: string[]; unique: boolean }>(
        `SELECT array_agg(a.attname::text ORDER BY k.n) AS "columns", ix.indisunique AS "unique" FROM pg_index ix ` +
          `JOIN pg_class t ON t.oid = ix.indrelid JOIN LATERAL unnest(ix.indkey) WITH ORDINALITY AS k(attnum, n) ON true ` +
          `JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum ` +
          `WHERE t.relname = ? AND t.relnamespace = current_schema()::regnamespace AND NOT ix.indisprimary GROUP BY ix.indexrelid, ix.indisunique`,
        [table],
      );
      out[table] = { columns: columns.map((c) => ({ name: c.name, type: c.type, nullable: c.nullable === 'YES' })), indexes };
    }
  }
  return out;
}

async function listTables(db: Db): Promise<string[]> {
  const rows =
    db.dialect === 'sqlite'
      ? await db.all<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
      : await db.all<{ name: string }>(`SELECT table_name AS "name" FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name`);
  return rows.map((r) => r.name);
}

const sortIndexes = (list: Array<{ columns: string[]; unique: boolean }>) => list.map((i) => `${i.unique ? 'unique ' : ''}(${i.columns.join(', ')})`).sort();

function driftSuite(backend: TestBackend) {
  describe(`migrations match schema.prisma on ${backend}`, () => {
    let store: TestStore;
    let db: Db;
    const expected: ExpectedTable[] = parseSchema();
    beforeAll(async () => {
      store = await createTestStore(backend);
      db = (await connect(resolveDatabase(store.url))).db;
    });
    afterAll(async () => {
      await db?.close();
      await store?.cleanup();
    });

    it('parses the models it checks', () => {
      expect(expected.map((t) => t.name).sort()).toEqual([
        'agent_messages',
        'edges',
        'events',
        'llm_calls',
        'nodes',
        'plans',
        'remote_cancels',
        'request_keys',
        'revisions',
        'sessions',
        'tokens',
      ]);
      expect(expected.find((t) => t.name === 'nodes')!.columns.find((c) => c.name === 'lease_expires_at')).toEqual({
        name: 'lease_expires_at',
        prismaType: 'BigInt',
        nullable: true,
      });
    });

    it('has exactly the tables of the models (plus the migrations record)', async () => {
      expect(await listTables(db)).toEqual([...expected.map((t) => t.name), '_dotplan_migrations'].sort());
    });

    it('has every model column with its type and nullability, and no other column', async () => {
      const actual = await introspect(
        db,
        expected.map((t) => t.name),
      );
      for (const table of expected) {
        const want = table.columns.map((c) => ({ name: c.name, type: COLUMN_TYPES[c.prismaType]![backend], nullable: c.nullable }));
        expect({ table: table.name, columns: [...actual[table.name]!.columns].sort((a, b) => a.name.localeCompare(b.name)) }).toEqual({
          table: table.name,
          columns: want.sort((a, b) => a.name.localeCompare(b.name)),
        });
      }
    });

    it('has the indexes the models declare, and no other', async () => {
      const actual = await introspect(
        db,
        expected.map((t) => t.name),
      );
      for (const table of expected) {
        expect({ table: table.name, indexes: sortIndexes(actual[table.name]!.indexes) }).toEqual({ table: table.name, indexes: sortIndexes(table.indexes) });
      }
    });
  });
}

driftSuite(testBackend());

/**
 * The API tokens of `dotplan serve` through the library (`dotplan.tokens`), on the run's backend: a
 * secret verifies until its token is revoked, a wrong one never does; names are unique among live
 * tokens only; the table holds the secret's hash, never the secret; a token's last use is written at
 * most once a minute.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError, InvalidArgumentError, NotFoundError } from '../../src/errors/errors.js';
import type { Dotplan } from '../../src/operations/dotplan.js';
import { scopeAllows, TOKEN_SCOPES, type TokenScope } from '../../src/operations/tokens.js';
import { connect, resolveDatabase } from '../../src/store/connect.js';
import type { Db } from '../../src/store/sql/executor.js';
import { openTestDotplan, thrown, type TestDotplan } from '../api/open.js';
import { testBackend } from '../support/db.js';

let t: TestDotplan;
let dotplan: Dotplan;
/** A second connection to the same database, to read the table as it is stored. */
let db: Db;

beforeAll(async () => {
  t = await openTestDotplan();
  dotplan = t.dotplan;
  db = (await connect(resolveDatabase(t.url))).db;
});
afterAll(async () => {
  await db?.close();
  await t?.cleanup();
});

/** A token's stored `last_used_at` (epoch ms, null if never used), read from the table. */
async function lastUsedAt(name: string): Promise<number | null> {
  const [row] = await db.all<{ at: number | null }>(`SELECT last_used_at AS "at" FROM tokens WHERE name = ? AND revoked_at IS NULL`, [name]);
  expect(row, `a live row for ${name}`).toBeDefined();
  return row!.at === null ? null : Number(row!.at);
}

describe(`API tokens (${testBackend()})`, () => {
  it('a new token: its secret shown once, in the dp_ form, and verified to the token it belongs to', async () => {
    const { secret, token } = await dotplan.tokens.create({ name: 'ci-bot', scope: 'operate', by: 'alice' });
    expect(secret).toMatch(/^dp_[A-Za-z0-9_-]{43}$/);
    expect(token).toEqual({ name: 'ci-bot', scope: 'operate', createdBy: 'alice', createdAt: expect.any(Date), lastUsedAt: null });
    expect(Math.abs(token.createdAt.getTime() - Date.now())).toBeLessThan(60_000);
    expect(await dotplan.tokens.verify(secret)).toMatchObject({ name: 'ci-bot', scope: 'operate', createdBy: 'alice' });
    expect(await dotplan.tokens.list()).toContainEqual(expect.objectContaining({ name: 'ci-bot' }));
    expect(await dotplan.tokens.exists()).toBe(true);
  });

  it('without `by`, the OS user is recorded as who made it', async () => {
    const { token } = await dotplan.tokens.create({ name: 'by-default', scope: 'read' });
    expect(token.createdBy).not.toBe('');
    expect((await dotplan.tokens.list()).find((x) => x.name === 'by-default')?.createdBy).toBe(token.createdBy);
  });

  it('a wrong secret, a malformed one and an empty one verify to nothing', async () => {
    const { secret } = await dotplan.tokens.create({ name: 'wrong-secret', scope: 'read' });
    const last = secret.at(-1) === 'A' ? 'B' : 'A';
    expect(await dotplan.tokens.verify(`${secret.slice(0, -1)}${last}`)).toBeUndefined();
    expect(await dotplan.tokens.verify(secret.slice(3))).toBeUndefined();
    expect(await dotplan.tokens.verify(`${secret} `)).toBeUndefined();
    expect(await dotplan.tokens.verify('')).toBeUndefined();
    expect(await dotplan.tokens.verify(createHash('sha256').update(secret).digest('hex'))).toBeUndefined(); // the stored hash is no secret
  });

  it('a revoked token verifies to nothing and is not listed; its row stays, revoked', async () => {
    const { secret } = await dotplan.tokens.create({ name: 'revoked', scope: 'admin' });
    expect(await dotplan.tokens.revoke('revoked')).toMatchObject({ name: 'revoked', scope: 'admin' });
    expect(await dotplan.tokens.verify(secret)).toBeUndefined();
    expect((await dotplan.tokens.list()).map((x) => x.name)).not.toContain('revoked');
    const rows = await db.all<{ revokedAt: number | null }>(`SELECT revoked_at AS "revokedAt" FROM tokens WHERE name = 'revoked'`);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.revokedAt).not.toBeNull();
    const again = await thrown(() => dotplan.tokens.revoke('revoked'));
    expect(again).toBeInstanceOf(NotFoundError);
    expect(again.code).toBe('TOKEN_NOT_FOUND');
  });

  it('a revoked name may be given again: the new token verifies, the old secret still does not', async () => {
    const first = await dotplan.tokens.create({ name: 'reused', scope: 'read' });
    await dotplan.tokens.revoke('reused');
    const second = await dotplan.tokens.create({ name: 'reused', scope: 'answer' });
    expect(second.secret).not.toBe(first.secret);
    expect(await dotplan.tokens.verify(second.secret)).toMatchObject({ name: 'reused', scope: 'answer' });
    expect(await dotplan.tokens.verify(first.secret)).toBeUndefined();
    expect((await dotplan.tokens.list()).filter((x) => x.name === 'reused')).toHaveLength(1);
  });

  it('a name a live token has is TOKEN_EXISTS, and the live token stays as it was', async () => {
    const { secret } = await dotplan.tokens.create({ name: 'taken', scope: 'read' });
    const error = await thrown(() => dotplan.tokens.create({ name: 'taken', scope: 'admin' }));
    expect(error).toBeInstanceOf(ConflictError);
    expect(error.code).toBe('TOKEN_EXISTS');
    expect(error.message).toMatch(/"taken" exists already/);
    expect(await dotplan.tokens.verify(secret)).toMatchObject({ name: 'taken', scope: 'read' });
    expect(await db.all(`SELECT id FROM tokens WHERE name = 'taken'`)).toHaveLength(1);
  });

  it('creates of one name at the same time: one token made, every other TOKEN_EXISTS', async () => {
    const results = await Promise.allSettled(Array.from({ length: 4 }, () => dotplan.tokens.create({ name: 'race', scope: 'read' })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results.filter((r): r is PromiseRejectedResult => r.status === 'rejected')) expect((r.reason as ConflictError).code).toBe('TOKEN_EXISTS');
    expect(await db.all(`SELECT id FROM tokens WHERE name = 'race'`)).toHaveLength(1);
  });

  it('the table holds no secret: only its SHA-256', async () => {
    const { secret } = await dotplan.tokens.create({ name: 'hashed', scope: 'operate' });
    const rows = await db.all<Record<string, unknown>>(`SELECT * FROM tokens WHERE name = 'hashed'`);
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    for (const [column, value] of Object.entries(row)) {
      expect(String(value), column).not.toContain(secret);
      expect(String(value), column).not.toContain(secret.slice(3));
    }
    expect(row.secret_sha256).toBe(createHash('sha256').update(secret).digest('hex'));
  });

  it('verifying writes the last use at most once a minute', async () => {
    const { secret } = await dotplan.tokens.create({ name: 'busy', scope: 'read' });
    expect(await lastUsedAt('busy')).toBeNull();

    // The first use is written; a second one straight after is not.
    const first = await dotplan.tokens.verify(secret);
    const written = await lastUsedAt('busy');
    expect(written).not.toBeNull();
    expect(first!.lastUsedAt?.getTime()).toBe(written);
    expect((await dotplan.tokens.verify(secret))!.lastUsedAt?.getTime()).toBe(written);
    expect(await lastUsedAt('busy')).toBe(written);

    // A use recorded 30 s ago is kept; one 61 s ago is written anew.
    await db.run(`UPDATE tokens SET last_used_at = ? WHERE name = 'busy'`, [written! - 30_000]);
    expect((await dotplan.tokens.verify(secret))!.lastUsedAt?.getTime()).toBe(written! - 30_000);
    expect(await lastUsedAt('busy')).toBe(written! - 30_000);
    await db.run(`UPDATE tokens SET last_used_at = ? WHERE name = 'busy'`, [written! - 61_000]);
    const renewed = await dotplan.tokens.verify(secret);
    const now = await lastUsedAt('busy');
    expect(now).toBeGreaterThanOrEqual(written!);
    expect(renewed!.lastUsedAt?.getTime()).toBe(now);
    expect((await dotplan.tokens.list()).find((x) => x.name === 'busy')?.lastUsedAt?.getTime()).toBe(now);
  });

  it('revoking an unknown name says which live name was meant', async () => {
    await dotplan.tokens.create({ name: 'deploy-bot', scope: 'operate' });
    const error = await thrown(() => dotplan.tokens.revoke('deploy-bto'));
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.code).toBe('TOKEN_NOT_FOUND');
    expect(error.message).toContain('did you mean "deploy-bot"?');
    expect((await dotplan.tokens.list()).map((x) => x.name)).toContain('deploy-bot');
  });

  it('refuses a wrong argument, naming it, before anything is written', async () => {
    const before = await db.all(`SELECT id FROM tokens`);
    const cases: Array<[() => unknown, string, string]> = [
      [
        () => dotplan.tokens.create({ name: 'has space', scope: 'read' }),
        'name',
        'tokens.create: name must be 1 to 64 letters, digits, ".", "_" or "-" (got "has space")',
      ],
      [() => dotplan.tokens.create({ name: 'x'.repeat(65), scope: 'read' }), 'name', 'tokens.create: name must be 1 to 64'],
      [() => dotplan.tokens.create({ name: '', scope: 'read' }), 'name', 'tokens.create: name must be 1 to 64'],
      [
        () => dotplan.tokens.create({ name: 'ok', scope: 'root' as TokenScope }),
        'scope',
        'tokens.create: scope must be one of read, answer, operate, admin (got "root")',
      ],
      [() => dotplan.tokens.create({ name: 'ok', scope: 'read', by: '' }), 'by', 'tokens.create: by is empty'],
      [() => dotplan.tokens.revoke(42 as unknown as string), 'name', 'tokens.revoke: name must be a string (got number)'],
      [() => dotplan.tokens.verify(undefined as unknown as string), 'secret', 'tokens.verify: secret must be a string (got undefined)'],
    ];
    for (const [call, argument, message] of cases) {
      const error = await thrown(call);
      expect(error, error.message).toBeInstanceOf(InvalidArgumentError);
      expect(error.argument).toBe(argument);
      expect(error.message.startsWith(message), error.message).toBe(true);
    }
    expect(await dotplan.tokens.create({ name: 'x'.repeat(64), scope: 'read' })).toMatchObject({ token: { name: 'x'.repeat(64) } });
    expect(await db.all(`SELECT id FROM tokens`)).toHaveLength(before.length + 1);
  });

  it('exists() says whether any live token is left', async () => {
    for (const token of await dotplan.tokens.list()) await dotplan.tokens.revoke(token.name);
    expect(await dotplan.tokens.list()).toEqual([]);
    expect(await dotplan.tokens.exists()).toBe(false);
    await dotplan.tokens.create({ name: 'last', scope: 'read' });
    expect(await dotplan.tokens.exists()).toBe(true);
  });
});

describe('scopes', () => {
  it('each scope allows itself and the ones before it, none after it', () => {
    expect(TOKEN_SCOPES).toEqual(['read', 'answer', 'operate', 'admin']);
    for (const [i, held] of TOKEN_SCOPES.entries())
      for (const [j, needed] of TOKEN_SCOPES.entries()) expect(scopeAllows(held, needed), `${held} for ${needed}`).toBe(i >= j);
  });
});

/**
 * `dotplan token create | list | revoke` as a person runs them: the secret printed once (alone on
 * stdout, or in --json) and verified by the server's check; `list` shows who made each token and
 * when it was last used but never a secret; a revoked token is refused; wrong input exits 1 or 2.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DotplanTokens } from '../../src/operations/tokens.js';
import { openStore } from '../../src/store/index.js';
import { testBackend, testDatabase } from '../support/db.js';
import { runCli } from './run-cli.js';

describe(`dotplan token (${testBackend()})`, () => {
  let cwd: string;
  let url: string;
  let drop: (() => Promise<void>) | undefined;
  const cli = (args: string[]) => runCli([...args, '--db', url], { cwd });
  /** What the server's check makes of a secret: the token's name and scope, or undefined. */
  const verify = async (secret: string) => {
    const store = await openStore({ url });
    try {
      const token = await new DotplanTokens(store).verify(secret);
      return token && { name: token.name, scope: token.scope };
    } finally {
      await store.close();
    }
  };

  beforeAll(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'dotplan-token-'));
    ({ url, drop } = await testDatabase(cwd));
  });
  afterAll(async () => {
    await drop?.();
    rmSync(cwd, { recursive: true, force: true });
  });

  it('list on a database with no tokens says how to make one', async () => {
    const listed = await cli(['token', 'list']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toBe('');
    expect(listed.stderr).toMatch(/no API tokens: make one with dotplan token create --name/);
    expect(JSON.parse((await cli(['token', 'list', '--json'])).stdout)).toEqual([]);
  });

  it('create prints the secret once, alone on stdout, saying it cannot be shown again; list never prints it', async () => {
    const created = await cli(['token', 'create', '--name', 'ci-bot', '--scope', 'operate', '--by', 'alice']);
    expect(created.code, created.stderr).toBe(0);
    const secret = created.stdout.trim();
    expect(secret).toMatch(/^dp_[A-Za-z0-9_-]{43}$/);
    expect(created.stderr).toMatch(/token "ci-bot" \(operate\) made\. Keep its secret now: it cannot be shown again/);
    expect(await verify(secret)).toEqual({ name: 'ci-bot', scope: 'operate' });

    const listed = await cli(['token', 'list']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^NAME\s+SCOPE\s+CREATED BY\s+CREATED\s+LAST USED$/m);
    // Used once by the verify above: its last use is shown.
    expect(listed.stdout).toMatch(/^ci-bot\s+operate\s+alice\s+\d{4}-\d\d-\d\dT[\d:.]+Z\s+\d{4}-\d\d-\d\dT[\d:.]+Z$/m);
    const json = await cli(['token', 'list', '--json']);
    const tokens = JSON.parse(json.stdout) as Array<Record<string, unknown>>;
    expect(tokens).toEqual([{ name: 'ci-bot', scope: 'operate', createdBy: 'alice', createdAt: expect.any(String), lastUsedAt: expect.any(String) }]);
    for (const run of [created.stderr, listed.stdout, listed.stderr, json.stdout, json.stderr]) {
      expect(run).not.toContain(secret);
      expect(run).not.toContain(secret.slice(3));
    }
  });

  it('create --json prints {name, scope, secret}; without --by the OS user made it', async () => {
    const created = await cli(['token', 'create', '--name', 'viewer', '--scope', 'read', '--json']);
    expect(created.code, created.stderr).toBe(0);
    const printed = JSON.parse(created.stdout) as { name: string; scope: string; secret: string };
    expect(Object.keys(printed).sort()).toEqual(['name', 'scope', 'secret']);
    expect(printed).toMatchObject({ name: 'viewer', scope: 'read' });
    expect(await verify(printed.secret)).toEqual({ name: 'viewer', scope: 'read' });
    const viewer = (JSON.parse((await cli(['token', 'list', '--json'])).stdout) as Array<{ name: string; createdBy: string; lastUsedAt: unknown }>).find(
      (x) => x.name === 'viewer',
    );
    expect(viewer?.createdBy).toBeTruthy();
    expect(viewer?.createdBy).not.toBe('alice');
  });

  it('revoke: the token is refused from then on and no longer listed; its name may be given again', async () => {
    const created = await cli(['token', 'create', '--name', 'temp', '--scope', 'answer']);
    const secret = created.stdout.trim();
    expect(await verify(secret)).toEqual({ name: 'temp', scope: 'answer' });
    const revoked = await cli(['token', 'revoke', 'temp']);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout.trim()).toBe('token "temp" (answer) revoked');
    expect(await verify(secret)).toBeUndefined();
    expect((await cli(['token', 'list'])).stdout).not.toMatch(/^temp\s/m);
    const again = await cli(['token', 'create', '--name', 'temp', '--scope', 'read']);
    expect(again.code, again.stderr).toBe(0);
    expect(await verify(again.stdout.trim())).toEqual({ name: 'temp', scope: 'read' });
    expect(await verify(secret)).toBeUndefined();
  });

  it('refusals: a live name, an unknown name (with a guess), a bad name exit 1 with the code; a bad scope or a missing flag exit 2', async () => {
    const exists = await cli(['token', 'create', '--name', 'ci-bot', '--scope', 'read']);
    expect(exists.code).toBe(1);
    expect(exists.stdout).toBe('');
    expect(exists.stderr).toMatch(/^error: an API token named "ci-bot" exists already: .*\[TOKEN_EXISTS\]$/m);
    expect(exists.stderr).not.toMatch(/\n\s+at /); // no stack trace

    const unknown = await cli(['token', 'revoke', 'ci-bto']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^error: no live API token is named "ci-bto" \(did you mean "ci-bot"\?\).*\[TOKEN_NOT_FOUND\]$/m);

    const badName = await cli(['token', 'create', '--name', 'has space', '--scope', 'read']);
    expect(badName.code).toBe(1);
    expect(badName.stderr).toMatch(/^error: --name must be 1 to 64 letters, digits, "\.", "_" or "-" \(got "has space"\) \[INVALID_INPUT\]$/m);

    const badScope = await cli(['token', 'create', '--name', 'x', '--scope', 'root']);
    expect(badScope.code).toBe(2);
    expect(badScope.stderr).toMatch(/Allowed choices are read, answer, operate, admin/);
    expect((await cli(['token', 'create', '--name', 'x'])).code).toBe(2);
    expect((await cli(['token', 'create', '--scope', 'read'])).code).toBe(2);
    // Nothing was made by the refused commands.
    const names = (JSON.parse((await cli(['token', 'list', '--json'])).stdout) as Array<{ name: string }>).map((x) => x.name);
    expect(names).toEqual(['ci-bot', 'temp', 'viewer']);
  });
});

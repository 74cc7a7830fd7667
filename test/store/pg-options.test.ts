/**
 * A PostgreSQL URL with its own server settings (`?options=-c …`) keeps them, and the store's own
 * (`-c jit=off`) apply beside them: pg takes a URL's `options` instead of one given apart, so the
 * store's were dropped whenever a user's URL had some.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, resolveDatabase, type Connection } from '../../src/store/connect.js';
import { withServerOptions } from '../../src/store/pg-options.js';
import { testBackend } from '../support/db.js';
import { openHarness, type Harness } from './harness.js';

describe('withServerOptions', () => {
  it("adds the store's settings before the URL's own, so that the URL's win", () => {
    const { connectionString } = withServerOptions('postgres://u:p%40ss@h:5433/db?options=-c%20jit%3Don&sslmode=disable', '-c jit=off');
    const url = new URL(connectionString);
    expect(url.searchParams.get('options')).toBe('-c jit=off -c jit=on');
    expect(url.searchParams.get('sslmode')).toBe('disable');
    expect(url.password).toBe('p%40ss');
    expect(url.pathname).toBe('/db');
  });

  it('leaves a URL without options as it is, the settings given apart', () => {
    expect(withServerOptions('postgres://u@h/db', '-c jit=off')).toEqual({ connectionString: 'postgres://u@h/db', options: '-c jit=off' });
  });
});

describe.runIf(testBackend() === 'postgres')("a URL's own server settings (postgres)", () => {
  let h: Harness;
  let raw: Connection;
  beforeAll(async () => {
    h = await openHarness('postgres');
    const url = new URL(h.store.url);
    url.searchParams.set('options', '-c statement_timeout=4321');
    raw = await connect(resolveDatabase(url.toString()));
  });
  afterAll(async () => {
    await raw?.db.close();
    await h?.close();
  });

  it("reach the store's connections with the store's own", async () => {
    const [row] = await raw.db.all<{ timeout: string; jit: string }>(`SELECT current_setting('statement_timeout') AS timeout, current_setting('jit') AS jit`);
    expect(row).toEqual({ timeout: '4321ms', jit: 'off' });
  });
});

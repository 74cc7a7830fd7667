/**
 * The UI's files as `uiRoutes` serves them, from a folder made here: the page revalidated on every
 * load, hashed assets cached for a year, the right content types, 304 for an unchanged file, nothing
 * outside the folder, and a page that says how to build the UI when it is not built.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OpenAPIHono } from '@hono/zod-openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uiRoutes } from '../../src/http/ui.js';

describe('uiRoutes', () => {
  let root: string;
  let app: OpenAPIHono;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'dotplan-ui-'));
    const dir = join(root, 'ui');
    mkdirSync(join(dir, 'assets'), { recursive: true });
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>dotplan</title>');
    writeFileSync(join(dir, 'assets', 'index-AbC123.js'), 'console.log(1)');
    writeFileSync(join(dir, 'assets', 'index-AbC123.css'), 'body{}');
    writeFileSync(join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    writeFileSync(join(root, 'secret.txt'), 'not for the web');
    app = new OpenAPIHono();
    uiRoutes(app as never, { dir });
    app.get('/openapi.json', (c) => c.json({ openapi: '3.1.0' }));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('serves the page at / with no-cache, and hashed assets for a year, with their content types', async () => {
    const page = await app.request('/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(await page.text()).toContain('<title>dotplan</title>');

    const script = await app.request('/assets/index-AbC123.js');
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await app.request('/assets/index-AbC123.css')).headers.get('content-type')).toBe('text/css; charset=utf-8');
    const icon = await app.request('/favicon.svg');
    expect([icon.status, icon.headers.get('content-type')]).toEqual([200, 'image/svg+xml']);
  });

  it('answers 304 to a request that has the file already', async () => {
    const etag = (await app.request('/')).headers.get('etag')!;
    expect(etag).toMatch(/^W\/"/);
    const again = await app.request('/', { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
  });

  it('serves nothing outside its folder and leaves other routes alone', async () => {
    for (const path of ['/assets/../secret.txt', '/assets/%2e%2e/secret.txt', '/assets/..%2fsecret.txt', '/assets/missing.js', '/secret.txt']) {
      const response = await app.request(path);
      expect(response.status, path).toBe(404);
      expect(await response.text(), path).not.toContain('not for the web');
    }
    expect(await (await app.request('/openapi.json')).json()).toEqual({ openapi: '3.1.0' });
  });

  it('says to run `npm run build` where the UI is not built', async () => {
    const bare = new OpenAPIHono();
    uiRoutes(bare as never, { dir: join(root, 'nothing-here') });
    const response = await bare.request('/');
    expect(response.status).toBe(503);
    expect(await response.text()).toContain('npm run build');
  });
});

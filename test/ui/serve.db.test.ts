/**
 * The API app serves the built UI (dist/ui) beside `/v1`: the page and its assets under the app's
 * strict Content-Security-Policy, without a token even once tokens exist (the files hold no data);
 * `ui: false` (`dotplan serve --no-ui`) leaves `/` to the API's 404.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageUiDir } from '../../src/http/ui.js';
import { openApi, type ApiUnderTest } from '../http/client.js';

describe('the built UI served by the API app', () => {
  let s: ApiUnderTest;
  beforeAll(async () => {
    if (!existsSync(join(packageUiDir(), 'index.html'))) throw new Error(`${packageUiDir()} is not built: run \`npm run build\``);
    s = await openApi();
  });
  afterAll(() => s?.close());

  it('serves the page and every asset it names, under a CSP that allows only its own origin', async () => {
    const page = await s.call('GET', '/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await page.text();
    expect(html).toBe(readFileSync(join(packageUiDir(), 'index.html'), 'utf8'));
    const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const asset of assets) {
      const response = await s.call('GET', asset);
      expect(response.status, asset).toBe(200);
      expect(response.headers.get('content-type'), asset).toMatch(/^text\/(javascript|css); charset=utf-8$/);
    }
    // Nothing is loaded from elsewhere.
    expect(html).not.toMatch(/(?:src|href)="(?:https?:)?\/\//);
  });

  it('needs no token for the files once tokens exist, while /v1 does', async () => {
    await s.token('read');
    expect((await s.call('GET', '/')).status).toBe(200);
    expect((await s.call('GET', '/v1/plans')).status).toBe(401);
  });

  it('is left out with ui: false', async () => {
    const bare = await openApi({ ui: false });
    try {
      expect((await bare.call('GET', '/')).status).toBe(404);
      expect((await bare.call('GET', '/openapi.json')).status).toBe(200);
    } finally {
      await bare.close();
    }
  });
});

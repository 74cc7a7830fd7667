/**
 * The OpenAPI document: valid OpenAPI 3.1 (checked by a validator of the specification's own JSON
 * schema), listing every route the app answers — the event streams too — each with its security.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApi, type ApiUnderTest } from './client.js';

let s: ApiUnderTest;
beforeAll(async () => (s = await openApi()));
afterAll(() => s?.close());

interface Doc {
  openapi: string;
  paths: Record<string, Record<string, { security?: unknown[]; responses: Record<string, unknown> }>>;
}

describe('/openapi.json', () => {
  it('is valid OpenAPI 3.1', async () => {
    const response = await s.call('GET', '/openapi.json');
    expect(response.status).toBe(200);
    const doc = (await response.json()) as Doc;
    expect(doc.openapi).toBe('3.1.0');
    const validator = new Validator();
    const result = await validator.validate(doc as never);
    expect(result.errors ?? [], JSON.stringify(result.errors)).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('lists every /v1 route the app answers, each (but the login) with a bearer security and a problem answer for 401', async () => {
    const doc = (await (await s.call('GET', '/openapi.json')).json()) as Doc;
    const served = new Set(
      s.api.app.routes.filter((r) => r.path.startsWith('/v1/') && r.method !== 'ALL').map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`),
    );
    const documented = new Set(Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`)));
    expect([...served].sort()).toEqual([...documented].filter((r) => r.includes(' /v1/')).sort());
    expect(documented).toContain('GET /v1/plans/{planId}/events/stream');
    expect(documented).toContain('GET /v1/events/stream');
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        if (path === '/v1/session' && method === 'post') {
          expect(op.security, 'the login needs no token').toEqual([]);
          continue;
        }
        expect(op.security, `${method} ${path}`).toEqual([{ bearer: [] }]);
        expect(op.responses['401'], `${method} ${path}`).toBeDefined();
      }
    }
  });
});

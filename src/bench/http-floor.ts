import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import type { AddressInfo } from 'node:net';
import type { BenchResult } from './results.js';
import { loadUrl, type LoadOptions } from './scenarios/http-load.js';

/**
 * The HTTP floor: a bare Hono app with one route, `GET /hello` answering `hello`, served by
 * `@hono/node-server` (what `dotplan serve` listens with) in this process and loaded the same way
 * as dotplan's routes (scenarios/http-load.ts): requests/s over 4 connections and p50 on one. No
 * route of dotplan's API, which reads a database and writes JSON on the same server, can beat it.
 */
export async function measureHttpFloor(options: LoadOptions): Promise<BenchResult[]> {
  const app = new Hono().get('/hello', (c) => c.text('hello'));
  const server = await new Promise<ServerType>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
    s.once('error', reject);
  });
  try {
    const { port } = server.address() as AddressInfo;
    const load = await loadUrl(`http://127.0.0.1:${port}/hello`, options);
    return [
      { backend: 'hono-floor', scenario: 'http-hello-rate', value: load.rate, unit: 'req/s' },
      { backend: 'hono-floor', scenario: 'http-hello-p50', value: load.p50, unit: 'ms' },
    ];
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

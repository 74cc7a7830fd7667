import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolError } from '../../src/errors/errors.js';
import { httpTool, isHostAllowed } from '../../src/tools/builtin/http.js';
import { PrivateAddressError, sendRequest } from '../../src/tools/builtin/http-request.js';
import { toolContext } from './context.js';

let server: Server;
let base: string;
let port: number;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/json') {
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'x-test': 'yes' });
        res.end(JSON.stringify({ method: req.method, got: body, type: req.headers['content-type'] ?? null }));
      } else if (url.pathname === '/text') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('plain {"not": "parsed"}');
      } else if (url.pathname === '/missing') {
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('no such thing');
      } else if (url.pathname === '/broken') {
        res.writeHead(503);
        res.end('try later');
      } else if (url.pathname === '/loop') {
        res.writeHead(302, { location: `/loop?n=${Number(url.searchParams.get('n') ?? 0) + 1}` });
        res.end();
      } else if (url.pathname === '/see-other') {
        res.writeHead(303, { location: '/json' });
        res.end();
      } else if (url.pathname === '/temporary') {
        res.writeHead(307, { location: '/json' });
        res.end();
      } else if (url.pathname === '/to-file') {
        res.writeHead(302, { location: 'file:///etc/passwd' });
        res.end();
      } else if (url.pathname === '/gzip') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(gzipSync(JSON.stringify({ zipped: true })));
      } else if (url.pathname === '/hang') {
        // never answers
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const tool = () => httpTool({ allowHosts: ['127.0.0.1'], allowPrivate: true });

async function call(input: unknown, ctx = toolContext()) {
  const t = tool();
  const parsed = t.inputSchema!.safeParse(input);
  if (!parsed.success) throw new Error('bad input');
  return t.run(parsed.data as never, ctx);
}

describe('http', () => {
  it('GETs and parses a JSON response', async () => {
    const result = await call({ url: `${base}/json` });
    expect(result.status).toBe(200);
    expect(result.headers['x-test']).toBe('yes');
    expect(result.body).toEqual({ method: 'GET', got: '', type: null });
  });

  it('POSTs an object body as JSON', async () => {
    const result = await call({ url: `${base}/json`, body: { q: 'it\'s "quoted"' } });
    expect(result.body).toEqual({ method: 'POST', got: '{"q":"it\'s \\"quoted\\""}', type: 'application/json' });
  });

  it('keeps a non-JSON body as text', async () => {
    expect((await call({ url: `${base}/text`, method: 'get' })).body).toBe('plain {"not": "parsed"}');
  });

  it('refuses a host outside the allow-list, naming the host and the setting', async () => {
    const error = await call({ url: `http://localhost:${port}/json` }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).retryable).toBe(false);
    expect((error as ToolError).message).toContain(`"localhost:${port}"`);
    expect((error as ToolError).message).toContain('http.allowHosts');
    expect((error as ToolError).message).toContain('DOTPLAN_HTTP_ALLOW');
  });

  it('treats 4xx as final and 5xx as worth a retry', async () => {
    const notFound = await call({ url: `${base}/missing` }).catch((e: unknown) => e);
    expect(notFound).toMatchObject({ retryable: false });
    expect((notFound as Error).message).toMatch(/404: no such thing/);
    const unavailable = await call({ url: `${base}/broken` }).catch((e: unknown) => e);
    expect(unavailable).toBeInstanceOf(ToolError);
    expect(unavailable).toMatchObject({ retryable: true });
  });

  it('treats a refused connection as retryable', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await call({ url: `http://127.0.0.1:${closedPort}/` }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolError);
    expect(error).toMatchObject({ retryable: true });
    expect((error as Error).message).toContain('ECONNREFUSED');
  });

  it('stops when the signal aborts', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const start = Date.now();
    await expect(call({ url: `${base}/hang` }, toolContext({ signal: controller.signal }))).rejects.toThrow(/aborted/);
    expect(Date.now() - start).toBeLessThan(2000);
  });

  it('follows a redirect within one origin with the method, body and headers; a 303 continues as a GET', async () => {
    const temporary = await call({ url: `${base}/temporary`, body: { q: 1 }, headers: { 'x-api-key': 'k' } });
    expect(temporary.body).toEqual({ method: 'POST', got: '{"q":1}', type: 'application/json' });
    const seeOther = await call({ url: `${base}/see-other`, body: { q: 1 } });
    expect(seeOther.body).toEqual({ method: 'GET', got: '', type: null });
  });

  it('gives up after 5 redirects, and refuses a redirect to a scheme other than http(s)', async () => {
    const loop = await call({ url: `${base}/loop` }).catch((e: unknown) => e);
    expect(loop).toMatchObject({ retryable: false });
    expect((loop as Error).message).toContain('was redirected (302) more than 5 times (last to');
    const file = await call({ url: `${base}/to-file` }).catch((e: unknown) => e);
    expect((file as Error).message).toContain('file:///etc/passwd (redirected from');
    expect((file as Error).message).toContain('only http and https URLs are fetched, not file:');
  });

  it('checks the address again when the connection resolves the name (a name that turned private after the check)', async () => {
    const request = { method: 'GET', headers: new Headers(), signal: new AbortController().signal };
    const refused = await sendRequest(new URL(`http://localhost:${port}/json`), { ...request, publicOnly: true }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PrivateAddressError);
    expect((refused as Error).message).toMatch(/^(127.0.0.1|::1) is a loopback address$/);
    const allowed = await sendRequest(new URL(`http://localhost:${port}/json`), { ...request, publicOnly: false });
    expect(allowed.status).toBe(200);
    expect(JSON.parse(await allowed.text())).toMatchObject({ method: 'GET' });
  });

  it('decodes a gzip-encoded body', async () => {
    const result = await call({ url: `${base}/gzip` });
    expect(result.body).toEqual({ zipped: true });
  });

  it('matches allow-list entries by host, host:port, wildcard and *', () => {
    const url = new URL('https://api.example.com:8443/x');
    expect(isHostAllowed(url, ['api.example.com'])).toBe(true);
    expect(isHostAllowed(url, ['api.example.com:8443'])).toBe(true);
    expect(isHostAllowed(url, ['api.example.com:9000'])).toBe(false);
    expect(isHostAllowed(url, ['*.example.com'])).toBe(true);
    expect(isHostAllowed(new URL('https://example.com.evil.org/'), ['*.example.com', 'example.com'])).toBe(false);
    expect(isHostAllowed(url, ['*'])).toBe(true);
    expect(isHostAllowed(url, [])).toBe(false);
  });
});

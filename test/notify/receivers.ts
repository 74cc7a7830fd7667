/**
 * Real HTTP receivers for notifier tests, on 127.0.0.1: each records every request (URL, headers,
 * raw body) and answers as told — a status and body (once `after` settles, if given: a slow answer
 * the test releases), a function of the request, or never (a hang, for timeouts). `refusedUrl()` is
 * an address where nothing listens.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  url: URL;
  headers: IncomingHttpHeaders;
  body: string;
  json: Record<string, unknown>;
  at: number;
}

export type Reply = { status: number; body?: string; headers?: Record<string, string>; after?: Promise<unknown> } | 'hang';

export interface Receiver {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

export async function startReceiver(reply: Reply | ((request: Received) => Reply) = { status: 200, body: 'ok' }): Promise<Receiver> {
  const received: Received[] = [];
  const hanging = new Set<import('node:http').ServerResponse>();
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      let json: Record<string, unknown> = {};
      try {
        json = JSON.parse(body) as Record<string, unknown>;
      } catch {
        // recorded as it came
      }
      const request: Received = { url: new URL(req.url ?? '/', 'http://127.0.0.1'), headers: req.headers, body, json, at: Date.now() };
      received.push(request);
      const answer = typeof reply === 'function' ? reply(request) : reply;
      if (answer === 'hang') {
        hanging.add(res);
        return;
      }
      const send = () => void (res.destroyed || res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end(answer.body ?? ''));
      if (answer.after === undefined) return send();
      hanging.add(res);
      void answer.after.then(send, send);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A URL on a port that was free a moment ago: connecting is refused. */
export async function refusedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}/hook`;
}

import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { UsageError } from '../errors/errors.js';
import type { Dotplan } from '../operations/dotplan.js';
import { createHttpApi, type HttpApi, type HttpOptions } from './app.js';

/** A listening `dotplan serve`: its address, and a graceful stop (streams ended, requests in flight finished). */
export interface RunningServer {
  url: string;
  api: HttpApi;
  stop(): Promise<void>;
}

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|::1|\[::1\])$/i;

/**
 * Listens on `host:port` with the HTTP API. A host other than a loopback address is refused while no
 * token exists: the API would otherwise be open to the network without a password.
 */
export async function listen(dotplan: Dotplan, where: { host: string; port: number }, options: HttpOptions = {}): Promise<RunningServer> {
  if (!LOOPBACK.test(where.host) && !(await dotplan.tokens.exists())) {
    throw new UsageError(
      `Refusing to listen on ${where.host} with no API token: anyone who reaches it could run plans. Create one first (dotplan token create --name <name> --scope operate), or listen on 127.0.0.1.`,
    );
  }
  const api = createHttpApi(dotplan, options);
  const server = await new Promise<ServerType>((resolve, reject) => {
    const s = serve({ fetch: api.app.fetch, hostname: where.host, port: where.port }, () => resolve(s));
    s.once('error', reject);
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    api,
    stop: async () => {
      await api.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

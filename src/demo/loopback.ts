import { serve, type ServerType } from '@hono/node-server';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An HTTP server of the demo's, on 127.0.0.1. */
export interface LoopbackServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Stops listening and ends the connections still open (a client's idle keep-alive ones too). */
  close(): Promise<void>;
}

/** Serves `fetch` on 127.0.0.1, on any free port. */
export async function listenOnLoopback(fetch: (request: Request) => Response | Promise<Response>): Promise<LoopbackServer> {
  const server = await new Promise<ServerType>((resolve, reject) => {
    const s = serve({ fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
    s.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as Server).closeAllConnections();
      }),
  };
}

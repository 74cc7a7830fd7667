import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { listenOnLoopback } from './loopback.js';

/**
 * `dotplan demo --interop`'s MCP server: a shop's order desk with one tool, `lookup_order`, served
 * over MCP's streamable HTTP on 127.0.0.1 (any free port) in the demo's own process. Stateless, as
 * the SDK's `createMcpHandler` serves it: a server instance per request, nothing kept between them.
 */

/** The tool's answer: structured content, which a node's output is (as JSON). */
export interface DemoOrder {
  orderId: string;
  item: string;
  status: string;
  depot: string;
  attempts: number;
}

const ORDERS: Readonly<Record<string, DemoOrder>> = {
  'A-1042': { orderId: 'A-1042', item: 'an anvil (40 kg)', status: 'delivery failed', depot: 'Lyon', attempts: 1 },
  'A-1043': { orderId: 'A-1043', item: 'a box of rivets', status: 'delivered', depot: 'Lyon', attempts: 1 },
};

export interface DemoMcpServer {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  readonly url: string;
  close(): Promise<void>;
}

/** Starts the server; `onCall` hears each tool call as the server receives it (its name and arguments). */
export async function startDemoMcpServer(onCall: (tool: string, args: Record<string, unknown>) => void = () => undefined): Promise<DemoMcpServer> {
  const handler = createMcpHandler(() => orderDesk(onCall), { maxSubscriptions: 0 });
  const server = await listenOnLoopback((request) => handler.fetch(request));
  return {
    url: `${server.url}/mcp`,
    close: async () => {
      await handler.close();
      await server.close();
    },
  };
}

function orderDesk(onCall: (tool: string, args: Record<string, unknown>) => void): McpServer {
  const server = new McpServer({ name: 'demo-order-desk', version: '1.0.0' });
  server.registerTool(
    'lookup_order',
    {
      title: 'Look up an order',
      description:
        'Finds an order by its id: the item, its delivery status, the depot it ships from and how many deliveries were tried. Example: {"orderId": "A-1042"}.',
      inputSchema: z.object({ orderId: z.string().describe('The order id, such as A-1042.') }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ orderId }) => {
      onCall('lookup_order', { orderId });
      const order = ORDERS[orderId.trim().toUpperCase()];
      if (!order) return { content: [{ type: 'text', text: `no order ${orderId}; known: ${Object.keys(ORDERS).join(', ')}` }], isError: true };
      const text = `order ${order.orderId}: ${order.item}, ${order.status} (${order.attempts} attempt) from the ${order.depot} depot`;
      return { content: [{ type: 'text', text }], structuredContent: { ...order } };
    },
  );
  return server;
}

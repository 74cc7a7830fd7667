import { z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { streamSSE, type SSEStreamingApi } from 'hono/streaming';
import type { Dotplan } from '../../operations/dotplan.js';
import type { EventRecord } from '../../store/types.js';
import { requireScope, type HttpEnv } from '../auth.js';
import type { EventHub, HubFilter } from '../event-hub.js';
import { InvalidArgumentError } from '../../errors/errors.js';
import { problemFor, sendProblem } from '../problem.js';
import { EventSchema, ProblemSchema } from '../schemas.js';

/**
 * Live events as Server-Sent Events, one `event: dotplan` message per audit-log event, whose `id` is
 * the event's id: a client that reconnects with `Last-Event-ID: N` (EventSource does it by itself)
 * gets exactly the events after N, from the store, then live ones — across server restarts, since
 * the ids are the database's. Every stream is a subscriber of one shared feed per process (the hub).
 */
export interface StreamOptions {
  /** A comment line this often keeps proxies from closing a quiet stream. Default 15 s. */
  keepAliveMs?: number;
  /** A stream that sent no event for this long is closed (the client reconnects where it was). Default 10 min. */
  idleMs?: number;
}

const STREAMS: ReadonlyArray<{ path: string; hono: string; summary: string; filter: (planId: string | undefined, tree: boolean) => HubFilter }> = [
  { path: '/v1/events/stream', hono: '/v1/events/stream', summary: 'Every event, live', filter: () => ({}) },
  {
    path: '/v1/plans/{planId}/events/stream',
    hono: '/v1/plans/:planId/events/stream',
    summary: "A plan's events, live (with `tree=true`, its descendants' too)",
    filter: (planId, tree) => (tree ? { rootPlanId: planId } : { planId }),
  },
];

/** Ends every open stream (a graceful shutdown): each client reconnects where it was, to another server or this one restarted. */
export interface OpenStreams {
  /** Ends every open stream. */
  closeAll(): void;
  /** How many streams are open. */
  readonly size: number;
}

export function streamRoutes(app: OpenAPIHono<HttpEnv>, dotplan: Dotplan, hub: EventHub, options: StreamOptions = {}): OpenStreams {
  const open = new Set<() => void>();
  for (const stream of STREAMS) {
    app.openAPIRegistry.registerPath({
      method: 'get',
      path: stream.path,
      tags: ['events'],
      summary: stream.summary,
      description: 'Server-Sent Events: `id` is the event id, `data` the event as JSON (the `Event` schema). Resume with `Last-Event-ID` or `?after=`.',
      security: [{ bearer: [] }],
      request: {
        ...(stream.path.includes('{planId}') ? { params: z.object({ planId: z.string() }) } : {}),
        query: z.object({ after: z.coerce.number().int().min(0).optional(), tree: z.enum(['true', 'false']).optional() }),
        headers: z.object({ 'last-event-id': z.string().optional() }),
      },
      responses: {
        200: { description: 'An event stream.', content: { 'text/event-stream': { schema: EventSchema } } },
        ...Object.fromEntries(
          [401, 403, 404, 429].map((s) => [s, { description: 'Error', content: { 'application/problem+json': { schema: ProblemSchema } } }]),
        ),
      },
    });
    app.get(stream.hono, requireScope('read'), async (c) => {
      try {
        const after = startAfter(c);
        const filter = stream.filter(c.req.param('planId'), c.req.query('tree') === 'true');
        return await serve(c, dotplan, hub, filter, after, options, open);
      } catch (error) {
        return sendProblem(c, problemFor(error));
      }
    });
  }
  return {
    closeAll: () => {
      for (const end of [...open]) end();
    },
    get size() {
      return open.size;
    },
  };
}

/**
 * An event as an SSE message, encoded once however many streams send it: the hub hands every stream
 * the same record, and 200 streams on a busy plan would otherwise serialise each event 200 times.
 * (JSON has no raw line breaks, so the data is one `data:` line.)
 */
const encoded = new WeakMap<EventRecord, Uint8Array>();
/** Bytes a stream may buffer before the hub waits for it. */
const BUFFER_BYTES = 256 * 1024;
const encoder = new TextEncoder();
function wire(event: EventRecord): Uint8Array {
  let bytes = encoded.get(event);
  if (!bytes) {
    bytes = encoder.encode(`id: ${event.id}\nevent: dotplan\ndata: ${JSON.stringify(event)}\n\n`);
    encoded.set(event, bytes);
  }
  return bytes;
}

/** Where a stream starts: `Last-Event-ID` (a reconnect), else `?after=`, else now. */
function startAfter(c: Context): number | undefined {
  const text = c.req.header('last-event-id') ?? c.req.query('after');
  if (text === undefined || text === '') return undefined;
  if (!/^\d{1,15}$/.test(text)) throw InvalidArgumentError.about('Last-Event-ID', `must be an event id (got ${JSON.stringify(text.slice(0, 40))})`);
  return Number(text);
}

async function serve(
  c: Context,
  dotplan: Dotplan,
  hub: EventHub,
  filter: HubFilter,
  after: number | undefined,
  options: StreamOptions,
  openStreams: Set<() => void>,
): Promise<Response> {
  const from = after ?? (await dotplan.events.lastId());
  // Events reach this stream through the hub, in order, from the moment it subscribes. They are
  // buffered and written in batches (one write for what came in while the last was being written),
  // once the response is open; the hub is made to wait only while more than BUFFER_BYTES are waiting,
  // so a slow client is still held back (and, too far behind, dropped by the hub).
  let open!: (stream: SSEStreamingApi) => void;
  const opened = new Promise<SSEStreamingApi>((resolve) => (open = resolve));
  let isOpen = false;
  let closed = false;
  let lastSent = Date.now();
  let end = (): void => {
    closed = true;
  };
  const waiting: Uint8Array[] = [];
  let waitingBytes = 0;
  let flushing: Promise<void> | undefined;
  const flush = async (): Promise<void> => {
    const stream = await opened;
    while (waiting.length > 0 && !closed) {
      const batch = waiting.splice(0);
      waitingBytes = 0;
      lastSent = Date.now();
      await stream.write(batch.length === 1 ? batch[0]! : Buffer.concat(batch));
    }
  };
  const kick = (): Promise<void> =>
    (flushing ??= flush().finally(() => {
      flushing = undefined;
      if (waiting.length > 0 && !closed) void kick();
    }));
  const send = (event: EventRecord): Promise<void> | undefined => {
    const bytes = wire(event);
    waiting.push(bytes);
    waitingBytes += bytes.byteLength;
    const written = kick();
    // Until the response is open the hub is not made to wait: it may still be inside `subscribe`.
    return isOpen && waitingBytes > BUFFER_BYTES ? written : undefined;
  };
  const unsubscribe = await hub.subscribe(filter, from, send, () => end());
  return streamSSE(c, async (stream) => {
    if (closed) {
      unsubscribe();
      return;
    }
    const finished = new Promise<void>((resolve) => {
      end = () => {
        if (closed) return;
        closed = true;
        unsubscribe();
        openStreams.delete(end);
        resolve();
      };
    });
    openStreams.add(end);
    stream.onAbort(() => end());
    c.req.raw.signal.addEventListener('abort', () => end(), { once: true });
    isOpen = true;
    open(stream);
    const keepAlive = options.keepAliveMs ?? 15_000;
    const idle = options.idleMs ?? 600_000;
    const timer = setInterval(
      () => {
        if (Date.now() - lastSent >= idle) return end();
        void stream.write(': keep-alive\n\n');
      },
      Math.min(keepAlive, idle),
    );
    await finished;
    clearInterval(timer);
  });
}

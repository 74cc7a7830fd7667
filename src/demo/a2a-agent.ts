import { randomUUID } from 'node:crypto';
import {
  A2A_PROTOCOL_VERSION,
  A2A_VERSION_HEADER,
  AgentCard,
  formatSSEErrorEvent,
  formatSSEEvent,
  Role,
  SSE_HEADERS,
  TaskState,
  type Message,
  type Part,
} from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  ServerCallContext,
  UnauthenticatedUser,
  validateVersion,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk/server';
import { listenOnLoopback } from './loopback.js';

/**
 * `dotplan demo --interop`'s A2A agent: a courier desk (A2A 1.0, the SDK's `DefaultRequestHandler`
 * and `JsonRpcTransportHandler`, JSON-RPC with streaming) on 127.0.0.1, any free port, in the demo's
 * own process. Given a task it works (WORKING), asks which delivery slot to book (INPUT_REQUIRED,
 * the options in a data part `{"options": [...]}`), and on the reply in the same task completes with
 * an artifact that names the slot chosen and quotes the task as it arrived — so what dotplan sent
 * (after redaction) can be read on both sides.
 */

/** The slots it offers; the first is the one the demo takes when nobody is at a terminal. */
export const DEMO_SLOTS = ['tomorrow morning', 'tomorrow afternoon', 'Friday'] as const;
/** Its one skill. */
export const DEMO_SKILL = 'redelivery';

const RPC_PATH = '/a2a/jsonrpc';
const CARD_PATH = '/.well-known/agent-card.json';

export interface DemoA2aAgent {
  /** Its base URL (the card is at `/.well-known/agent-card.json` under it). */
  readonly url: string;
  close(): Promise<void>;
}

/** A message the agent received, as it arrived: a new task's text, or the reply to its question. */
export type Received = (text: string, turn: 'task' | 'reply') => void;

/** Starts the agent; `onReceive` hears each message's text exactly as it arrived. */
export async function startDemoA2aAgent(onReceive: Received = () => undefined): Promise<DemoA2aAgent> {
  // The card names the port, known once listening; requests come only after that.
  const served: { card?: AgentCard; transport?: JsonRpcTransportHandler } = {};
  const server = await listenOnLoopback(async (request) => {
    const path = new URL(request.url).pathname;
    if (request.method === 'GET' && path === CARD_PATH) return Response.json(AgentCard.toJSON(served.card!));
    if (request.method === 'POST' && path === RPC_PATH) return rpc(request, served.card!, served.transport!);
    return Response.json({ error: `no ${request.method} ${path}` }, { status: 404 });
  });
  served.card = courierCard(server.url);
  served.transport = new JsonRpcTransportHandler(new DefaultRequestHandler(served.card, new InMemoryTaskStore(), new CourierDesk(onReceive)));
  return server;
}

class CourierDesk implements AgentExecutor {
  /** Each task's first message, by task id: a task waiting for its reply. */
  readonly #asked = new Map<string, string>();

  constructor(private readonly onReceive: Received) {}

  async execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId, userMessage } = context;
    const text = textOf(userMessage.parts);
    const first = this.#asked.get(taskId);
    this.onReceive(text, first === undefined ? 'task' : 'reply');
    // Every turn starts with the task (the handler refuses a stream that does not).
    bus.publish(
      AgentEvent.task(
        context.task ?? {
          id: taskId,
          contextId,
          status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
          artifacts: [],
          history: [userMessage],
          metadata: undefined,
        },
      ),
    );
    const status = (state: TaskState, parts?: Part[]) =>
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: { state, message: parts ? agentMessage(taskId, contextId, parts) : undefined, timestamp: new Date().toISOString() },
          metadata: undefined,
        }),
      );
    const order = /\b[A-Z]-\d{3,}\b/.exec(first ?? text)?.[0] ?? 'the order';
    if (first === undefined) {
      this.#asked.set(taskId, text);
      status(TaskState.TASK_STATE_WORKING, [textPart(`checking the courier's free slots for ${order}`)]);
      // The executor returns here; the handler keeps the task open for the reply (an interrupted state).
      status(TaskState.TASK_STATE_INPUT_REQUIRED, [textPart(`Which delivery slot should the courier book for ${order}?`), dataPart({ options: DEMO_SLOTS })]);
      return;
    }
    this.#asked.delete(taskId);
    status(TaskState.TASK_STATE_WORKING, [textPart(`booking ${text}`)]);
    const booked = `Redelivery of ${order} booked for ${text}; the courier will call ahead. The task as I received it: "${first}"`;
    bus.publish(
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        artifact: { artifactId: randomUUID(), name: 'booking', description: '', parts: [textPart(booked)], metadata: undefined, extensions: [] },
        append: false,
        lastChunk: true,
        metadata: undefined,
      }),
    );
    status(TaskState.TASK_STATE_COMPLETED);
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    this.#asked.delete(taskId);
    // The handler waits on this bus for a final state.
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId: '',
        status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: new Date().toISOString() },
        metadata: undefined,
      }),
    );
    return Promise.resolve();
  }
}

/** One JSON-RPC request: a JSON answer, or an SSE stream of the task's events for a streaming method. */
async function rpc(request: Request, card: AgentCard, transport: JsonRpcTransportHandler): Promise<Response> {
  let body: unknown;
  try {
    body = await request.json();
  } catch {
    return Response.json({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'the body is not JSON' } });
  }
  const id = (body as { id?: unknown } | null)?.id ?? null;
  const failure = (error: unknown) => ({ jsonrpc: '2.0', id, error: JsonRpcTransportHandler.mapToJSONRPCError(error) });
  try {
    const context = new ServerCallContext({ user: new UnauthenticatedUser(), requestedVersion: request.headers.get(A2A_VERSION_HEADER) ?? '0.3' });
    validateVersion(context.requestedVersion, card, 'JSONRPC');
    const answer = await transport.handle(body as Record<string, unknown>, context);
    if (!(Symbol.asyncIterator in answer)) return Response.json(answer);
    // An error before the first event is a plain JSON-RPC error; after it, an error event ends the stream.
    const first = await answer.next().catch((error: unknown) => ({ error }));
    if ('error' in first) return Response.json(failure(first.error));
    const encoder = new TextEncoder();
    let next: IteratorResult<unknown> = first;
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (next.done) return controller.close();
        controller.enqueue(encoder.encode(formatSSEEvent(next.value)));
        try {
          next = await answer.next();
        } catch (error) {
          controller.enqueue(encoder.encode(formatSSEErrorEvent(failure(error))));
          next = { done: true, value: undefined };
        }
      },
      cancel: () => void answer.return(undefined),
    });
    return new Response(stream, { headers: SSE_HEADERS });
  } catch (error) {
    return Response.json(failure(error));
  }
}

function courierCard(base: string): AgentCard {
  const modes = ['text/plain', 'application/json'];
  return {
    name: 'Courier desk (dotplan demo)',
    description: 'Books deliveries again: give it an order and what went wrong; it asks which slot to book, then books it.',
    supportedInterfaces: [{ url: `${base}${RPC_PATH}`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION }],
    provider: undefined,
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: modes,
    defaultOutputModes: modes,
    skills: [
      {
        id: DEMO_SKILL,
        name: 'Redelivery',
        description: 'Books a new delivery of an order, in a slot the caller picks.',
        tags: ['delivery'],
        examples: ['Order A-1042 was not delivered: book it again.'],
        inputModes: modes,
        outputModes: modes,
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}

function agentMessage(taskId: string, contextId: string, parts: Part[]): Message {
  return { messageId: randomUUID(), contextId, taskId, role: Role.ROLE_AGENT, parts, metadata: undefined, extensions: [], referenceTaskIds: [] };
}

function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

function dataPart(value: unknown): Part {
  return { content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' };
}

function textOf(parts: readonly Part[]): string {
  return parts
    .map((p) => (p.content?.$case === 'text' ? p.content.value : ''))
    .filter((t) => t !== '')
    .join('\n');
}

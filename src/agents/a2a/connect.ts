import { Role, TaskState, type AgentCard, type Message, type Part, type StreamResponse, type Task } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory, type Client } from '@a2a-js/sdk/client';
import { TERMINAL_STATES, type RemoteState } from './states.js';

/**
 * The one module that speaks to `@a2a-js/sdk`'s client (protocol v1.0; pinned, the SDK moves fast):
 * everything else sees the plain types below. Requests carry the agent's bearer token and never
 * follow a redirect (a token must not go to a host it was not configured for); the SDK's v0.3
 * compatibility is on, so agents of the older protocol are reached too.
 */

export type { RemoteState } from './states.js';

/** What one event of a remote task says: its ids, its state, the text and data of its status message, its artifacts so far. */
export interface RemoteUpdate {
  taskId?: string;
  contextId?: string;
  state?: RemoteState;
  /** The status message's (or a direct reply message's) text parts, joined. */
  text?: string;
  /** The status message's data parts. */
  data: unknown[];
  artifacts: RemoteArtifact[];
  /** A direct reply (a Message, no task): the exchange is over. */
  reply?: boolean;
  /** The task as it stands (a Task, not a change to it): a stream's first event, getTask's answer. */
  snapshot?: boolean;
}

export interface RemoteArtifact {
  name: string;
  /** Its text parts joined (data parts as JSON). */
  text: string;
}

/** What dotplan sends: a user message, first or follow-up (then with the task's ids). */
export interface OutgoingMessage {
  messageId: string;
  text: string;
  taskId?: string;
  contextId?: string;
  /** Goes in the message's metadata (the skill asked for). */
  metadata?: Record<string, unknown>;
}

/** The card's parts dotplan uses. */
export interface RemoteCard {
  name: string;
  skills: string[];
  /** Every interface URL the card names. */
  urls: string[];
  streaming: boolean;
}

/** A connection to one remote agent. */
export interface RemoteAgentClient {
  readonly card: RemoteCard;
  /**
   * Sends a message; yields the task's events until it ends, stops for input, or the stream closes.
   * `returnImmediately`: one update, the task as it stands once it exists (detached mode).
   */
  send(message: OutgoingMessage, signal: AbortSignal, options?: { returnImmediately?: boolean }): AsyncIterable<RemoteUpdate>;
  /** Follows a task already sent (after a takeover): its current state first, then its events. */
  follow(taskId: string, signal: AbortSignal): AsyncIterable<RemoteUpdate>;
  get(taskId: string, signal: AbortSignal): Promise<RemoteUpdate>;
  cancel(taskId: string, signal: AbortSignal): Promise<RemoteUpdate>;
}

const STATES: Readonly<Record<number, RemoteState>> = {
  [TaskState.TASK_STATE_SUBMITTED]: 'submitted',
  [TaskState.TASK_STATE_WORKING]: 'working',
  [TaskState.TASK_STATE_INPUT_REQUIRED]: 'input-required',
  [TaskState.TASK_STATE_AUTH_REQUIRED]: 'auth-required',
  [TaskState.TASK_STATE_COMPLETED]: 'completed',
  [TaskState.TASK_STATE_FAILED]: 'failed',
  [TaskState.TASK_STATE_CANCELED]: 'canceled',
  [TaskState.TASK_STATE_REJECTED]: 'rejected',
};

/** Fetches the agent's card (aborted with `signal`) and opens a client on it. `bearer`: the token (already read from env). */
export async function connectRemoteAgent(url: string, bearer: string | undefined, signal: AbortSignal): Promise<RemoteAgentClient> {
  const fetchImpl = guardedFetch(bearer);
  const card = await new DefaultAgentCardResolver({ fetchImpl: guardedFetch(bearer, signal) }).resolve(url);
  const resolver = new DefaultAgentCardResolver({ fetchImpl });
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [
        new JsonRpcTransportFactory({ fetchImpl, legacyCompat: { enabled: true } }),
        new RestTransportFactory({ fetchImpl, legacyCompat: { enabled: true } }),
      ],
      cardResolver: resolver,
    }),
  );
  const client = await factory.createFromAgentCard(card);
  return new SdkRemoteAgent(client, cardOf(card));
}

class SdkRemoteAgent implements RemoteAgentClient {
  constructor(
    private readonly client: Client,
    readonly card: RemoteCard,
  ) {}

  async *send(message: OutgoingMessage, signal: AbortSignal, options: { returnImmediately?: boolean } = {}): AsyncIterable<RemoteUpdate> {
    const returnImmediately = options.returnImmediately === true;
    const request = {
      tenant: '',
      message: messageOf(message),
      configuration: { acceptedOutputModes: ['text/plain', 'application/json'], taskPushNotificationConfig: undefined, returnImmediately },
      metadata: undefined,
    };
    if (!this.card.streaming || returnImmediately) {
      yield updateOfResult(await this.client.sendMessage(request, { signal }));
      return;
    }
    for await (const event of this.client.sendMessageStream(request, { signal })) yield updateOfStream(event);
  }

  async *follow(taskId: string, signal: AbortSignal): AsyncIterable<RemoteUpdate> {
    const now = await this.get(taskId, signal);
    yield now;
    if (now.state && (TERMINAL_STATES.has(now.state) || now.state === 'input-required' || now.state === 'auth-required')) return;
    if (!this.card.streaming) return;
    for await (const event of this.client.resubscribeTask({ tenant: '', id: taskId }, { signal })) yield updateOfStream(event);
  }

  async get(taskId: string, signal: AbortSignal): Promise<RemoteUpdate> {
    return updateOfTask(await this.client.getTask({ tenant: '', id: taskId, historyLength: 0 }, { signal }));
  }

  async cancel(taskId: string, signal: AbortSignal): Promise<RemoteUpdate> {
    return updateOfTask(await this.client.cancelTask({ tenant: '', id: taskId, metadata: undefined }, { signal }));
  }
}

/** fetch with the bearer token and no redirects followed (a token goes to its host only); also aborted with `outer`. */
function guardedFetch(bearer: string | undefined, outer?: AbortSignal): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    if (bearer !== undefined) headers.set('authorization', `Bearer ${bearer}`);
    const signals = [init?.signal, outer].filter((s): s is AbortSignal => s !== undefined && s !== null);
    return fetch(input, { ...init, headers, redirect: 'error', ...(signals.length > 0 ? { signal: AbortSignal.any(signals) } : {}) });
  };
}

function cardOf(card: AgentCard): RemoteCard {
  return {
    name: card.name,
    skills: card.skills.map((s) => s.id),
    urls: card.supportedInterfaces.map((i) => i.url),
    streaming: card.capabilities?.streaming === true,
  };
}

function messageOf(m: OutgoingMessage): Message {
  return {
    messageId: m.messageId,
    contextId: m.contextId ?? '',
    taskId: m.taskId ?? '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: m.text }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
    metadata: m.metadata,
    extensions: [],
    referenceTaskIds: [],
  };
}

function updateOfResult(result: Message | Task): RemoteUpdate {
  return 'status' in result ? updateOfTask(result) : updateOfMessage(result);
}

function updateOfStream(event: StreamResponse): RemoteUpdate {
  const payload = event.payload;
  switch (payload?.$case) {
    case 'task':
      return updateOfTask(payload.value);
    case 'message':
      return updateOfMessage(payload.value);
    case 'statusUpdate': {
      const { taskId, contextId, status } = payload.value;
      return { taskId, contextId, ...statusOf(status), artifacts: [] };
    }
    case 'artifactUpdate': {
      const { taskId, contextId, artifact } = payload.value;
      return { taskId, contextId, data: [], artifacts: artifact ? [{ name: artifact.name, text: textOf(artifact.parts) }] : [] };
    }
    default:
      return { data: [], artifacts: [] };
  }
}

function updateOfTask(task: Task): RemoteUpdate {
  return {
    snapshot: true,
    taskId: task.id,
    contextId: task.contextId,
    ...statusOf(task.status),
    artifacts: task.artifacts.map((a) => ({ name: a.name, text: textOf(a.parts) })),
  };
}

function updateOfMessage(message: Message): RemoteUpdate {
  const out: RemoteUpdate = { text: textOf(message.parts), data: dataOf(message.parts), artifacts: [], reply: true };
  if (message.taskId) out.taskId = message.taskId;
  if (message.contextId) out.contextId = message.contextId;
  return out;
}

function statusOf(status: Task['status']): Pick<RemoteUpdate, 'state' | 'text' | 'data'> {
  const out: Pick<RemoteUpdate, 'state' | 'text' | 'data'> = { state: status ? (STATES[status.state] ?? 'unknown') : 'unknown', data: [] };
  const parts = status?.message?.parts ?? [];
  const text = textOf(parts, false);
  if (text !== '') out.text = text;
  out.data = dataOf(parts);
  return out;
}

/** The text parts joined; with `data`, data parts as JSON among them. */
function textOf(parts: readonly Part[], data = true): string {
  return parts
    .map((p) => (p.content?.$case === 'text' ? p.content.value : data && p.content?.$case === 'data' ? JSON.stringify(p.content.value) : ''))
    .filter((t) => t !== '')
    .join('\n');
}

function dataOf(parts: readonly Part[]): unknown[] {
  return parts.flatMap((p): unknown[] => (p.content?.$case === 'data' ? [p.content.value as unknown] : []));
}

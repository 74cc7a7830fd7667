/**
 * What the A2A server's tests share: the templates the served folder holds (each one a skill), the
 * messages a client sends, and the SDK's own client (`ClientFactory`) with a bearer token.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Role, type Part, type SendMessageRequest, type Task } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';

/** A question with options between two steps: "yes" ships, "no" holds. Its end nodes' outputs are the result. */
export const SHIP_TEMPLATE = `// Ship a version once a person says yes.
//
// Parameters (graph attribute \`params\`):
//   version     required: the version to ship
//   channel     where to ship it (default: stable)
digraph ship {
  label="Ship {{params.version}}"
  mode="workflow"
  params="version,channel=stable"

  node [shape=record type=function status=pending]

  prepare [label="Prepare" toolCode="template" toolInput="{\\"template\\": \\"version {{params.version}} for {{params.channel}}\\"}"]
  ask     [label="Ship?" shape=ellipse type=confirm question="Ship {{nodes.prepare.output}} now?" options="yes,no"]
  ship    [label="Ship" toolCode="template" toolInput="{\\"template\\": \\"shipped {{params.version}} to {{params.channel}}\\"}"]
  hold    [label="Hold" toolCode="template" toolInput="{\\"template\\": \\"held {{params.version}}\\"}"]

  prepare -> ask
  ask -> ship [when="yes"]
  ask -> hold [when="no"]
}
`;

/** One step that runs for a minute: a task that works and asks nothing (until it is cancelled). */
export const SLOW_TEMPLATE = `// Wait a minute.
digraph slow {
  label="Slow"
  mode="workflow"
  wait [type=function toolCode=sleep toolInput="60000" timeout="5m"]
}
`;

/** Writes the fixture templates into `<dir>/templates`, where a server started in `dir` finds them. */
export function writeTemplates(dir: string): void {
  mkdirSync(join(dir, 'templates'), { recursive: true });
  writeFileSync(join(dir, 'templates', 'ship.dot'), SHIP_TEMPLATE);
  writeFileSync(join(dir, 'templates', 'slow.dot'), SLOW_TEMPLATE);
}

export function text(value: string): Part {
  return { content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

export function data(value: Record<string, unknown>): Part {
  return { content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' };
}

/** A SendMessage request: a new task, or a reply in one (`taskId` and `contextId` as the task gave them). */
export function send(parts: Part[], options: { task?: Pick<Task, 'id' | 'contextId'>; returnImmediately?: boolean } = {}): SendMessageRequest {
  return {
    tenant: '',
    message: {
      messageId: crypto.randomUUID(),
      taskId: options.task?.id ?? '',
      contextId: options.task?.contextId ?? '',
      role: Role.ROLE_USER,
      parts,
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    },
    configuration: { acceptedOutputModes: [], taskPushNotificationConfig: undefined, returnImmediately: options.returnImmediately ?? false },
    metadata: undefined,
  };
}

/** The SDK's client for the agent at `base` (its card read from /.well-known/agent-card.json, without a token), sending `token` as a bearer. */
export function clientFor(base: string, token: string): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory({ fetchImpl })] });
  return new ClientFactory(options).createFromUrl(base);
}

/** The text parts of the task's status message. */
export function statusText(task: Task): string {
  return (task.status?.message?.parts ?? []).map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('\n');
}

/** The first data part's value of a list of parts. */
export function dataOf(parts: readonly Part[] | undefined): Record<string, unknown> | undefined {
  const part = (parts ?? []).find((p) => p.content?.$case === 'data');
  return part?.content?.$case === 'data' ? (part.content.value as Record<string, unknown>) : undefined;
}

/** The error a call rejected with (fails when it did not). */
export async function refusal(call: () => Promise<unknown>): Promise<Error & { envelopeCode?: number }> {
  try {
    await call();
  } catch (error) {
    return error as Error & { envelopeCode?: number };
  }
  throw new Error('expected the call to be refused, but it succeeded');
}

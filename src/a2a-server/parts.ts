import { Role, type Message, type Part } from '@a2a-js/sdk';

/**
 * The pieces of A2A messages as dotplan writes and reads them: a text part for people (and models),
 * a data part with the same facts as JSON for programs.
 */

/** A `text/plain` part. */
export function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

/** An `application/json` part holding `value`. */
export function dataPart(value: object): Part {
  return { content: { $case: 'data', value: plainJson(value) }, metadata: undefined, filename: '', mediaType: 'application/json' };
}

/** A message from the agent (dotplan) in a task. */
export function agentMessage(ids: { messageId: string; taskId: string; contextId: string }, parts: Part[]): Message {
  return { ...ids, role: Role.ROLE_AGENT, parts, metadata: undefined, extensions: [], referenceTaskIds: [] };
}

/** The text parts of a message, one after another (blank line between), trimmed. */
export function textOf(parts: readonly Part[]): string {
  return parts
    .flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : []))
    .join('\n\n')
    .trim();
}

/** The data parts of a message that hold a JSON object, in order. */
export function objectsOf(parts: readonly Part[]): Array<Record<string, unknown>> {
  return parts.flatMap((p) => (p.content?.$case === 'data' && isObject(p.content.value) ? [p.content.value] : []));
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Plain JSON: dates as ISO strings, undefined fields left out. */
export function plainJson<T extends object>(value: T): Record<string, unknown> {
  return JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
}

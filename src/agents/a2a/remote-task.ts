import { z } from 'zod';
import type { RemoteState } from './states.js';

/**
 * What an agent node knows of its task at an external agent (`nodes.remote_task`), kept under the
 * node's lease before and after each exchange: a worker that takes the node over (its predecessor
 * crashed, or the node was answered) follows this task rather than sending it again.
 */
export interface RemoteTask {
  /** The agent it was sent to (a revision that names another agent starts afresh). */
  agent: string;
  /** The first message's id: sent again with the same id when no task came back for it. */
  messageId: string;
  taskId?: string;
  contextId?: string;
  state?: RemoteState;
  /** Questions the agent asked so far (INPUT_REQUIRED); the answer to the latest carries its number. */
  asked: number;
  /**
   * The follow-up with a person's answer: its id, its text, the question it answers; `sent` once the
   * agent received it (it is never sent again), `taken` once the task moved past the question (until
   * then the task as it stands still shows the question answered).
   */
  answer?: { messageId: string; text: string; round: number; sent: boolean; taken?: boolean };
  /** The agent's last status message written to the node's log (the same one again is not). */
  said?: string;
}

const schema = z.object({
  agent: z.string(),
  messageId: z.string(),
  taskId: z.string().optional(),
  contextId: z.string().optional(),
  state: z.string().optional(),
  asked: z.int().default(0),
  answer: z.object({ messageId: z.string(), text: z.string(), round: z.int(), sent: z.boolean(), taken: z.boolean().optional() }).optional(),
  said: z.string().optional(),
});

/** The stored record, or undefined when there is none or it cannot be read (the task then starts afresh). */
export function readRemoteTask(text: string | undefined): RemoteTask | undefined {
  if (text === undefined) return undefined;
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    return parsed.success ? (parsed.data as RemoteTask) : undefined;
  } catch {
    return undefined;
  }
}

export function writeRemoteTask(task: RemoteTask): string {
  return JSON.stringify(task);
}

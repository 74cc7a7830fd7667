import type { RemoteCancel } from '../../store/remote-tasks.js';
import type { Store } from '../../store/types.js';
import { audit } from './audit.js';
import { TERMINAL_STATES } from './states.js';
import type { RemoteAgents } from './remote-agents.js';
import { readRemoteTask } from './remote-task.js';

/** Cancels taken per round, how long one is held from other workers, how often one is tried before it is given up. */
const BATCH = 10;
const HOLD_MS = 60_000;
const MAX_ATTEMPTS = 10;
const CALL_TIMEOUT_MS = 30_000;

/**
 * Delivers the cancels owed to external agents (the `remote_cancels` outbox, written in the transaction
 * that cancelled the plan or skipped the node): any worker takes the due ones, calls the agent's
 * cancel, and retries with a backoff (5 s, 10 s, … up to 10 min) until it is delivered, the task turns
 * out to be over already, or 10 attempts failed. Each outcome is a `remote` event of the node.
 */
export async function deliverCancels(store: Pick<Store, 'remote' | 'events'>, agents: RemoteAgents, actor: string): Promise<number> {
  const due = await store.remote.takeCancels(BATCH, HOLD_MS);
  await Promise.all(due.map((row) => deliverOne(store, agents, actor, row)));
  return due.length;
}

async function deliverOne(store: Pick<Store, 'remote' | 'events'>, agents: RemoteAgents, actor: string, row: RemoteCancel): Promise<void> {
  const task = readRemoteTask(row.remoteTask);
  const agent = task ? agents.agent(task.agent) : undefined;
  const note = (text: string, state?: string) =>
    audit(store.events, {
      planId: row.planId,
      nodeId: row.nodeId,
      agent: task?.agent ?? 'unknown',
      direction: 'cancel',
      actor,
      text,
      ...(task?.taskId ? { taskId: task.taskId } : {}),
      ...(task?.contextId ? { contextId: task.contextId } : {}),
      ...(state ? { state } : {}),
    });
  if (!task?.taskId || (task.state !== undefined && TERMINAL_STATES.has(task.state))) {
    await store.remote.settleCancel(row.id);
    return;
  }
  if (!agent) {
    await note(`not delivered: agent ${task.agent} is no longer configured`);
    await store.remote.settleCancel(row.id);
    return;
  }
  try {
    const client = await agents.client(agent);
    const after = await client.cancel(task.taskId, AbortSignal.timeout(CALL_TIMEOUT_MS));
    await note('cancelled', after.state);
    await store.remote.settleCancel(row.id);
  } catch (error) {
    const text = agents.redactor(agent).redact(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
    if (/TaskNotCancelable|TaskNotFound/i.test(text)) {
      await note(`the task was over already (${text})`);
      await store.remote.settleCancel(row.id);
    } else if (row.attempts >= MAX_ATTEMPTS) {
      await note(`given up after ${row.attempts} attempts: ${text}`);
      await store.remote.settleCancel(row.id);
    } else {
      await store.remote.deferCancel(row.id, text, Math.min(5_000 * 2 ** (row.attempts - 1), 600_000));
    }
  }
}

import { randomUUID } from 'node:crypto';
import type { AttemptResult } from '../../engine/attempts.js';
import { AttemptAborted } from '../../kinds/aborted.js';
import type { ChildInput } from '../../kinds/agent-child.js';
import { formatDuration, parseDuration } from '../../model/duration.js';
import type { RemoteTasks } from '../../store/remote-tasks.js';
import type { ClaimedNode, EventFeed } from '../../store/types.js';
import type { ToolLog } from '../../worker/tool-logs.js';
import type { AgentDefinition } from '../types.js';
import { audit, type Exchange } from './audit.js';
import type { RemoteAgentClient, RemoteUpdate } from './connect.js';
import { TERMINAL_STATES } from './states.js';
import { metadataOf, outgoingOf, refusal } from './policy.js';
import type { Redactor } from './redact.js';
import { readRemoteTask, writeRemoteTask, type RemoteTask } from './remote-task.js';

export interface TaskRunDeps {
  remote: RemoteTasks;
  events: Pick<EventFeed, 'append'>;
  /** Progress lines of the remote task (the node's `log` events). */
  log: (entry: ToolLog) => void;
  /** The node's timeout for this attempt. */
  timeoutMs?: number;
}

/** How often a detached task is read unless the agent's `pollEvery` says otherwise. */
export const DEFAULT_POLL_EVERY = '1m';
/** A stream silent this long has its task read meanwhile. */
const SILENT_CHECK_MS = 15_000;
/** Pause before following a task again whose stream closed while it worked: doubles up to the cap. */
const FOLLOW_PAUSE_MS = 500;
const FOLLOW_PAUSE_CAP_MS = 10_000;

/**
 * One attempt of an agent node of an external agent: sends the task (or the person's answer, on the
 * same task), or follows the task its node already stands for, and maps the task onto the node —
 * SUBMITTED/WORKING: still running (progress as the node's log lines); INPUT_REQUIRED: the node asks
 * a person (question and options from the agent's message); COMPLETED: done with the artifacts;
 * FAILED/REJECTED/CANCELED: failed, not retried. Transport errors fail the attempt retryably: the next
 * attempt follows the same task. The task's ids are kept under the node's lease before anything
 * depends on them. Everything sent and received is redacted and audited.
 */
export async function runRemoteTask(
  claim: ClaimedNode,
  agent: AgentDefinition,
  client: RemoteAgentClient,
  redactor: Redactor,
  input: ChildInput,
  signal: AbortSignal,
  deps: TaskRunDeps,
): Promise<AttemptResult> {
  // Aborted when the attempt ends, too: a stream still open then is closed.
  const over = new AbortController();
  const limit = AbortSignal.any([signal, over.signal, ...(deps.timeoutMs !== undefined ? [AbortSignal.timeout(deps.timeoutMs)] : [])]);
  const detached = agent.mode === 'detached';
  /** This attempt sends the person's answer: the first reply to it says the agent has it. */
  let answering = false;
  const stored = await deps.remote.read(claim.planId, claim.nodeId);
  let task = readRemoteTask(stored.remoteTask);
  // A task of another agent (the plan was revised) or one that ended (the node is retried) is not followed.
  if (task && (task.agent !== agent.code || (task.state !== undefined && TERMINAL_STATES.has(task.state)))) task = undefined;
  const exchange = (e: Omit<Exchange, 'planId' | 'nodeId' | 'agent'>) =>
    audit(deps.events, { planId: claim.planId, nodeId: claim.nodeId, agent: agent.code, ...ids(task), ...e });
  const keep = async (t: RemoteTask, clearAnswer = false) => {
    if (!(await deps.remote.keep(claim.token, writeRemoteTask(t), { clearAnswer }))) throw new AttemptAborted('lease lost');
  };
  try {
    let stream: AsyncIterable<RemoteUpdate>;
    if (!task?.taskId) {
      // Not sent yet, or sent with no task back (the exchange broke): sent with the same message id again.
      const outgoing = outgoingOf(agent, input);
      const text = redactor.redact(outgoing.text);
      const metadata = metadataOf(outgoing, (t) => redactor.redact(t));
      const skill = outgoing.skill !== undefined ? { skill: outgoing.skill } : {};
      // The payload: the text, and the values sent beside it in the metadata.
      const values = metadata?.values;
      const why = refusal(agent, client.card, outgoing, values !== undefined ? `${text}${JSON.stringify(values)}` : text);
      if (why) {
        await exchange({ direction: 'refused', text: why, ...skill });
        return { kind: 'failed', error: why, retryable: false };
      }
      task ??= { agent: agent.code, messageId: randomUUID(), asked: 0 };
      await keep(task);
      await exchange({ direction: 'sent', text, ...skill });
      stream = client.send({ messageId: task.messageId, text, ...(metadata ? { metadata } : {}) }, limit, { returnImmediately: detached });
    } else if (task.state === 'input-required' && stored.answer !== undefined && !(task.answer?.round === task.asked && task.answer.sent)) {
      // A person answered the agent's question: the answer goes back on the same task (both ids).
      task.answer = task.answer?.round === task.asked ? task.answer : { messageId: randomUUID(), text: stored.answer, round: task.asked, sent: false };
      await keep(task);
      const text = redactor.redact(task.answer.text);
      await exchange({ direction: 'sent', text });
      answering = true;
      stream = client.send({ messageId: task.answer.messageId, text, taskId: task.taskId, ...(task.contextId ? { contextId: task.contextId } : {}) }, limit, {
        returnImmediately: detached,
      });
    } else {
      stream = detached ? once(client.get(task.taskId, limit)) : client.follow(task.taskId, limit);
    }
    return detached ? await check(task, stream) : await consume(task, stream);
  } catch (error) {
    if (signal.aborted && signal.reason instanceof AttemptAborted) return { kind: 'released' };
    if (error instanceof AttemptAborted) return { kind: 'released' };
    if (limit.aborted && !signal.aborted)
      return {
        kind: 'failed',
        error: `agent ${agent.code}: no end of its task within the node's timeout (${formatDuration(deps.timeoutMs ?? 0)}); the next attempt follows the same task`,
        retryable: true,
      };
    const message = redactor.redact(error instanceof Error ? error.message : String(error));
    if (task?.taskId && /TaskNotFound/i.test(error instanceof Error ? `${error.name} ${error.message}` : '')) {
      // The agent no longer knows the task: the next attempt sends it afresh.
      await deps.remote.keep(claim.token, writeRemoteTask({ ...task, state: 'canceled' })).catch(() => false);
    }
    return { kind: 'failed', error: `agent ${agent.code} (${agent.url}): ${message}`, retryable: true };
  } finally {
    over.abort();
  }

  /**
   * Reads the task's events until it ends or asks; a stream that closes while the task works is
   * followed again, and one silent for SILENT_CHECK_MS has the task read (getTask) meanwhile — a stream
   * that stays open without events would otherwise hold the node forever.
   */
  async function consume(task: RemoteTask, first: AsyncIterable<RemoteUpdate>): Promise<AttemptResult> {
    const artifacts = new Map<string, string>();
    let stream = first;
    for (let pause = FOLLOW_PAUSE_MS; ; pause = Math.min(pause * 2, FOLLOW_PAUSE_CAP_MS)) {
      for await (const update of watched(stream, () => (task.taskId ? client.get(task.taskId, limit) : undefined), limit)) {
        const end = await take(task, update, artifacts);
        if (end) return end;
      }
      if (!task.taskId) return { kind: 'failed', error: `agent ${agent.code} ended the exchange with neither a task nor a reply`, retryable: true };
      await sleep(pause, limit);
      stream = client.follow(task.taskId, limit);
    }
  }

  /**
   * Detached mode: what the task says now settles the node, or the node is parked on it — still
   * running, no lease, no worker slot — until a worker reads it again in `pollEvery`.
   */
  async function check(task: RemoteTask, updates: AsyncIterable<RemoteUpdate>): Promise<AttemptResult> {
    const artifacts = new Map<string, string>();
    for await (const update of updates) {
      const end = await take(task, update, artifacts);
      if (end) return end;
    }
    if (!task.taskId) return { kind: 'failed', error: `agent ${agent.code} answered with neither a task nor a reply`, retryable: true };
    const every = parseDuration(agent.pollEvery ?? DEFAULT_POLL_EVERY) ?? 60_000;
    if (!(await deps.remote.park(claim.token, writeRemoteTask(task), every))) throw new AttemptAborted('lease lost');
    return { kind: 'parked' };
  }

  /** One event: the task's ids and state kept (under the lease), its artifacts gathered, and what it means for the node. */
  async function take(task: RemoteTask, update: RemoteUpdate, artifacts: Map<string, string>): Promise<AttemptResult | undefined> {
    // Right after an answer went out, the task as it stands still shows the question answered.
    if (task.answer && !task.answer.taken && update.snapshot && update.state === 'input-required') {
      if (answering && !task.answer.sent) {
        task.answer.sent = true; // the agent has it: it is not sent again
        await keep(task);
      }
      return undefined;
    }
    let changed = false;
    let asks = false;
    if (update.taskId && update.taskId !== task.taskId) {
      task.taskId = update.taskId;
      if (update.contextId) task.contextId = update.contextId;
      changed = true;
    }
    if (task.answer && !task.answer.taken && update.state !== undefined) {
      task.answer.sent = true;
      task.answer.taken = true;
      changed = true;
    }
    if (update.state !== undefined && update.state !== 'unknown' && update.state !== task.state) {
      task.state = update.state;
      if (update.state === 'input-required') {
        task.asked += 1;
        asks = true; // the answer stored answered an earlier question: it is not sent to this one
      }
      changed = true;
    }
    if (changed) await keep(task, asks);
    for (const a of update.artifacts) artifacts.set(a.name || `artifact ${artifacts.size + 1}`, a.text);
    return settle(task, update, artifacts);
  }

  /** What one event means for the node: nothing yet (progress), or how the attempt ends. */
  async function settle(task: RemoteTask, update: RemoteUpdate, artifacts: Map<string, string>): Promise<AttemptResult | undefined> {
    const text = update.text === undefined ? undefined : redactor.redact(update.text);
    const received = (extra: Partial<Exchange> = {}) => exchange({ direction: 'received', ...(update.state ? { state: update.state } : {}), ...extra });
    if (update.reply) {
      const output = text ?? '';
      await received({ text: output });
      return { kind: 'done', output };
    }
    switch (update.state) {
      case 'input-required': {
        const question = text ?? `agent ${agent.code} asks for input`;
        await received({ text: question });
        const options = optionsOf(update.data);
        return { kind: 'asked', question, ...(options ? { options } : {}) };
      }
      case 'completed': {
        const output = redactor.redact(outputOf(artifacts, update.text));
        await received({ text: output });
        return { kind: 'done', output };
      }
      case 'failed':
      case 'rejected':
      case 'canceled':
        await received(text !== undefined ? { text } : {});
        return {
          kind: 'failed',
          error: `agent ${agent.code} ${update.state === 'canceled' ? 'cancelled' : update.state} the task${text ? `: ${text}` : ''}`,
          retryable: false,
        };
      case 'auth-required':
        await received(text !== undefined ? { text } : {});
        return {
          kind: 'failed',
          error: `agent ${agent.code} asks for authentication (AUTH_REQUIRED), which dotplan cannot give in a task: set the agent's auth`,
          retryable: false,
        };
      default:
        // The agent's progress, once per message (a snapshot repeats the last one; a detached check reads it again).
        if (text && text !== task.said) {
          deps.log({ planId: claim.planId, nodeId: claim.nodeId, attempt: claim.attempts, message: `agent ${agent.code}: ${text}` });
          task.said = text; // kept with the task's next write (a detached check's park)
        }
        return undefined;
    }
  }
}

function ids(task: RemoteTask | undefined): Pick<Exchange, 'taskId' | 'contextId'> {
  const out: Pick<Exchange, 'taskId' | 'contextId'> = {};
  if (task?.taskId) out.taskId = task.taskId;
  if (task?.contextId) out.contextId = task.contextId;
  return out;
}

/** The options an agent offers with its question: a data part `{ "options": [...] }` of strings. */
function optionsOf(data: readonly unknown[]): string[] | undefined {
  for (const item of data) {
    const options = (item as { options?: unknown } | null)?.options;
    if (Array.isArray(options) && options.length > 0 && options.every((o) => typeof o === 'string')) return options;
  }
  return undefined;
}

/** The node's output: its one artifact's text, several as `name:` sections, or the final status message. */
function outputOf(artifacts: Map<string, string>, statusText: string | undefined): string {
  if (artifacts.size === 1) return [...artifacts.values()][0]!;
  if (artifacts.size > 1) return [...artifacts].map(([name, text]) => `${name}:\n${text}`).join('\n\n');
  return statusText ?? '';
}

/**
 * The stream's events; while it is silent for SILENT_CHECK_MS, what `check` reads (the task as it
 * stands) in between. The event being waited for stays awaited across checks.
 */
async function* watched(stream: AsyncIterable<RemoteUpdate>, check: () => Promise<RemoteUpdate> | undefined, signal: AbortSignal): AsyncIterable<RemoteUpdate> {
  const events = stream[Symbol.asyncIterator]();
  let next = events.next();
  try {
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const silent = new Promise<'silent'>((resolve) => (timer = setTimeout(() => resolve('silent'), SILENT_CHECK_MS)));
      const first = await Promise.race([next, silent]).finally(() => clearTimeout(timer));
      if (first === 'silent') {
        signal.throwIfAborted();
        const now = check();
        if (now) yield await now;
        continue;
      }
      if (first.done) return;
      yield first.value;
      next = events.next();
    }
  } finally {
    // Ending early (the node's attempt ended): the stream is closed, its pending read dropped.
    void events.return?.(undefined)?.catch(() => undefined);
    next.catch(() => undefined);
  }
}

/** One update as a stream of one. */
async function* once(update: Promise<RemoteUpdate>): AsyncIterable<RemoteUpdate> {
  yield await update;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

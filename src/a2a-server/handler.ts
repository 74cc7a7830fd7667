import { TaskState, type AgentCard, type Message, type Task } from '@a2a-js/sdk';
import { A2AError, PushNotificationNotSupportedError, RequestMalformedError, TaskNotCancelableError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import type { A2ARequestHandler, ServerCallContext, User } from '@a2a-js/sdk/server';
import type { Principal } from '../http/auth.js';
import type { EventHub } from '../http/event-hub.js';
import type { Dotplan } from '../operations/dotplan.js';
import { templateSkills } from './card.js';
import { a2aErrorOf, taskNotFound } from './errors.js';
import { newPlan, readMessage, replyOf } from './message.js';
import { isFinal, readFacts, stateName, taskOf, taskState, type PlanFacts } from './task-view.js';
import { settle } from './watch.js';

type Params<K extends keyof A2ARequestHandler> = Parameters<A2ARequestHandler[K]>[0];

/** Who sends the request (the token's principal), as the SDK's call context carries it. */
export class PrincipalUser implements User {
  constructor(readonly principal: Principal) {}
  get isAuthenticated(): boolean {
    return !this.principal.local;
  }
  get userName(): string {
    return this.principal.name;
  }
}

export interface A2aHandlerOptions {
  /** How long a blocking SendMessage waits for the plan to ask something or end, in ms. */
  waitMs: number;
  /** Says what a request that failed inside the server was (its stack), where the operator reads it. */
  logError: (error: unknown) => void;
}

/**
 * The A2A methods over dotplan's use cases: SendMessage creates a plan (a new task) or answers what a
 * task waits for (a follow-up with its taskId), then waits for the plan to ask something or end;
 * GetTask and CancelTask read and cancel the plan. The task is the plan (task-view.ts): there is no
 * A2A task store beside the plans, and so no SDK `DefaultRequestHandler`, whose store and executor
 * keep tasks of their own. Streaming, push notifications and ListTasks are not offered (the card
 * says so); asking for them is an A2A error saying what to use instead.
 */
export class DotplanA2aHandler implements A2ARequestHandler {
  constructor(
    private readonly dotplan: Dotplan,
    private readonly hub: EventHub,
    private readonly card: () => AgentCard,
    private readonly options: A2aHandlerOptions,
  ) {}

  async getAgentCard(): Promise<AgentCard> {
    return this.card();
  }

  async getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    throw new UnsupportedOperationError('this agent has no extended card: its card at /.well-known/agent-card.json is the whole of it');
  }

  sendMessage(params: Params<'sendMessage'>, context: ServerCallContext): Promise<Task> {
    return this.#guard(async () => {
      const message = params.message;
      if (message === undefined) throw new RequestMalformedError('params.message is required: the message to send');
      if (!message.messageId) throw new RequestMalformedError('message.messageId is required: an id the client makes for the message (a UUID)');
      const by = byOf(context);
      const after = await this.dotplan.events.lastId();
      const planId = message.taskId ? await this.#reply(message, by) : await this.#create(message, by);
      const waitMs = params.configuration?.returnImmediately === true ? 0 : this.options.waitMs;
      return taskOf(this.dotplan, await settle(this.dotplan, this.hub, planId, after, waitMs));
    });
  }

  getTask(params: Params<'getTask'>): Promise<Task> {
    return this.#guard(async () => taskOf(this.dotplan, await this.#facts(params.id)));
  }

  cancelTask(params: Params<'cancelTask'>, context: ServerCallContext): Promise<Task> {
    return this.#guard(async () => {
      const facts = await this.#facts(params.id);
      const state = taskState(facts);
      if (state === TaskState.TASK_STATE_CANCELED) return taskOf(this.dotplan, facts);
      if (isFinal(state)) {
        throw new TaskNotCancelableError(
          `task ${params.id} is ${stateName(state)} (plan ${facts.plan.status}): only a task that has not finished can be cancelled`,
        );
      }
      const by = byOf(context);
      await this.dotplan.cancel(params.id, { by, reason: `cancelled over A2A by ${by}` });
      return taskOf(this.dotplan, await readFacts(this.dotplan, params.id));
    });
  }

  async listTasks(): Promise<never> {
    throw new UnsupportedOperationError('ListTasks is not offered: read a task with GetTask (its id is the plan id), or list plans with GET /v1/plans');
  }

  // A stream that fails at its first step: the transport answers with the error.
  // eslint-disable-next-line require-yield
  async *sendMessageStream(): AsyncGenerator<never, void, undefined> {
    throw notStreaming();
  }

  // eslint-disable-next-line require-yield
  async *resubscribe(): AsyncGenerator<never, void, undefined> {
    throw notStreaming();
  }

  async createTaskPushNotificationConfig(): Promise<never> {
    throw noPush();
  }

  async getTaskPushNotificationConfig(): Promise<never> {
    throw noPush();
  }

  async listTaskPushNotificationConfigs(): Promise<never> {
    throw noPush();
  }

  async deleteTaskPushNotificationConfig(): Promise<never> {
    throw noPush();
  }

  /** A new task: the plan its message asks for, created and started (or left for review). */
  async #create(message: Message, by: string): Promise<string> {
    const templates = new Set(templateSkills(this.dotplan).map((t) => t.name));
    const plan = newPlan(readMessage(message), templates);
    const created = await this.dotplan.create(plan.input, { by, ...(plan.review ? { review: true } : {}) });
    return created.id;
  }

  /** A follow-up: answers the question (or decides the review) its task waits for. */
  async #reply(message: Message, by: string): Promise<string> {
    const taskId = message.taskId;
    const facts = await this.#facts(taskId);
    if (message.contextId && message.contextId !== taskId) {
      throw new RequestMalformedError(
        `contextId "${message.contextId}" is not the context of task ${taskId}: a task's context id is its plan id, "${taskId}"; send taskId and contextId as the task gave them`,
      );
    }
    const state = taskState(facts);
    if (isFinal(state)) {
      throw new UnsupportedOperationError(
        `task ${taskId} is ${stateName(state)} (plan ${facts.plan.status}) and takes no more messages; send a message without taskId to start a new task`,
      );
    }
    if (state !== TaskState.TASK_STATE_INPUT_REQUIRED) {
      throw new UnsupportedOperationError(
        `task ${taskId} asks nothing now: it is ${stateName(state)} (plan ${facts.plan.status}); reply only while it is INPUT_REQUIRED — poll GetTask until then`,
      );
    }
    const reply = replyOf(readMessage(message), facts.waiting, taskId);
    if (reply.kind === 'answer') await this.dotplan.answer(reply.planId, reply.nodeId, reply.answer, { by });
    else if (reply.kind === 'approve') await this.dotplan.approve(reply.planId, { by, reason: reply.reason ?? `approved over A2A by ${by}` });
    else await this.dotplan.reject(reply.planId, { by, reason: reply.reason });
    return taskId;
  }

  /** The task's plan and what waits in it; TaskNotFound for an id that names no plan. */
  async #facts(taskId: string): Promise<PlanFacts> {
    if (typeof taskId !== 'string' || taskId.trim() === '') {
      throw new RequestMalformedError('the task id is missing: give the plan id (p_…) that SendMessage returned as the task id');
    }
    try {
      return await readFacts(this.dotplan, taskId);
    } catch (error) {
      throw taskNotFound(taskId, error) ?? error;
    }
  }

  async #guard<T>(body: () => Promise<T>): Promise<T> {
    try {
      return await body();
    } catch (error) {
      throw a2aErrorOf(error, this.options.logError);
    }
  }
}

function byOf(context: ServerCallContext): string {
  if (context.user instanceof PrincipalUser) return context.user.principal.name;
  throw new A2AError('internal error: a request reached the A2A handler without the principal of its token');
}

function notStreaming(): Error {
  return new UnsupportedOperationError(
    'streaming is not offered (the agent card says capabilities.streaming false): SendMessage waits for a question or the end, and GetTask polls',
  );
}

function noPush(): Error {
  return new PushNotificationNotSupportedError('push notifications are not offered: poll the task with GetTask (it is read from the plan, across restarts)');
}

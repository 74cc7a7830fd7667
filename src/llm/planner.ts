import type { AgentRegistry } from '../agents/registry.js';
import type { AgentDefinition } from '../agents/types.js';
import { REPLAN_REQUESTED } from '../model/replan.js';
import * as engine from '../engine/index.js';
import type { Config } from '../config/defaults.js';
import { revisionGraph } from '../revisions/revision-graphs.js';
import { DotplanError } from '../errors/errors.js';
import { ValidationError, formatDiagnostic, type Diagnostic } from '../model/diagnostics.js';
import type { PlanGraph } from '../model/types.js';
import { applyRevision } from '../operations/apply-revision.js';
import type { ApplyReport } from '../operations/decide-revision.js';
import { VERIFICATION_FAILED } from '../execute/verify.js';
import { mergeLiveState } from '../plans/plan-view.js';
import type { LlmPurpose, LlmWork, Store } from '../store/index.js';
import type { ToolCatalogue } from '../tools/types.js';
import { nextRetryDelay } from '../engine/retry-policy.js';
import { parseDuration } from '../model/duration.js';
import type { LlmClient, LlmResult } from './client.js';
import { answeredCall, failedCall } from './call-record.js';
import { answerMessages, planMessages, refusalMessages, type ChatMessage } from './prompt.js';
import { parseReply, placeInReply } from './reply.js';
import { nothingToRun, reusedIds } from './reply-rules.js';

/** Limits of a reflection plan's LLM work (config `reflection.*`); a plan's graph attributes of the same names override them. */
export type ReflectionLimits = Pick<Config['reflection'], 'maxRewriteAttempts' | 'maxReplans' | 'maxTokens' | 'resultChars'>;

/** The exchange with the model in progress: what it is for, what was sent, and the reply once it came. */
interface Exchange {
  purpose: LlmPurpose;
  messages: ChatMessage[];
  started: number;
  call?: LlmResult<string>;
  /** Exchanges that failed in a row before this one (reset when a rewrite succeeds and the answer is asked next). */
  failures: number;
}

/**
 * Serves one plan's LLM work (SPEC §6), one exchange with the model per claim: asks for the first
 * plan or a refreshed one and applies the reply through the revision path as the `llm` driver, merged
 * against the state the prompt showed (finishes during the call are kept). When nothing is left to
 * run, asks for the final answer, stores it and completes the plan. Every call is recorded against
 * the plan.
 *
 * Every failed exchange counts, whatever went wrong — the endpoint (after the client's own retries),
 * a reply refused with diagnostics, a reply that could not be processed at all, a call that could not
 * be stored: it is recorded in `plan calls` with its error, counted against `maxRewriteAttempts`, and
 * the work backs off (exponential with jitter from `reflection.retryDelay`, capped) before any worker
 * calls the model again for the plan; at the limit the plan fails with the last problems, its last
 * good revision intact. The next call sends the plan afresh with the last refused reply and its
 * diagnostics, so a conversation never grows past one refusal. A call aborted (shutdown, a lost lease,
 * the plan cancelled or paused) is not a failure: the work is given back uncounted.
 */
export class Planner {
  readonly #retryDelayMs: number;

  constructor(
    private readonly deps: { store: Store; tools: ToolCatalogue; config: Config; client: LlmClient; limits: ReflectionLimits; agents?: AgentRegistry },
  ) {
    this.#retryDelayMs = parseDuration(deps.config.reflection.retryDelay) ?? 1_000;
  }

  async serve(work: LlmWork, signal?: AbortSignal): Promise<void> {
    const exchange: Exchange = { purpose: 'rewrite', messages: [], started: Date.now(), failures: work.attempts };
    try {
      await this.#serve(work, exchange, signal);
    } catch (error) {
      if (signal?.aborted) return; // stopped, not failed: the slot gives the work back, uncounted
      await this.#failed(work, exchange, error);
    }
  }

  async #serve(work: LlmWork, exchange: Exchange, signal?: AbortSignal): Promise<void> {
    const { store } = this.deps;
    const plan = await store.plans.get(work.planId);
    if (plan.status !== 'running' && plan.status !== 'awaiting_review') return; // cancelled or paused since the claim
    const limits = this.#limits(plan.attributes);
    const state = await store.plans.editable(work.planId);
    const graph = this.#graph(work.planId, state.revision.number, state.revision.dot, state.nodes);
    const goal = plan.attributes.goal ?? plan.title;

    if (limits.maxTokens > 0 && work.tokensUsed >= limits.maxTokens) {
      const whose = work.rootPlanId ? `the token budget of its tree (root ${work.rootPlanId})` : "the plan's token budget";
      return this.#end(work, 'failed', `${whose} is spent (${work.tokensUsed} of maxTokens=${limits.maxTokens})`);
    }
    const replans = countReplans(graph);
    if (replans > limits.maxReplans) {
      return this.#answer(work, exchange, goal, graph, limits, signal, `${replanWhy(graph)} ${replans} times (maxReplans=${limits.maxReplans})`);
    }

    exchange.purpose = graph.nodes.length === 0 ? 'plan' : 'rewrite';
    const suggestion = plan.status === 'awaiting_review' ? await this.#suggestion(work.planId) : undefined;
    exchange.messages = [
      ...planMessages({
        planId: work.planId,
        goal,
        tools: this.deps.tools.list(),
        graph,
        resultChars: limits.resultChars,
        ...(suggestion ? { suggestion } : {}),
        agents: this.#agentsFor(plan.agentCode),
      }),
      ...(await this.#lastRefusal(work)),
    ];
    const call = await this.#chat(exchange, signal);
    const report = await this.#apply(work, call.value, state.revision.number, state.asOfEvent);
    const problems = [...report.diagnostics, ...report.conflicts.map(conflictDiagnostic)];
    await this.#record(work, exchange, call, problems.length === 0 ? (report.applied ? 'applied' : 'ok') : 'refused', problems);
    if (problems.length === 0) {
      const after = await store.plans.editable(work.planId);
      const now = this.#graph(work.planId, after.revision.number, after.revision.dot, after.nodes);
      // Nothing left to run and no node finished meanwhile (else a rewrite sees it first): the answer ends the work.
      if (!active(now) && (await store.llm.due(work.planId)) <= work.due) return this.#answer(work, exchange, goal, now, limits, signal);
      return store.llm.done(work);
    }
    const list = problems.map((d) => formatDiagnostic(d, 'reply')).join('; ');
    await this.#count(
      work,
      exchange,
      limits,
      `the LLM's plan was refused ${exchange.failures + 1} times in a row (maxRewriteAttempts=${limits.maxRewriteAttempts}): ${list}`,
    );
  }

  /** One call to the model for the exchange; an aborted one throws (the caller's signal tells it apart from a failure). */
  async #chat(exchange: Exchange, signal?: AbortSignal): Promise<LlmResult<string>> {
    signal?.throwIfAborted();
    exchange.started = Date.now();
    exchange.call = await this.deps.client.chat(exchange.messages, signal ? { signal } : {});
    signal?.throwIfAborted(); // the plan was cancelled or paused during the call: its reply is not used
    return exchange.call;
  }

  /** After a refused reply: that reply and its diagnostics, for the model to fix (nothing after an endpoint error). */
  async #lastRefusal(work: LlmWork): Promise<ChatMessage[]> {
    if (work.attempts === 0) return [];
    const last = await this.deps.store.llm.lastCall(work.planId, ['plan', 'rewrite']);
    if (last?.outcome !== 'refused' || last.reply === undefined || !Array.isArray(last.diagnostics)) return [];
    return refusalMessages(last.reply, last.diagnostics as Diagnostic[]);
  }

  /**
   * Anything that went wrong in an exchange is one failed attempt: recorded (with the reply, when one
   * came, as refused with the error; else as an endpoint error), counted, backed off.
   */
  async #failed(work: LlmWork, exchange: Exchange, error: unknown): Promise<void> {
    const { store, client } = this.deps;
    const context = { planId: work.planId, purpose: exchange.purpose, messages: exchange.messages };
    const call = exchange.call;
    const record = call ? answeredCall(context, call, 'refused', [unusableReply(error)]) : failedCall(context, client.model, exchange.started, error);
    try {
      await store.llm.record(record);
    } catch (recordError) {
      // The call could not be stored as it was (its reply, its prompt): stored without them, and still counted.
      const message = `${describeError(error)}; the call could not be stored whole (${describeError(recordError)})`;
      await store.llm
        .record(failedCall({ planId: work.planId, purpose: exchange.purpose, messages: [] }, call?.model ?? client.model, exchange.started, new Error(message)))
        .catch(() => undefined);
    }
    const limits = this.#limits((await store.plans.get(work.planId)).attributes);
    const why = call
      ? `the LLM's reply could not be used ${exchange.failures + 1} times in a row (maxRewriteAttempts=${limits.maxRewriteAttempts}): ${describeError(error)}`
      : `the LLM endpoint kept failing (maxRewriteAttempts=${limits.maxRewriteAttempts}): ${describeError(error)}`;
    await this.#count(work, exchange, limits, why);
  }

  /** One failed attempt more: the plan fails at its limit (its work ends), else the work backs off before the next call. */
  async #count(work: LlmWork, exchange: Exchange, limits: ReflectionLimits, why: string): Promise<void> {
    const attempts = exchange.failures + 1;
    if (attempts >= limits.maxRewriteAttempts) return this.#end(work, 'failed', why);
    await this.deps.store.llm.failed(work, attempts, nextRetryDelay(attempts, this.#retryDelayMs));
  }

  /** A reply's plan as a revision by the LLM; a reply that does not parse is refused with the codec's diagnostics. */
  async #apply(work: LlmWork, reply: string, revision: number, asOfEvent: number): Promise<ApplyReport> {
    let parsed;
    try {
      parsed = parseReply(reply, { maxBytes: this.deps.config.reflection.maxReplyBytes });
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      return { applied: false, revision: null, base: null, changes: [], conflicts: [], diagnostics: error.diagnostics };
    }
    const { current, removed } = await this.#ids(work.planId);
    const report = await applyRevision(this.deps, work.planId, parsed.dot, {
      by: { driver: 'llm', name: this.deps.client.model },
      source: 'the reply',
      base: { revision, asOfEvent },
      reason: parsed.updateLog.trim() || 'LLM rewrite',
      check: (next) => [...reusedIds(next, current, removed), ...nothingToRun(next)],
    });
    // Lines as the model wrote them: counted from the reply's start, not from its DOT block.
    const shift = parsed.dotLine - 1;
    return {
      ...report,
      diagnostics: report.diagnostics.map((d) => placeInReply(d, reply, parsed)),
      conflicts: report.conflicts.map((c) => (c.line !== undefined ? { ...c, line: c.line + shift } : c)),
    };
  }

  /** The reviewer's latest suggestion, if it came after the latest revision. */
  async #suggestion(planId: string): Promise<string | undefined> {
    const events = await this.deps.store.events.list(planId, { kind: 'review' });
    const last = events.at(-1);
    return typeof last?.detail?.suggestion === 'string' ? last.detail.suggestion : undefined;
  }

  /** The plan's node ids now, and those removed by earlier revisions (from the audit log). */
  async #ids(planId: string): Promise<{ current: Set<string>; removed: Set<string> }> {
    const [nodes, events] = await Promise.all([this.deps.store.plans.nodes(planId), this.deps.store.events.list(planId, { kind: 'revision' })]);
    const removed = new Set(events.flatMap((e) => (e.detail?.kind === 'node-removed' && e.nodeId !== undefined ? [e.nodeId] : [])));
    return { current: new Set(nodes.map((n) => n.id)), removed };
  }

  /** The final answer from the results; the plan completes with it (or fails, when it ends for `why`). */
  async #answer(
    work: LlmWork,
    exchange: Exchange,
    goal: string,
    graph: PlanGraph,
    limits: ReflectionLimits,
    signal?: AbortSignal,
    why?: string,
  ): Promise<void> {
    // A new exchange: a rewrite that led here succeeded.
    if (!why) exchange.failures = 0;
    exchange.purpose = 'answer';
    exchange.call = undefined;
    exchange.messages = answerMessages(
      why ? `${goal}\n\n(The plan stops here: ${why}. Explain what was found and what could not be done.)` : goal,
      graph,
      limits.resultChars,
    );
    const call = await this.#chat(exchange, signal);
    await this.#record(work, exchange, call, 'ok');
    await this.deps.store.llm.setResult(work.planId, call.value);
    await this.#end(work, why ? 'failed' : 'completed', why ?? 'the LLM wrote the final answer');
  }

  /**
   * Ends the work: a running plan completes or fails; a plan under review fails too when its LLM could
   * not write the plan to review (its reviewer's suggestion, if any, named), else stays there, the requests served.
   */
  #agentsFor(planAgent: string | undefined): AgentDefinition[] {
    return agentsOf(this.deps.agents, planAgent);
  }

  async #end(work: LlmWork, to: 'completed' | 'failed', reason: string): Promise<void> {
    const suggestion = to === 'failed' ? await this.#suggestion(work.planId) : undefined;
    await this.deps.store.plans.change(work.planId, {}, (snapshot) => {
      const { status } = snapshot.plan;
      if (status === 'awaiting_review' && to === 'failed') {
        return engine.conclude(snapshot, to, suggestion ? `${reason}; the reviewer's suggestion ${JSON.stringify(suggestion)} was not acted on` : reason);
      }
      return status === 'running' ? engine.conclude(snapshot, to, reason) : undefined;
    });
    await this.deps.store.llm.done(work);
  }

  async #record(work: LlmWork, exchange: Exchange, call: LlmResult<string>, outcome: 'applied' | 'refused' | 'ok', problems: Diagnostic[] = []) {
    const context = { planId: work.planId, purpose: exchange.purpose, messages: exchange.messages };
    await this.deps.store.llm.record(answeredCall(context, call, outcome, problems));
  }

  #graph(planId: string, number: number, dot: string, nodes: Parameters<typeof mergeLiveState>[1]): PlanGraph {
    return mergeLiveState(revisionGraph(planId, number, dot), nodes);
  }

  #limits(attributes: Record<string, string>): ReflectionLimits {
    const pick = (key: keyof ReflectionLimits) => {
      const value = Number(attributes[key]);
      return attributes[key] !== undefined && Number.isInteger(value) && value >= 0 ? value : this.deps.limits[key];
    };
    return {
      ...this.deps.limits,
      maxRewriteAttempts: pick('maxRewriteAttempts'),
      maxReplans: pick('maxReplans'),
      maxTokens: pick('maxTokens'),
      resultChars: pick('resultChars'),
    };
  }
}

/** Nodes left to run or waiting for a person. */
function active(graph: PlanGraph): boolean {
  return graph.nodes.some((n) => ['pending', 'ready', 'running', 'awaiting_input'].includes(n.attributes.status ?? 'pending'));
}

/** Nodes that failed their verification (each one a re-plan). */
/** What asked for the re-plans: failed verifications, or (also) executors' requests. */
function replanWhy(graph: PlanGraph): string {
  return graph.nodes.some((n) => (n.attributes.error ?? '').startsWith(REPLAN_REQUESTED))
    ? 're-plans were asked for (failed verifications, executors)'
    : VERIFICATION_FAILED;
}

/** The agents a plan may hand tasks to: any registered one for a root plan, its own agent's `agents` for a child. */
function agentsOf(registry: AgentRegistry | undefined, planAgent: string | undefined): AgentDefinition[] {
  if (!registry) return [];
  if (planAgent === undefined) return registry.list();
  return (registry.get(planAgent)?.agents ?? []).map((code) => registry.get(code)).filter((a): a is AgentDefinition => a !== undefined);
}

function countReplans(graph: PlanGraph): number {
  const asks = (error: string) => error.startsWith(VERIFICATION_FAILED) || error.startsWith(REPLAN_REQUESTED);
  return graph.nodes.filter((n) => n.attributes.status === 'failed' && asks(n.attributes.error ?? '')).length;
}

/** A reply that came but could not be processed (an exception in parsing, validating or applying it). */
function unusableReply(error: unknown): Diagnostic {
  return {
    code: 'REPLY_UNUSABLE',
    severity: 'error',
    message: `the reply could not be processed, so nothing of it was applied: ${describeError(error)}`,
    fix: 'write a smaller, simpler plan in the @EP@ block (fewer nested subgraphs, shorter values)',
  };
}

/** dotplan's own errors by their message; anything else with its kind (`RangeError: Maximum call stack size exceeded`). */
function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error instanceof DotplanError || error.name === 'Error' || error.message.startsWith(error.name)) return error.message;
  return `${error.name}: ${error.message}`;
}

function conflictDiagnostic(p: ApplyReport['conflicts'][number]): Diagnostic {
  return {
    code: p.code,
    severity: 'error',
    message: p.message,
    ...(p.node !== undefined ? { node: p.node } : {}),
    ...(p.attribute !== undefined ? { attribute: p.attribute } : {}),
    fix: p.fix,
  };
}

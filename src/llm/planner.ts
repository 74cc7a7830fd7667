import * as engine from '../engine/index.js';
import type { Config } from '../config/defaults.js';
import { revisionGraph } from '../revisions/revision-graphs.js';
import { ValidationError, formatDiagnostic, type Diagnostic } from '../model/diagnostics.js';
import type { PlanGraph } from '../model/types.js';
import { applyRevision } from '../operations/apply-revision.js';
import type { ApplyReport } from '../operations/decide-revision.js';
import { VERIFICATION_FAILED } from '../execute/verify.js';
import { mergeLiveState } from '../plans/plan-view.js';
import type { LlmPurpose, LlmWork, Store } from '../store/index.js';
import type { ToolCatalogue } from '../tools/types.js';
import type { LlmClient, LlmResult } from './client.js';
import { answeredCall, failedCall } from './call-record.js';
import { answerMessages, planMessages, refusalMessages, type ChatMessage } from './prompt.js';
import { parseReply, placeInReply } from './reply.js';
import { nothingToRun, reusedIds } from './reply-rules.js';

/** Limits of a reflection plan's LLM work (config `reflection.*`); a plan's graph attributes of the same names override them. */
export type ReflectionLimits = Config['reflection'];

/**
 * Serves one plan's LLM work (SPEC §6): asks for the first plan or a refreshed one and applies the
 * reply through the revision path as the `llm` driver, merged against the state the prompt showed
 * (finishes during the call are kept). A refused or invalid reply is answered with its exact
 * diagnostics, up to `maxRewriteAttempts`; then the plan fails with them, its last good revision
 * intact. When nothing is left to run, asks for the final answer, stores it and completes the plan.
 * Every call is recorded against the plan.
 */
export class Planner {
  constructor(private readonly deps: { store: Store; tools: ToolCatalogue; config: Config; client: LlmClient; limits: ReflectionLimits }) {}

  async serve(work: LlmWork, signal?: AbortSignal): Promise<void> {
    const { store } = this.deps;
    const plan = await store.plans.get(work.planId);
    const limits = this.#limits(plan.attributes);
    const state = await store.plans.editable(work.planId);
    const graph = this.#graph(work.planId, state.revision.number, state.revision.dot, state.nodes);
    const goal = plan.attributes.goal ?? plan.title;

    if (limits.maxTokens > 0 && work.tokensUsed >= limits.maxTokens) {
      return this.#end(work, 'failed', `the plan's token budget is spent (${work.tokensUsed} of maxTokens=${limits.maxTokens})`);
    }
    const replans = countReplans(graph);
    if (replans > limits.maxReplans) {
      return this.#answer(work, goal, graph, limits, signal, `${VERIFICATION_FAILED} ${replans} times (maxReplans=${limits.maxReplans})`);
    }

    const purpose: LlmPurpose = graph.nodes.length === 0 ? 'plan' : 'rewrite';
    const suggestion = plan.status === 'awaiting_review' ? await this.#suggestion(work.planId) : undefined;
    let messages = planMessages({
      planId: work.planId,
      goal,
      tools: this.deps.tools.list(),
      graph,
      resultChars: limits.resultChars,
      ...(suggestion ? { suggestion } : {}),
    });
    for (let attempt = work.attempts; ; attempt++) {
      const call = await this.#call(work, purpose, messages, signal);
      if (!call) return; // the endpoint failed after its retries: counted as a refusal, the work stays due
      const report = await this.#apply(work, call.value, state.revision.number, state.asOfEvent);
      const problems = [...report.diagnostics, ...report.conflicts.map(conflictDiagnostic)];
      await this.#record(work, purpose, messages, call, problems.length === 0 ? (report.applied ? 'applied' : 'ok') : 'refused', problems);
      if (problems.length === 0) {
        const after = await store.plans.editable(work.planId);
        const now = this.#graph(work.planId, after.revision.number, after.revision.dot, after.nodes);
        // Nothing left to run and no node finished meanwhile (else a rewrite sees it first): the answer ends the work.
        if (!active(now) && (await store.llm.due(work.planId)) <= work.due) return this.#answer(work, goal, now, limits, signal);
        return store.llm.done(work);
      }
      await store.llm.refused(work);
      if (attempt + 1 >= limits.maxRewriteAttempts) {
        const list = problems.map((d) => formatDiagnostic(d, 'reply')).join('; ');
        return this.#end(work, 'failed', `the LLM's plan was refused ${attempt + 1} times in a row (maxRewriteAttempts=${limits.maxRewriteAttempts}): ${list}`);
      }
      messages = [...messages, ...refusalMessages(call.text, problems)];
    }
  }

  /** A reply's plan as a revision by the LLM; a reply that does not parse is refused with the codec's diagnostics. */
  async #apply(work: LlmWork, reply: string, revision: number, asOfEvent: number): Promise<ApplyReport> {
    let parsed;
    try {
      parsed = parseReply(reply);
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
  async #answer(work: LlmWork, goal: string, graph: PlanGraph, limits: ReflectionLimits, signal?: AbortSignal, why?: string): Promise<void> {
    const messages = answerMessages(
      why ? `${goal}\n\n(The plan stops here: ${why}. Explain what was found and what could not be done.)` : goal,
      graph,
      limits.resultChars,
    );
    const call = await this.#call(work, 'answer', messages, signal);
    if (!call) return;
    await this.#record(work, 'answer', messages, call, 'ok');
    await this.deps.store.llm.setResult(work.planId, call.value);
    await this.#end(work, why ? 'failed' : 'completed', why ?? 'the LLM wrote the final answer');
  }

  /**
   * Ends the work: a running plan completes or fails; a plan under review fails too when its LLM could
   * not write the plan to review (its reviewer's suggestion, if any, named), else stays there, the requests served.
   */
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

  /** One call; an endpoint that still fails after the client's retries is recorded, counted as a refusal and the work given back. */
  async #call(work: LlmWork, purpose: LlmPurpose, messages: ChatMessage[], signal?: AbortSignal): Promise<LlmResult<string> | undefined> {
    const started = Date.now();
    try {
      return await this.deps.client.chat(messages, signal ? { signal } : {});
    } catch (error) {
      // Stopped (shutdown, or a lost lease: another worker has it): not the endpoint's failure; the work stays due.
      if (signal?.aborted) return undefined;
      const message = error instanceof Error ? error.message : String(error);
      await this.deps.store.llm.record(failedCall({ planId: work.planId, purpose, messages }, this.deps.client.model, started, error));
      await this.deps.store.llm.refused(work);
      // The last attempt ends the work while this worker still holds it: the plan fails, under review too (#end).
      const limits = this.#limits((await this.deps.store.plans.get(work.planId)).attributes);
      if (work.attempts + 1 >= limits.maxRewriteAttempts) {
        await this.#end(work, 'failed', `the LLM endpoint kept failing (maxRewriteAttempts=${limits.maxRewriteAttempts}): ${message}`);
      } else {
        await this.deps.store.llm.release(work);
      }
      return undefined;
    }
  }

  async #record(
    work: LlmWork,
    purpose: LlmPurpose,
    messages: ChatMessage[],
    call: LlmResult<string>,
    outcome: 'applied' | 'refused' | 'ok',
    problems: Diagnostic[] = [],
  ) {
    await this.deps.store.llm.record(answeredCall({ planId: work.planId, purpose, messages }, call, outcome, problems));
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
function countReplans(graph: PlanGraph): number {
  return graph.nodes.filter((n) => n.attributes.status === 'failed' && (n.attributes.error ?? '').startsWith(VERIFICATION_FAILED)).length;
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

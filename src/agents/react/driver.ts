import type { Config } from '../../config/defaults.js';
import * as engine from '../../engine/index.js';
import { LIVE_ATTRIBUTES } from '../../engine/initial-state.js';
import { readDot, writeDot } from '../../dot/index.js';
import { replanRequest } from '../../model/replan.js';
import { applyRevision } from '../../operations/apply-revision.js';
import { TERMINAL_NODE_STATUSES } from '../../model/status.js';
import type { LlmWork, Store } from '../../store/index.js';
import type { ToolCatalogue } from '../../tools/types.js';
import type { LlmDriver } from '../../worker/llm-slot.js';
import { agentMessages } from './prompt.js';
import { interruptedResults, modelTurns, openCalls, toolResults, turnNodeId, type AgentMessage, type ToolCallAsked } from './turns.js';

/** The ReAct agent a child plan runs as (its registry entry). */
export interface ReactAgent {
  code: string;
  description?: string;
  tools?: readonly string[];
  systemPrompt?: string;
  model?: string;
  limits?: { maxTurns?: number };
}

/** One turn of the model with native tool calling (src/llm/): the tools it asked for, or its answer. */
export type ReactReply = ({ kind: 'tools'; calls: ToolCallAsked[] } | { kind: 'answer'; text: string }) & {
  /** The assistant message as the API returned it, to store. */
  assistant: AgentMessage;
  model: string;
  promptTokens: number;
  completionTokens: number;
  ms: number;
};

export interface ReactModel {
  turn(input: {
    messages: readonly AgentMessage[];
    tools: readonly { code: string; description?: string; inputSchema?: unknown }[];
    model?: string;
    signal: AbortSignal;
  }): Promise<ReactReply>;
}

/** The built-in tool in every LLM agent's tool set: end the work and ask the leader to re-plan (seed 002 §3.2). */
export const REQUEST_REPLAN = 'request_replan';

export const DEFAULT_MAX_TURNS = 20;

/**
 * Serves a ReAct agent's child plan (`mode=react`), one model turn per claim: the instance's own
 * history (and nothing else) is sent with the agent's tools; a turn that asks for tools becomes one
 * multiFunction node appended through the revision path (driver `llm`) with the assistant message in
 * the same transaction; when that node ends, its results go back as `tool` messages, one per call id,
 * and the model is asked again; a turn that answers without tools completes the child with the answer.
 * `maxTurns` (default 20) ends a runaway loop; `request_replan` ends it asking the leader to re-plan.
 */
export class ReactDriver implements LlmDriver {
  constructor(
    private readonly deps: {
      store: Store;
      tools: ToolCatalogue;
      config: Config;
      model: ReactModel;
      agents: { get(code: string): ReactAgent | undefined };
    },
  ) {}

  async serve(work: LlmWork, signal: AbortSignal): Promise<void> {
    const { store } = this.deps;
    const plan = await store.plans.get(work.planId);
    if (plan.status !== 'running') return; // cancelled or paused since the claim: the work is given back
    const agent = plan.agentCode === undefined ? undefined : this.deps.agents.get(plan.agentCode);
    if (!agent) return this.#end(work, 'failed', `agent ${plan.agentCode ?? '(none)'} of this ReAct plan is not registered on this worker`);
    let history = (await store.tree.messages(work.planId)) as AgentMessage[];
    const seed: AgentMessage[] = history.length === 0 ? agentMessages(agent, plan.attributes.goal ?? plan.title, plan.params) : [];
    const waiting = openCalls(history) ?? [];
    const nodes = await store.plans.nodes(work.planId);
    if (waiting.length > 0) {
      const node = nodes.find((n) => (n.attributes.callIds ?? '').split(',').includes(waiting[0]!.id));
      if (!node) {
        // The calls were stored but their node was not (it is written in the same transaction, so only a
        // reply from an older version can leave this): they are answered as interrupted.
        const results = interruptedResults(history);
        await store.tree.appendMessages(work.planId, results);
        history = [...history, ...results];
      } else if (!TERMINAL_NODE_STATUSES.has(node.status)) {
        return store.llm.done(work); // the turn's node still runs: its end asks again
      } else {
        const results = toolResults(node, waiting);
        await store.tree.appendMessages(work.planId, results);
        history = [...history, ...results];
      }
    }
    const maxTurns = agent.limits?.maxTurns ?? DEFAULT_MAX_TURNS;
    if (modelTurns(history) >= maxTurns) {
      return this.#end(
        work,
        'failed',
        `REACT_MAX_TURNS: agent ${agent.code} took ${maxTurns} turns without answering (limits.maxTurns=${maxTurns}); raise it or narrow the task`,
      );
    }
    const budget = this.deps.config.reflection.maxTokens;
    if (budget > 0 && work.tokensUsed >= budget) {
      return this.#end(work, 'failed', `the token budget of its tree is spent (${work.tokensUsed} of maxTokens=${budget})`);
    }
    const messages = [...seed, ...history];
    const offered = [...(agent.tools ?? []).map((code) => this.deps.tools.get(code)).filter((t) => t !== undefined), REPLAN_TOOL];
    const started = Date.now();
    let reply: ReactReply;
    try {
      reply = await this.deps.model.turn({ messages, tools: offered, ...(agent.model ? { model: agent.model } : {}), signal });
    } catch (error) {
      if (signal.aborted) throw error;
      await store.llm.record({
        planId: work.planId,
        purpose: 'turn',
        model: agent.model ?? this.deps.config.openai.model,
        prompt: JSON.stringify(messages),
        promptTokens: 0,
        completionTokens: 0,
        ms: Date.now() - started,
        outcome: 'error',
        diagnostics: [{ code: 'LLM_FAILED', severity: 'error', message: error instanceof Error ? error.message : String(error) }],
      });
      throw error;
    }
    await store.llm.record({
      planId: work.planId,
      purpose: 'turn',
      model: reply.model,
      prompt: JSON.stringify(messages),
      reply: JSON.stringify(reply.assistant),
      promptTokens: reply.promptTokens,
      completionTokens: reply.completionTokens,
      ms: reply.ms,
      outcome: 'ok',
    });
    if (reply.kind === 'answer') {
      await store.tree.appendMessages(work.planId, [...seed, reply.assistant]);
      await store.llm.setResult(work.planId, reply.text);
      return this.#end(work, 'completed', `agent ${agent.code} answered`);
    }
    const replan = reply.calls.find((c) => c.toolCode === REQUEST_REPLAN);
    if (replan) {
      const reason = reasonOf(replan.input);
      const answered = reply.calls.map((c): AgentMessage => ({
        role: 'tool',
        tool_call_id: c.id,
        content: c === replan ? 're-plan requested from the leader' : 'not run: a re-plan was requested',
      }));
      await store.tree.appendMessages(work.planId, [...seed, reply.assistant, ...answered]);
      return this.#end(work, 'failed', replanRequest(reason));
    }
    // A call of a tool the agent does not have is answered at once with the mistake; the others run.
    const known = new Set(offered.map((t) => t.code));
    const refused = reply.calls
      .filter((c) => !known.has(c.toolCode))
      .map((c): AgentMessage => ({
        role: 'tool',
        tool_call_id: c.id,
        content: `error: there is no tool "${c.toolCode}"; your tools: ${[...known].join(', ')}`,
      }));
    const calls = reply.calls.filter((c) => known.has(c.toolCode));
    if (calls.length === 0) {
      await store.tree.appendMessages(work.planId, [...seed, reply.assistant, ...refused]);
      return this.serve(work, signal); // nothing to run: the model is asked again at once (maxTurns still counts)
    }
    await this.#appendTurn(work, nodes.length + 1, { ...reply, calls }, [...seed], refused);
  }

  /** The turn's calls as one multiFunction node (after the previous turn's), written with the assistant message. */
  async #appendTurn(work: LlmWork, turn: number, reply: Extract<ReactReply, { kind: 'tools' }>, seed: AgentMessage[], refused: AgentMessage[]): Promise<void> {
    const { store } = this.deps;
    const latest = await store.plans.revision(work.planId);
    const graph = readDot(latest.dot, { source: `${work.planId} revision ${latest.number}` });
    const id = turnNodeId(turn);
    // Live fields left out are kept (SPEC §9): the text of an earlier revision may hold statuses since moved on.
    for (const node of graph.nodes) for (const key of LIVE_ATTRIBUTES) delete node.attributes[key];
    graph.nodes.push({
      id,
      attributes: {
        type: 'multiFunction',
        label: `turn ${turn}: ${reply.calls.map((c) => c.toolCode).join(', ')}`,
        toolCalls: JSON.stringify(reply.calls.map((c) => ({ toolCode: c.toolCode, toolInput: c.input }))),
        callIds: reply.calls.map((c) => c.id).join(','),
      },
    });
    if (turn > 1) graph.edges.push({ from: turnNodeId(turn - 1), to: id, attributes: {} });
    const report = await applyRevision({ store, tools: this.deps.tools, config: this.deps.config }, work.planId, writeDot(graph), {
      by: { driver: 'llm', name: 'react' },
      source: `ReAct turn ${turn}`,
      base: { revision: latest.number },
      reason: `turn ${turn}: ${reply.calls.map((c) => c.toolCode).join(', ')}`,
      messages: [...seed, reply.assistant, ...refused],
    });
    if (!report.applied) {
      const problems = [...report.diagnostics.map((d) => d.message), ...report.conflicts.map((c) => JSON.stringify(c))].join('; ');
      return this.#end(work, 'failed', `turn ${turn} could not be added to the plan: ${problems || 'refused'}`);
    }
    await store.llm.done(work);
  }

  async #end(work: LlmWork, to: 'completed' | 'failed', reason: string): Promise<void> {
    await this.deps.store.plans.change(work.planId, {}, (snapshot) => (snapshot.plan.status === 'running' ? engine.conclude(snapshot, to, reason) : undefined));
    await this.deps.store.llm.done(work);
  }
}

const REPLAN_TOOL = {
  code: REQUEST_REPLAN,
  description: 'Stop working on this task and ask the leader to re-plan, saying why (the task cannot be done as planned). Input: {"reason": "..."}',
};

function reasonOf(input: unknown): string {
  const reason = (input as { reason?: unknown } | null)?.reason;
  return typeof reason === 'string' && reason.trim() !== '' ? reason : JSON.stringify(input);
}

import { agentValidation } from '../agents/registry.js';
import { agentWorkers } from './agents.js';
import { llmSide, type LlmSide } from './llm-side.js';
import { cancelTree, pauseTree, resumeTree } from './cascade.js';
import * as engine from '../engine/index.js';
import { dotLimits } from '../config/dot-limits.js';
import { mergeLiveState } from '../plans/plan-view.js';
import { revisionGraph } from '../revisions/revision-graphs.js';
import { authoredComments, withComments } from '../revisions/edit-file.js';
import type { ApplyReport } from './decide-revision.js';
import { applyRevision } from './apply-revision.js';
import { preparePlan, requireReview, type FromDot, type FromGoal, type FromTemplate } from '../plans/prepare-plan.js';
import type { NodeRecord, PlanRecord } from '../store/types.js';
import { theNode } from '../store/read-back.js';
import { Worker } from '../worker/worker.js';
import { ToolRegistry } from '../tools/registry.js';
import type { ToolCatalogue } from '../tools/types.js';
import { unlistedServerFix } from '../mcp/tool-codes.js';
import { DotplanError } from '../errors/errors.js';
import * as review from './review.js';
import { parseDuration } from '../model/duration.js';
import { defaultActor } from './actor.js';
import { rerunPlan } from './rerun.js';
import type { Diagnostic } from '../model/diagnostics.js';
import { checked } from './arguments.js';
import type { ApplyOptions, CommandOptions, CreateOptions, RerunOptions, RevertOptions, WorkerStartOptions } from './options.js';
import { DotplanReads } from './dotplan-reads.js';
import type { HttpApi, HttpOptions } from '../http/app.js';

export type { Modification } from './review.js';
export type { InboxEntry } from './inbox.js';

/** A plan as stored by `create` or `rerun`, with the warnings about it. */
export type CreatedPlan = PlanRecord & { warnings: Diagnostic[] };

/**
 * dotplan's use cases, one method each, each command one transaction: what the CLI calls, what the
 * HTTP API will call, and what a service embedding the engine calls (from {@link openDotplan}); the
 * reads are {@link DotplanReads}'s.
 * Every method checks its arguments first: a wrong one is an `InvalidArgumentError`
 * (`INVALID_INPUT`) naming the method and the argument, and nothing is read or written. Commands
 * name who made them; refused ones change nothing and throw a `DotplanError` saying why. A command
 * returns the plan or node as it left it, read in its own transaction: a worker its commit wakes may
 * have moved it on by the time the caller looks (read it again for now), except that a plan it left
 * with nothing to run is returned ended.
 */
export class Dotplan extends DotplanReads {
  // --- commands -------------------------------------------------------------------------------

  /**
   * Validates and stores a plan from a template, a DOT text or a goal, and starts it (or leaves it for
   * review); `warnings` are the validator's, and each status or recorded value a new plan does not
   * start with (HISTORY_RESET).
   */
  async create(input: FromTemplate | FromDot | FromGoal, options: CreateOptions = {}): Promise<CreatedPlan> {
    checked('create', { input, options });
    const { warnings, ...prepared } = await preparePlan(
      this.tools,
      input,
      options.by ?? defaultActor(),
      dotLimits(this.config),
      this.cwd,
      agentValidation(this.agents),
    );
    // review: as review="required" in the plan (a reflection plan's LLM still writes it first).
    return { ...(await this.store.plans.create(options.review ? requireReview(prepared) : prepared)), warnings };
  }

  /** A new plan from a stored one's latest revision, every node pending or only from a node on, linked to it (`rerunOf`); started. */
  async rerun(planId: string, options: RerunOptions = {}): Promise<CreatedPlan> {
    checked('rerun', { planId, options });
    return rerunPlan(this, planId, { ...options, by: options.by ?? defaultActor() });
  }

  /** Answers a node waiting for a person; the same answer again is accepted, a different one refused. */
  async answer(planId: string, nodeId: string, text: string, options: Pick<CommandOptions, 'by'> = {}): Promise<NodeRecord> {
    checked('answer', { planId, nodeId, text, options });
    const by = { driver: 'person' as const, name: options.by ?? defaultActor() };
    return this.store.plans.change(planId, { nodes: [nodeId] }, (snapshot) => engine.answer(snapshot, nodeId, text, by), theNode(planId, nodeId));
  }

  /** Runs a failed node again, its attempts afresh; a failed plan resumes. */
  async retry(planId: string, nodeId: string, options: CommandOptions = {}): Promise<NodeRecord> {
    checked('retry', { planId, nodeId, options });
    const by = this.#operator(options);
    const reason = options.reason ?? `retried by ${by.name}`;
    return this.store.plans.change(
      planId,
      { nodes: [nodeId], candidates: true },
      (snapshot, candidates) => engine.retry(snapshot, nodeId, by, reason, candidates),
      theNode(planId, nodeId),
    );
  }

  /** Skips a node that has not run; the plan goes on past it as if it had finished with no output. */
  async skip(planId: string, nodeId: string, options: CommandOptions = {}): Promise<NodeRecord> {
    checked('skip', { planId, nodeId, options });
    const by = this.#operator(options);
    const reason = options.reason ?? `skipped by ${by.name}`;
    return this.store.plans.change(
      planId,
      { nodes: [nodeId], candidates: true },
      (snapshot, candidates) => engine.skip(snapshot, nodeId, by, reason, candidates),
      theNode(planId, nodeId),
    );
  }

  /** Cancels the plan and every node that has not finished, and every plan below it (agent nodes' children). */
  async cancel(planId: string, options: CommandOptions = {}): Promise<PlanRecord> {
    checked('cancel', { planId, options });
    const by = this.#operator(options);
    return cancelTree(this.store, planId, by, options.reason ?? `cancelled by ${by.name}`);
  }

  /** Stops new claims of the plan's nodes; running ones finish and their results are kept. */
  async pause(planId: string, options: CommandOptions = {}): Promise<PlanRecord> {
    checked('pause', { planId, options });
    const by = this.#operator(options);
    return pauseTree(this.store, planId, by, options.reason ?? `paused by ${by.name}`);
  }

  /** Goes on where the plan stopped. */
  async resume(planId: string, options: CommandOptions = {}): Promise<PlanRecord> {
    checked('resume', { planId, options });
    const by = this.#operator(options);
    return resumeTree(this.store, planId, by, options.reason ?? `resumed by ${by.name}`);
  }

  /** A reviewer approves a plan waiting for review: it starts running. */
  async approve(planId: string, options: CommandOptions = {}): Promise<PlanRecord> {
    checked('approve', { planId, options });
    return review.approve(this.store, planId, this.#person(options), options.reason);
  }

  /** A reviewer rejects a plan waiting for review, saying why: it ends `rejected`; nothing of it ever runs. */
  async reject(planId: string, options: CommandOptions & { reason: string }): Promise<PlanRecord> {
    checked('reject', { planId, options });
    return review.reject(this.store, planId, this.#person(options), options.reason);
  }

  /**
   * A reviewer changes a plan waiting for review; it waits for review again. A DOT text becomes a new
   * revision by the person (what `apply` reports); a suggestion goes to the LLM as a rewrite request
   * (reflection plans only; the plan as it stands is returned).
   */
  modify(planId: string, change: { dot: string; source?: string }, options?: CommandOptions): Promise<ApplyReport>;
  modify(planId: string, change: { suggestion: string }, options?: CommandOptions): Promise<PlanRecord>;
  modify(planId: string, change: review.Modification, options?: CommandOptions): Promise<ApplyReport | PlanRecord>;
  async modify(planId: string, change: review.Modification, options: CommandOptions = {}): Promise<ApplyReport | PlanRecord> {
    checked('modify', { planId, change, options });
    return review.modify(this, planId, change, this.#person(options), options.reason);
  }

  /**
   * A hand edit: the plan's DOT as edited (from `show`) becomes a new revision by the operator, in one
   * transaction — or nothing, with every problem (a text that does not read or validate, changes the
   * operator may not make, conflicts with what changed since the text was written). Live fields left
   * out are kept; a changed `status` is a move asked of the state machine (`ready` on a failed node
   * retries it, `skipped` on a pending one skips it). A text that names its `revision` (and
   * `asOfEvent`) is merged three-way against it; one that does not is taken against the latest revision.
   */
  async apply(planId: string, dot: string, options: ApplyOptions = {}): Promise<ApplyReport> {
    checked('apply', { planId, dot, options });
    return applyRevision(this, planId, dot, {
      by: this.#operator(options),
      source: options.source ?? '<edit>',
      ...(options.dryRun ? { dryRun: true } : {}),
      ...(options.reason ? { reason: options.reason } : {}),
    });
  }

  /**
   * Revision `revision`'s structure as a new revision, under the same rights as a hand edit: the live
   * state of the nodes that exist now is kept (a revert never un-runs a node; removing one that has
   * run is refused).
   */
  async revert(planId: string, revision: number, options: RevertOptions = {}): Promise<ApplyReport> {
    checked('revert', { planId, revision, options });
    const [old, nodes] = await Promise.all([this.store.plans.revision(planId, revision), this.store.plans.nodes(planId)]);
    const graph = mergeLiveState(revisionGraph(planId, old.number, old.dot), nodes);
    return this.apply(planId, withComments(authoredComments(old.dot), graph), {
      ...options,
      source: `revision ${revision}`,
      reason: options.reason ?? `revert to revision ${revision}`,
    });
  }

  // --- running ----------------------------------------------------------------------------------

  /** A worker in this process, with the configured concurrency, lease and poll; call `start()` on it. */
  worker(options: WorkerStartOptions = {}): Worker {
    checked('worker', { options });
    refuseUnlistedServers(this.tools);
    const { worker, retry } = this.config;
    const { llm: endpoint, ...rest } = options;
    const llm = this.llm(endpoint);
    return new Worker({
      store: this.store,
      tools: this.tools,
      poll: worker.poll,
      concurrency: worker.concurrency,
      leaseMs: worker.leaseMs,
      llmSlots: worker.llmSlots,
      retryDefaults: retry,
      remindEveryMs: parseDuration(this.config.notify.reminderInterval) ?? 3_600_000,
      ...(llm ? { planner: llm.planner, judge: llm.judge } : {}),
      ...agentWorkers(this, llm?.client),
      ...rest,
    });
  }

  /** @internal The LLM's side (src/operations/llm-side.ts): undefined when no endpoint is configured. */
  llm(endpoint?: { baseURL: string; model?: string }): LlmSide | undefined {
    return llmSide(this, endpoint);
  }

  /**
   * The HTTP API over this Dotplan (`dotplan serve` listens with it): `app` is a Hono app, so a
   * service mounts it (`app.fetch`) or calls it in-process (`app.request`); `close()` ends its open
   * event streams. Its routes, scopes and errors: the README's "Serving the API", `/openapi.json`.
   */
  async http(options: HttpOptions = {}): Promise<HttpApi> {
    checked('http', { options });
    const { createHttpApi } = await import('../http/app.js');
    return createHttpApi(this, options);
  }

  /** Ends the MCP servers' connections and closes the database connection; workers of this Dotplan must be stopped first. */
  async close(): Promise<void> {
    await this.tools.close?.();
    await this.store.close();
  }

  #person(options: CommandOptions) {
    return { driver: 'person' as const, name: options.by ?? defaultActor() };
  }

  #operator(options: CommandOptions) {
    return { driver: 'operator' as const, name: options.by ?? defaultActor() };
  }
}

/**
 * A worker runs the plans' tools: it does not start while a configured MCP server's tools are unknown
 * (the server could not be listed and none are cached), naming the server and why. Other commands go on.
 */
function refuseUnlistedServers(tools: ToolCatalogue): void {
  if (!(tools instanceof ToolRegistry)) return;
  const [first] = tools.unlistedServers;
  if (!first) return;
  const [server, why] = first;
  throw new DotplanError(
    'CONFIG',
    `a worker needs the tools of MCP server "${server}", which could not be listed: ${why}; ${unlistedServerFix(server, 'start the worker again')}`,
  );
}

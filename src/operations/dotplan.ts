import { AgentRegistry, agentValidation } from '../agents/registry.js';
import { agentWorkers } from './agents.js';
import { llmSide, type LlmSide } from './llm-side.js';
import { agentHistory, childMarks, planTree, type AgentHistory, type TreeView } from './tree-views.js';
import { cancelTree, pauseTree, resumeTree } from './cascade.js';
import * as engine from '../engine/index.js';
import { authoredAttributes } from '../engine/initial-state.js';
import type { Config } from '../config/defaults.js';
import { dotLimits } from '../config/dot-limits.js';
import { livePlanGraph, mergeLiveState } from '../plans/plan-view.js';
import { revisionGraph } from '../revisions/revision-graphs.js';
import { authoredComments, editableDot, withComments } from '../revisions/edit-file.js';
import { diffPlans } from '../revisions/diff.js';
import type { ApplyReport } from './decide-revision.js';
import { applyRevision } from './apply-revision.js';
import { preparePlan, requireReview, type FromDot, type FromGoal, type FromTemplate } from '../plans/prepare-plan.js';
import type { LlmCallRecord } from '../store/index.js';
import type { Backend, EdgeRecord, EventRecord, NodeRecord, PlanRecord, RevisionRecord, Store } from '../store/types.js';
import type { PlanGraph, PlanStatus } from '../model/types.js';
import type { ToolCatalogue } from '../tools/types.js';
import { Worker } from '../worker/worker.js';
import * as review from './review.js';
import { waitingFor } from './waiting-for.js';
import type { Wait } from '../plans/waits-for.js';
import { parseDuration } from '../model/duration.js';
import { defaultActor } from './actor.js';
import { rerunPlan } from './rerun.js';
import type { Diagnostic } from '../model/diagnostics.js';
import { checked } from './arguments.js';
import { DotplanEvents } from './events.js';
import type {
  ApplyOptions,
  CommandOptions,
  CreateOptions,
  RenderInput,
  RerunOptions,
  RevertOptions,
  RevisionDiff,
  RevisionEntry,
  WorkerStartOptions,
} from './options.js';
import type { ValidationResult } from '../validate/index.js';
import { renderGraph, renderText, reportPlan, validatePlan, type RenderFormat, type ReportFormat } from './views.js';

export type { InboxEntry, Modification } from './review.js';

/** A plan as stored by `create` or `rerun`, with the warnings about it. */
export type CreatedPlan = PlanRecord & { warnings: Diagnostic[] };

/**
 * dotplan's use cases, one method each, each command one transaction: what the CLI calls, what the
 * HTTP API will call, and what a service embedding the engine calls (from {@link openDotplan}).
 * Every method checks its arguments first: a wrong one is an `InvalidArgumentError`
 * (`INVALID_INPUT`) naming the method and the argument, and nothing is read or written. Commands
 * name who made them; refused ones change nothing and throw a `DotplanError` saying why.
 */
export class Dotplan {
  readonly #events: DotplanEvents;

  /** @internal The CLI and {@link openDotplan} make one; a service calls `openDotplan`. */
  constructor(
    /** @internal */
    readonly store: Store,
    /** @internal */
    readonly tools: ToolCatalogue,
    /** @internal */
    readonly config: Config,
    /** @internal Where relative paths (a template's path, `./templates`) are taken from. */
    readonly cwd: string = process.cwd(),
    /** @internal The registered agents (the config's `agents`, `openDotplan({ agents })`). */
    readonly agents: AgentRegistry = new AgentRegistry(),
  ) {
    this.#events = new DotplanEvents(store);
  }

  /** The database the plans are in. */
  get backend(): Backend {
    return this.store.backend;
  }

  /** The audit log: `list` and `follow` (the same query for both), `lastId`, `append`. */
  get events(): DotplanEvents {
    return this.#events;
  }

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
    await this.store.plans.change(planId, { nodes: [nodeId] }, (snapshot) => engine.answer(snapshot, nodeId, text, by));
    return this.store.plans.node(planId, nodeId);
  }

  /** Runs a failed node again, its attempts afresh; a failed plan resumes. */
  async retry(planId: string, nodeId: string, options: CommandOptions = {}): Promise<NodeRecord> {
    checked('retry', { planId, nodeId, options });
    const by = this.#operator(options);
    const reason = options.reason ?? `retried by ${by.name}`;
    await this.store.plans.change(planId, { nodes: [nodeId], candidates: true }, (snapshot, candidates) =>
      engine.retry(snapshot, nodeId, by, reason, candidates),
    );
    return this.store.plans.node(planId, nodeId);
  }

  /** Skips a node that has not run; the plan goes on past it as if it had finished with no output. */
  async skip(planId: string, nodeId: string, options: CommandOptions = {}): Promise<NodeRecord> {
    checked('skip', { planId, nodeId, options });
    const by = this.#operator(options);
    const reason = options.reason ?? `skipped by ${by.name}`;
    await this.store.plans.change(planId, { nodes: [nodeId], candidates: true }, (snapshot, candidates) =>
      engine.skip(snapshot, nodeId, by, reason, candidates),
    );
    return this.store.plans.node(planId, nodeId);
  }

  /** Cancels the plan and every node that has not finished, and every plan below it (agent nodes' children). */
  async cancel(planId: string, options: CommandOptions = {}): Promise<PlanRecord> {
    checked('cancel', { planId, options });
    const by = this.#operator(options);
    await cancelTree(this.store, planId, by, options.reason ?? `cancelled by ${by.name}`);
    return this.store.plans.get(planId);
  }

  /** Stops new claims of the plan's nodes; running ones finish and their results are kept. */
  async pause(planId: string, options: CommandOptions = {}): Promise<PlanRecord> {
    checked('pause', { planId, options });
    const by = this.#operator(options);
    await pauseTree(this.store, planId, by, options.reason ?? `paused by ${by.name}`);
    return this.store.plans.get(planId);
  }

  /** Goes on where the plan stopped. */
  async resume(planId: string, options: CommandOptions = {}): Promise<PlanRecord> {
    checked('resume', { planId, options });
    const by = this.#operator(options);
    await resumeTree(this.store, planId, by, options.reason ?? `resumed by ${by.name}`);
    return this.store.plans.get(planId);
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

  // --- reads ----------------------------------------------------------------------------------

  /** One plan. */
  async plan(planId: string): Promise<PlanRecord> {
    checked('plan', { planId });
    return this.store.plans.get(planId);
  }
  /** The plans, oldest first; only those in `status` if given. */
  async plans(filter: { status?: PlanStatus } = {}): Promise<PlanRecord[]> {
    checked('plans', { filter });
    return this.store.plans.list(filter);
  }
  /** The plan's nodes with their live state. */
  async nodes(planId: string): Promise<NodeRecord[]> {
    checked('nodes', { planId });
    return this.store.plans.nodes(planId);
  }
  /** One node with its live state. */
  async node(planId: string, nodeId: string): Promise<NodeRecord> {
    checked('node', { planId, nodeId });
    return this.store.plans.node(planId, nodeId);
  }
  /** The plan's edges (of its latest revision). */
  async edges(planId: string): Promise<EdgeRecord[]> {
    checked('edges', { planId });
    return this.store.plans.edges(planId);
  }
  /** The plan's revisions, oldest first, each with who made it and how many changes it made (from its `revision` event). */
  async revisions(planId: string): Promise<RevisionEntry[]> {
    checked('revisions', { planId });
    const [revisions, events] = await Promise.all([this.store.plans.revisions(planId), this.store.events.list(planId, { kind: 'revision' })]);
    const made = new Map<number, EventRecord>();
    for (const e of events) if (e.nodeId === undefined && typeof e.detail?.revision === 'number') made.set(e.detail.revision, e);
    return revisions.map((r) => {
      const event = made.get(r.number);
      const changes = event?.detail?.changes;
      return {
        ...r,
        ...(event ? { driver: event.driver } : {}),
        ...(event?.actor !== undefined ? { by: event.actor } : {}),
        ...(typeof changes === 'number' ? { changes } : {}),
      };
    });
  }
  /** One revision as it was written (the latest without a number). */
  async revision(planId: string, number?: number): Promise<RevisionRecord> {
    checked('revision', { planId, number });
    return this.store.plans.revision(planId, number);
  }
  /** What changed in the plan's structure (nodes, edges, attributes; not the live state) from revision `from` to `to` (default: the latest). */
  async diff(planId: string, from: number, to?: number): Promise<RevisionDiff> {
    checked('diff', { planId, from, to });
    const [a, b] = await Promise.all([this.store.plans.revision(planId, from), this.store.plans.revision(planId, to)]);
    // Structure only: the live fields a revision was written with are a snapshot of the run, whose moves the events list.
    const read = (r: RevisionRecord): PlanGraph => {
      const graph = revisionGraph(planId, r.number, r.dot);
      return { ...graph, nodes: graph.nodes.map((n) => ({ ...n, attributes: authoredAttributes(n.attributes) })) };
    };
    return { from: a.number, to: b.number, changes: diffPlans(read(a), read(b)) };
  }
  /** Everything waiting for a person — questions and reviews — across plans (or in one), oldest first, with the command that answers it. */
  async inbox(options: { planId?: string } = {}): Promise<review.InboxEntry[]> {
    checked('inbox', { options });
    return review.inbox(this.store, options.planId);
  }

  /** What the plan waits for now — the LLM, an answer, a review, a retry, a worker — and since when; empty once it is over. */
  async waitingFor(planId: string): Promise<Wait[]> {
    checked('waitingFor', { planId });
    return waitingFor(this.store, planId);
  }

  /** The calls the plan made to the model, oldest first. */
  async calls(planId: string): Promise<LlmCallRecord[]> {
    checked('calls', { planId });
    await this.store.plans.get(planId);
    return this.store.llm.calls(planId);
  }
  /** The plan's whole audit log (status moves, answers, revisions, notices, tool logs), oldest first: `events.list({ planId })`. */
  async history(planId: string): Promise<EventRecord[]> {
    checked('history', { planId });
    return this.events.list({ planId });
  }
  /**
   * The plan as an operator edits it: the latest revision with the live node state merged in, its
   * authored comment block, and `revision` / `asOfEvent` saying what an edit of it is made from.
   */
  async show(planId: string): Promise<string> {
    checked('show', { planId });
    const [{ revision, nodes, asOfEvent }, plan] = await Promise.all([this.store.plans.editable(planId), this.store.plans.get(planId)]);
    const graph = mergeLiveState(revisionGraph(planId, revision.number, revision.dot), nodes);
    return editableDot(graph, {
      planId,
      revision: revision.number,
      asOfEvent,
      comments: revision.dot,
      ...(plan.result !== undefined ? { result: plan.result } : {}),
      ...(plan.template !== undefined ? { template: plan.template } : {}),
      params: plan.params,
    });
  }
  /** The plan as a graph with its live state (what `render` draws). */
  async liveGraph(planId: string): Promise<PlanGraph> {
    checked('liveGraph', { planId });
    return livePlanGraph(this.store, planId);
  }

  // --- what a person reads ----------------------------------------------------------------------

  /** Reads and validates a DOT text as `create` would: `valid` (warnings allowed) and every diagnostic, naming `source`. Stores nothing. */
  async validate(dot: string, options: { source?: string } = {}): Promise<ValidationResult> {
    checked('validate', { dot, options });
    return validatePlan(this, dot, options.source);
  }

  /** A stored plan as it stands (live status, outputs, answers) or a DOT text, drawn as SVG (nodes coloured by status) or printed as normalised DOT. */
  async render(plan: RenderInput, options: { format?: RenderFormat } = {}): Promise<string> {
    checked('render', { plan, options });
    if ('planId' in plan) {
      const [graph, children] = await Promise.all([livePlanGraph(this.store, plan.planId), childMarks(this.store, plan.planId)]);
      return renderGraph(graph, options.format, { children });
    }
    return renderText(this, plan.dot, plan.source, options.format);
  }

  /** The run report for a person who was not there, as Markdown (default), one self-contained HTML page, or JSON text. */
  async report(planId: string, options: { format?: ReportFormat } = {}): Promise<string> {
    checked('report', { planId, options });
    return reportPlan(this, planId, options.format, (id) => childMarks(this.store, id));
  }

  // --- running ----------------------------------------------------------------------------------

  /** A worker in this process, with the configured concurrency, lease and poll; call `start()` on it. */
  worker(options: WorkerStartOptions = {}): Worker {
    checked('worker', { options });
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

  /** The plan stack of the plan's root: each plan with its status, agent instance, waiting questions and tokens. */
  async tree(planId: string): Promise<TreeView> {
    checked('tree', { planId });
    return planTree(this, planId);
  }

  /** An agent instance's conversation with the model: a child plan's id, or its instance id (`searcher_001`; `root` when several trees have one). */
  async agentHistory(instance: string, options: { root?: string } = {}): Promise<AgentHistory> {
    checked('agentHistory', { instance, options });
    return agentHistory(this, instance, options.root);
  }

  /** Closes the database connection; workers of this Dotplan must be stopped first. */
  close(): Promise<void> {
    return this.store.close();
  }

  #person(options: CommandOptions) {
    return { driver: 'person' as const, name: options.by ?? defaultActor() };
  }

  #operator(options: CommandOptions) {
    return { driver: 'operator' as const, name: options.by ?? defaultActor() };
  }
}

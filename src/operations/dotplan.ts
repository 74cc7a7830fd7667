import * as engine from '../engine/index.js';
import { authoredAttributes } from '../engine/initial-state.js';
import type { Config } from '../config/defaults.js';
import { dotLimits } from '../config/dot-limits.js';
import { livePlanGraph, mergeLiveState } from '../plans/plan-view.js';
import { revisionGraph } from '../revisions/revision-graphs.js';
import { authoredComments, editableDot, withComments } from '../revisions/edit-file.js';
import { diffPlans, type PlanChange } from '../revisions/diff.js';
import type { ApplyReport } from './decide-revision.js';
import { applyRevision } from './apply-revision.js';
import { preparePlan, requireReview, type FromDot, type FromGoal, type FromTemplate } from '../plans/prepare-plan.js';
import type { LlmCallRecord } from '../store/index.js';
import type { EdgeRecord, EventFeed, EventRecord, NodeRecord, PlanRecord, RevisionRecord, Store } from '../store/types.js';
import type { Driver, PlanGraph, PlanStatus } from '../model/types.js';
import type { ToolCatalogue } from '../tools/types.js';
import { Worker } from '../worker/worker.js';
import * as review from './review.js';
import { parseDuration } from '../model/duration.js';
import type { Judge } from '../execute/verify.js';
import { createLlmClient, llmSettings, type LlmClient } from '../llm/client.js';
import { llmJudge } from '../llm/judge.js';
import { Planner } from '../llm/planner.js';
import { defaultActor } from './actor.js';

/** A revision as `plan revisions` lists it. */
export type { InboxEntry, Modification } from './review.js';

export interface RevisionEntry extends RevisionRecord {
  /** Who made it: the driver and, where known, the name. */
  driver?: Driver;
  by?: string;
  /** How many changes it made (nodes, edges, attributes, moves); absent for the first revision. */
  changes?: number;
}

/** Who does a person's or operator's command, and why (recorded in the events). */
export interface CommandOptions {
  /** A name; default the OS user. */
  by?: string;
  reason?: string;
}

export interface WorkerStartOptions {
  /** Stop once nothing is ready, running or due for retry. */
  untilIdle?: boolean;
  /** Lease owner name; default host:pid:random. */
  owner?: string;
  /** An LLM endpoint for this worker instead of the configured one (the offline demo's scripted server). */
  llm?: { baseURL: string; model?: string };
}

/**
 * dotplan's use cases, one function each, each one transaction: what the CLI calls, what the HTTP
 * API will call, and what a service embedding the engine calls (`openDotplan`). Commands name who
 * made them; refused ones change nothing and say why.
 */
export class Dotplan {
  constructor(
    readonly store: Store,
    readonly tools: ToolCatalogue,
    readonly config: Config,
  ) {}

  /** The audit log and wake-ups: list, follow, onWake. */
  get events(): EventFeed {
    return this.store.events;
  }

  /** Validates and stores a plan from a template or DOT text, and starts it (or leaves it for review). */
  async create(input: FromTemplate | FromDot | FromGoal, options: CommandOptions & { review?: boolean } = {}): Promise<PlanRecord> {
    const prepared = await preparePlan(this.tools, input, options.by ?? defaultActor(), dotLimits(this.config));
    // --review: as review="required" in the plan (a reflection plan's LLM still writes it first).
    return this.store.plans.create(options.review ? requireReview(prepared) : prepared);
  }

  /** Answers a node waiting for a person; the same answer again is accepted, a different one refused. */
  async answer(planId: string, nodeId: string, text: string, options: CommandOptions = {}): Promise<NodeRecord> {
    const by = { driver: 'person' as const, name: options.by ?? defaultActor() };
    await this.store.plans.change(planId, { nodes: [nodeId] }, (snapshot) => engine.answer(snapshot, nodeId, text, by));
    return this.store.plans.node(planId, nodeId);
  }

  /** Runs a failed node again, its attempts afresh; a failed plan resumes. */
  async retry(planId: string, nodeId: string, options: CommandOptions = {}): Promise<NodeRecord> {
    const by = this.#operator(options);
    const reason = options.reason ?? `retried by ${by.name}`;
    await this.store.plans.change(planId, { nodes: [nodeId], candidates: true }, (snapshot, candidates) =>
      engine.retry(snapshot, nodeId, by, reason, candidates),
    );
    return this.store.plans.node(planId, nodeId);
  }

  /** Skips a node that has not run; the plan goes on past it as if it had finished with no output. */
  async skip(planId: string, nodeId: string, options: CommandOptions = {}): Promise<NodeRecord> {
    const by = this.#operator(options);
    const reason = options.reason ?? `skipped by ${by.name}`;
    await this.store.plans.change(planId, { nodes: [nodeId], candidates: true }, (snapshot, candidates) =>
      engine.skip(snapshot, nodeId, by, reason, candidates),
    );
    return this.store.plans.node(planId, nodeId);
  }

  /** Cancels the plan and every node that has not finished. */
  async cancel(planId: string, options: CommandOptions = {}): Promise<PlanRecord> {
    const by = this.#operator(options);
    await this.store.plans.change(planId, { all: true }, (snapshot) => engine.cancel(snapshot, by, options.reason ?? `cancelled by ${by.name}`));
    return this.store.plans.get(planId);
  }

  /** Stops new claims of the plan's nodes; running ones finish and their results are kept. */
  async pause(planId: string, options: CommandOptions = {}): Promise<PlanRecord> {
    const by = this.#operator(options);
    await this.store.plans.change(planId, {}, (snapshot) => engine.pause(snapshot, by, options.reason ?? `paused by ${by.name}`));
    return this.store.plans.get(planId);
  }

  /** Goes on where the plan stopped. */
  async resume(planId: string, options: CommandOptions = {}): Promise<PlanRecord> {
    const by = this.#operator(options);
    await this.store.plans.change(planId, { candidates: true }, (snapshot, candidates) =>
      engine.resume(snapshot, by, options.reason ?? `resumed by ${by.name}`, candidates),
    );
    return this.store.plans.get(planId);
  }

  /** A reviewer approves a plan waiting for review: it starts running (seed 003). */
  approve(planId: string, options: CommandOptions = {}): Promise<PlanRecord> {
    return review.approve(this.store, planId, this.#person(options), options.reason);
  }

  /** A reviewer rejects a plan waiting for review: it ends `rejected`; nothing of it ever runs. */
  reject(planId: string, options: CommandOptions & { reason: string }): Promise<PlanRecord> {
    return review.reject(this.store, planId, this.#person(options), options.reason);
  }

  /** A reviewer changes a plan waiting for review (a DOT text, or a suggestion for the LLM); it waits for review again. */
  modify(planId: string, change: review.Modification, options: CommandOptions = {}): Promise<ApplyReport | PlanRecord> {
    return review.modify(this, planId, change, this.#person(options), options.reason);
  }

  /**
   * A hand edit: the plan's DOT as edited (from `plan show --format dot`) becomes a new revision by
   * the operator, in one transaction — or nothing, with every problem (a file that does not read or
   * validate, changes the operator may not make, conflicts with what changed since the file was
   * written). Live fields left out are kept; a changed `status` is a move asked of the state machine
   * (`ready` on a failed node retries it, `skipped` on a pending one skips it). A file that names
   * its `revision` (and `asOfEvent`) is merged three-way against it; one that does not is taken
   * against the latest revision.
   */
  async apply(planId: string, dot: string, options: CommandOptions & { source?: string; dryRun?: boolean } = {}): Promise<ApplyReport> {
    return applyRevision(this, planId, dot, {
      by: this.#operator(options),
      source: options.source ?? '<edit>',
      ...(options.dryRun ? { dryRun: true } : {}),
      ...(options.reason ? { reason: options.reason } : {}),
    });
  }

  /**
   * Revision `number`'s structure as a new revision, under the same rights as a hand edit: the live
   * state of the nodes that exist now is kept (a revert never un-runs a node; removing one that has
   * run is refused).
   */
  async revert(planId: string, number: number, options: CommandOptions & { dryRun?: boolean } = {}): Promise<ApplyReport> {
    const [old, nodes] = await Promise.all([this.revision(planId, number), this.nodes(planId)]);
    const graph = mergeLiveState(revisionGraph(planId, old.number, old.dot), nodes);
    return this.apply(planId, withComments(authoredComments(old.dot), graph), {
      ...options,
      source: `revision ${number}`,
      reason: options.reason ?? `revert to revision ${number}`,
    });
  }

  plan(id: string): Promise<PlanRecord> {
    return this.store.plans.get(id);
  }
  plans(filter: { status?: PlanStatus } = {}): Promise<PlanRecord[]> {
    return this.store.plans.list(filter);
  }
  nodes(planId: string): Promise<NodeRecord[]> {
    return this.store.plans.nodes(planId);
  }
  node(planId: string, nodeId: string): Promise<NodeRecord> {
    return this.store.plans.node(planId, nodeId);
  }
  edges(planId: string): Promise<EdgeRecord[]> {
    return this.store.plans.edges(planId);
  }
  /** The plan's revisions, oldest first, each with who made it and how many changes it made (from its `revision` event). */
  async revisions(planId: string): Promise<RevisionEntry[]> {
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
  revision(planId: string, number?: number): Promise<RevisionRecord> {
    return this.store.plans.revision(planId, number);
  }
  /** What changed in the plan's structure (nodes, edges, attributes; not the live state) from revision `from` to `to` (default: the latest). */
  async diff(planId: string, from: number, to?: number): Promise<{ from: number; to: number; changes: PlanChange[] }> {
    const [a, b] = await Promise.all([this.revision(planId, from), this.revision(planId, to)]);
    // Structure only: the live fields a revision was written with are a snapshot of the run, whose moves `plan events` lists.
    const read = (r: RevisionRecord): PlanGraph => {
      const graph = revisionGraph(planId, r.number, r.dot);
      return { ...graph, nodes: graph.nodes.map((n) => ({ ...n, attributes: authoredAttributes(n.attributes) })) };
    };
    return { from: a.number, to: b.number, changes: diffPlans(read(a), read(b)) };
  }
  /** Everything waiting for a person — questions and reviews — across plans (or in one), oldest first, with the command that answers it. */
  inbox(options: { planId?: string } = {}): Promise<review.InboxEntry[]> {
    return review.inbox(this.store, options.planId);
  }

  /** The calls the plan made to the model, oldest first. */
  async calls(planId: string): Promise<LlmCallRecord[]> {
    await this.store.plans.get(planId);
    return this.store.llm.calls(planId);
  }
  /** The plan's events (status moves, answers, revisions, notices...), oldest first. */
  async history(planId: string): Promise<EventRecord[]> {
    await this.store.plans.get(planId);
    return this.store.events.list(planId);
  }
  /**
   * The plan as an operator edits it: the latest revision with the live node state merged in, its
   * authored comment block, and `revision` / `asOfEvent` saying what an edit of it is made from.
   */
  async show(planId: string): Promise<string> {
    const [{ revision, nodes, asOfEvent }, plan] = await Promise.all([this.store.plans.editable(planId), this.store.plans.get(planId)]);
    const graph = mergeLiveState(revisionGraph(planId, revision.number, revision.dot), nodes);
    return editableDot(graph, {
      planId,
      revision: revision.number,
      asOfEvent,
      comments: revision.dot,
      ...(plan.result !== undefined ? { result: plan.result } : {}),
    });
  }
  /** The same, as a graph (for drawing). */
  liveGraph(planId: string): Promise<PlanGraph> {
    return livePlanGraph(this.store, planId);
  }

  /** A worker in this process, with the configured concurrency, lease and poll; call `start()` on it. */
  worker(options: WorkerStartOptions = {}): Worker {
    const { worker, retry } = this.config;
    const { llm: endpoint, ...rest } = options;
    const llm = this.llm(endpoint);
    return new Worker({
      store: this.store,
      tools: this.tools,
      poll: worker.poll,
      concurrency: worker.concurrency,
      leaseMs: worker.leaseMs,
      retryDefaults: retry,
      remindEveryMs: parseDuration(this.config.notify.reminderInterval) ?? 3_600_000,
      ...(llm ? { planner: llm.planner, judge: llm.judge } : {}),
      ...rest,
    });
  }

  /**
   * The LLM's side of reflection plans and verify="llm" (SPEC §6): undefined when no endpoint is
   * configured (no OPENAI_BASE_URL and no API key) — such a worker leaves that work to others.
   */
  llm(endpoint?: { baseURL: string; model?: string }): { client: LlmClient; planner: Planner; judge: Judge } | undefined {
    const settings = { ...llmSettings(this.config), ...endpoint };
    if (!settings.baseURL && !settings.apiKey) return undefined;
    const client = createLlmClient(settings);
    const limits = this.config.reflection;
    return {
      client,
      planner: new Planner({ store: this.store, tools: this.tools, config: this.config, client, limits }),
      judge: llmJudge(client, this.store.llm, limits.resultChars),
    };
  }

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

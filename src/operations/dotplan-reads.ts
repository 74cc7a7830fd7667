import { AgentRegistry } from '../agents/registry.js';
import type { Config } from '../config/defaults.js';
import { authoredAttributes } from '../engine/initial-state.js';
import type { PlanGraph, PlanStatus } from '../model/types.js';
import type { Wait } from '../plans/waits-for.js';
import { livePlanGraph, mergeLiveState } from '../plans/plan-view.js';
import { diffPlans } from '../revisions/diff.js';
import { editableDot } from '../revisions/edit-file.js';
import { revisionGraph } from '../revisions/revision-graphs.js';
import type { LlmCallRecord } from '../store/index.js';
import type { Backend, EdgeRecord, EventRecord, NodeRecord, PlanRecord, RevisionRecord, Store } from '../store/types.js';
import type { ToolCatalogue } from '../tools/types.js';
import type { ValidationResult } from '../validate/index.js';
import { checked } from './arguments.js';
import { DotplanEvents } from './events.js';
import type { RenderInput, RevisionDiff, RevisionEntry } from './options.js';
import { inbox, type InboxEntry } from './inbox.js';
import { DotplanTokens } from './tokens.js';
import { agentHistory, childMarks, planTree, type AgentHistory, type TreeView } from './tree-views.js';
import type { RenderFormat, ReportFormat } from './views.js';
import { waitingFor } from './waiting-for.js';

/**
 * What {@link Dotplan} reads and shows, changing nothing: plans, nodes, revisions and their diffs, the
 * inbox, what a plan waits for, its LLM calls and audit log, the plan stack, and what a person reads
 * (validation, drawings, reports). Every method checks its arguments first (`INVALID_INPUT`).
 */
export class DotplanReads {
  readonly #events: DotplanEvents;
  readonly #tokens: DotplanTokens;

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
    this.#tokens = new DotplanTokens(store);
  }

  /** The database the plans are in. */
  get backend(): Backend {
    return this.store.backend;
  }

  /** The audit log: `list` and `follow` (the same query for both), `lastId`, `append`. */
  get events(): DotplanEvents {
    return this.#events;
  }

  /**
   * The API tokens of `dotplan serve`: `create` (its secret shown once), `list`, `revoke`, `verify`,
   * `exists`. Here rather than on {@link Dotplan}, so that what only reads (a server's token check)
   * needs no more than the read side.
   */
  get tokens(): DotplanTokens {
    return this.#tokens;
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
  /**
   * Everything waiting for a person — questions and reviews — across plans (or, with `planId`, in that
   * plan and the plans below it), oldest first, with the command that answers it.
   */
  async inbox(options: { planId?: string } = {}): Promise<InboxEntry[]> {
    checked('inbox', { options });
    return inbox(this.store, options.planId);
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
    return (await views()).validatePlan(this, dot, options.source);
  }

  /** A stored plan as it stands (live status, outputs, answers) or a DOT text, drawn as SVG (nodes coloured by status) or printed as normalised DOT. */
  async render(plan: RenderInput, options: { format?: RenderFormat } = {}): Promise<string> {
    checked('render', { plan, options });
    if ('planId' in plan) {
      const [graph, children] = await Promise.all([livePlanGraph(this.store, plan.planId), childMarks(this.store, plan.planId)]);
      return (await views()).renderGraph(graph, options.format, { children });
    }
    return (await views()).renderText(this, plan.dot, plan.source, options.format);
  }

  /** The run report for a person who was not there, as Markdown (default), one self-contained HTML page, or JSON text. */
  async report(planId: string, options: { format?: ReportFormat } = {}): Promise<string> {
    checked('report', { planId, options });
    return (await views()).reportPlan(this, planId, options.format, (id) => childMarks(this.store, id));
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
}

/** Validation, drawings and reports, loaded when first asked for (Graphviz, the report writers): listing plans does not pay for them. */
function views(): Promise<typeof import('./views.js')> {
  return import('./views.js');
}

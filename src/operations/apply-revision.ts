import type { Actor } from '../engine/step.js';
import type { Config } from '../config/defaults.js';
import { dotLimits } from '../config/dot-limits.js';
import { readDot } from '../dot/index.js';
import { ValidationError, type Diagnostic } from '../model/diagnostics.js';
import type { PlanGraph } from '../model/types.js';
import { authoredComments, readEditBase, withoutBase, type EditBase } from '../revisions/edit-file.js';
import { rememberRevision } from '../revisions/revision-graphs.js';
import type { RevisionDriver } from '../revisions/rights.js';
import type { Store } from '../store/types.js';
import type { ToolCatalogue } from '../tools/types.js';
import { validateGraph } from '../validate/index.js';
import { agentValidation, type AgentRegistry } from '../agents/registry.js';
import { decideRevision, type ApplyReport, type EditVerdict, type LoadedBase } from './decide-revision.js';

/** What the revision path needs: the store, the tools the plan may use, the config (DOT limits). */
export interface RevisionDeps {
  store: Store;
  tools: ToolCatalogue;
  config: Config;
  /** The registered agents: plans may then hold agent nodes naming them. */
  agents?: AgentRegistry;
}

export interface ApplyRevisionOptions {
  by: Actor & { driver: RevisionDriver };
  /** Where the text came from, for diagnostics. */
  source: string;
  /** What the text was made from, when the caller knows it better than the text (an LLM reply); default: the text's `revision` / `asOfEvent`. */
  base?: EditBase;
  dryRun?: boolean;
  /** The revision's update log. */
  reason?: string;
  /** More problems of the merged plan for this author (e.g. an LLM rewrite that leaves nothing to run). */
  check?: (next: PlanGraph) => Diagnostic[];
  /** An agent instance's messages, written with the revision in one transaction (a ReAct turn). */
  messages?: readonly unknown[];
}

/**
 * The one way a plan's structure changes (SPEC §9), for every author: the DOT text is read and the
 * revision it was made from loaded, then — in one transaction, against the plan as it stands — the
 * live fields it leaves out kept, the plan it makes validated whole, merged, checked against the
 * author's rights and written as a new revision, or refused with every problem.
 */
export async function applyRevision(deps: RevisionDeps, planId: string, dot: string, options: ApplyRevisionOptions): Promise<ApplyReport> {
  const { source } = options;
  const refused = (diagnostics: Diagnostic[], base: EditBase | null = null): ApplyReport => ({
    applied: false,
    revision: null,
    base,
    changes: [],
    conflicts: [],
    diagnostics,
  });
  let read: PlanGraph;
  try {
    read = readDot(dot, { source, ...dotLimits(deps.config) });
  } catch (error) {
    if (error instanceof ValidationError) return refused(error.diagnostics);
    throw error;
  }
  const named = readEditBase(read.attributes, dot);
  const baseNamed = options.base ?? named.base;
  // A base that does not read refuses the edit; it is still checked, so that every problem is named at once.
  const invalidBase = options.base ? [] : named.diagnostics;
  const planAgent = deps.agents && deps.agents.list().length > 0 ? (await deps.store.plans.get(planId)).agentCode : undefined;
  const validate = (graph: PlanGraph) => validateGraph(graph, { tools: deps.tools, source, ...agentValidation(deps.agents, planAgent) });
  const edited = { ...read, attributes: withoutBase(read.attributes) };
  const base = baseNamed ? await loadBase(deps.store, planId, baseNamed) : undefined;
  let verdict: EditVerdict = { changes: [], conflicts: [], diagnostics: [] };
  const done = await deps.store.plans.revise(planId, (current) => {
    verdict = decideRevision(current, edited, options.by, {
      validate,
      comments: authoredComments(dot),
      ...(base ? { base } : {}),
      ...(options.dryRun || invalidBase.length > 0 ? { dryRun: true } : {}),
      ...(options.reason ? { updateLog: options.reason } : {}),
      ...(options.check ? { check: options.check } : {}),
    });
    return verdict.write && options.messages ? { ...verdict.write, messages: options.messages } : verdict.write;
  });
  if (done && verdict.write) rememberRevision(planId, done.revision, verdict.write.next);
  if (invalidBase.length > 0) return { ...refused([...invalidBase, ...verdict.diagnostics]), conflicts: verdict.conflicts };
  const { changes, conflicts, diagnostics } = verdict;
  return { applied: done !== undefined, revision: done?.revision ?? null, base: baseNamed ?? null, changes, conflicts, diagnostics };
}

/** Revision N's text and, when the edit gave `asOfEvent`, the plan's status moves up to it. */
async function loadBase(store: Store, planId: string, base: EditBase): Promise<LoadedBase> {
  const revision = await store.plans.revision(planId, base.revision);
  if (base.asOfEvent === undefined) return { revision: revision.number, dot: revision.dot };
  const events = await store.events.list(planId, { kind: 'status', upTo: base.asOfEvent });
  return { revision: revision.number, dot: revision.dot, moves: { asOfEvent: base.asOfEvent, events } };
}

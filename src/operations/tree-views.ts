import { InvalidInputError, NotFoundError } from '../errors/errors.js';
import type { ChildMark } from '../render/index.js';
import type { Store, TreePlace } from '../store/index.js';
import type { DotplanReads } from './dotplan-reads.js';
import { groupBy } from '../model/group-by.js';

/** One plan of a tree as `plan tree` shows it. */
export interface TreeEntry {
  id: string;
  title: string;
  status: string;
  depth: number;
  /** The agent node it runs for (plan, node). */
  parent?: { planId: string; nodeId: string };
  agentCode?: string;
  instance?: string;
  tokensUsed: number;
  /** Questions waiting for a person in it. */
  waiting: Array<{ nodeId: string; question?: string }>;
}

/** A plan's tree as `dotplan plan tree` shows it (`dotplan.tree(planId)`). */
export interface TreeView {
  root: string;
  /** The plan asked for. */
  asked: string;
  /** Root first, then root → leaf. */
  plans: TreeEntry[];
  /** Tokens the whole tree spent (`reflection.maxTokens` is its budget). */
  tokensUsed: number;
}

export async function planTree(dotplan: DotplanReads, planId: string): Promise<TreeView> {
  const places = await dotplan.store.tree.treeOf(planId);
  const root = places[0]!.id;
  // The tree's questions in one read (not one per plan), each plan's oldest first.
  const questions = groupBy(
    (await dotplan.store.plans.waiting(root, { tree: true })).filter((w) => w.kind === 'question'),
    (w) => w.planId,
  );
  const plans = places.map((place): TreeEntry => ({
    id: place.id,
    title: place.title,
    status: place.status,
    depth: place.depth,
    ...(place.parentPlanId !== null && place.parentNodeId !== null ? { parent: { planId: place.parentPlanId, nodeId: place.parentNodeId } } : {}),
    ...(place.agentCode !== null ? { agentCode: place.agentCode } : {}),
    ...(place.instance !== null ? { instance: place.instance } : {}),
    tokensUsed: place.tokensUsed,
    waiting: (questions.get(place.id) ?? []).map((w) => ({ nodeId: w.nodeId ?? '', ...(w.attributes?.question ? { question: w.attributes.question } : {}) })),
  }));
  return { root, asked: planId, plans, tokensUsed: plans.reduce((n, p) => n + p.tokensUsed, 0) };
}

/** The tree as lines: each child under its parent's agent node, with status, instance, waiting questions and tokens. */
export function formatTree(view: TreeView): string {
  const children = groupBy(
    view.plans.filter((plan) => plan.parent),
    (plan) => plan.parent!.planId,
  );
  const lines: string[] = [];
  const visit = (plan: TreeEntry, indent: string) => {
    const who = plan.instance ? `${plan.parent!.nodeId} → ${plan.instance}` : plan.title;
    const mark = plan.id === view.asked ? ' ◀' : '';
    lines.push(`${indent}${who}  ${plan.id}  ${plan.status}${plan.tokensUsed > 0 ? `  ${plan.tokensUsed} tokens` : ''}${mark}`);
    for (const q of plan.waiting)
      lines.push(`${indent}    ? ${q.nodeId}${q.question ? `: ${q.question}` : ''}  (dotplan answer ${plan.id} ${q.nodeId} <answer>)`);
    for (const child of children.get(plan.id) ?? []) visit(child, `${indent}  `);
  };
  visit(view.plans[0]!, '');
  lines.push(`tokens in all: ${view.tokensUsed}`);
  return lines.join('\n');
}

/** Each agent node's child plan (its latest attempt's), by node id: what a drawing of the plan shows under the node. */
export async function childMarks(store: Store, planId: string): Promise<Map<string, ChildMark>> {
  const out = new Map<string, ChildMark>();
  const agents = (await store.plans.nodes(planId)).filter((n) => n.childPlanId !== undefined);
  if (agents.length === 0) return out;
  // The tree's places in one read, not one read per child.
  const places = new Map((await store.tree.treeOf(planId)).map((p) => [p.id, p]));
  for (const node of agents) {
    const child = places.get(node.childPlanId!);
    if (child) out.set(node.id, { status: child.status, ...(child.instance !== null ? { instance: child.instance } : {}) });
  }
  return out;
}

/** An agent instance's conversation with the model (`dotplan.agentHistory(instance)`). */
export interface AgentHistory {
  planId: string;
  instance?: string;
  agentCode?: string;
  mode: string;
  /**
   * The instance's conversation with the model, as sent: a ReAct instance's stored history; a
   * reflection instance's exchanges (each call's messages and the reply), in order.
   */
  messages: unknown[];
}

export async function agentHistory(dotplan: DotplanReads, ref: string, root: string | undefined): Promise<AgentHistory> {
  const place = await resolveInstance(dotplan, ref, root);
  const plan = await dotplan.store.plans.get(place.id);
  let messages = await dotplan.store.tree.messages(place.id);
  if (messages.length === 0) {
    messages = (await dotplan.store.llm.calls(place.id)).flatMap((call) => [
      ...(JSON.parse(call.prompt) as unknown[]),
      ...(call.reply !== undefined ? [{ role: 'assistant', content: call.reply }] : []),
    ]);
  }
  return {
    planId: place.id,
    ...(plan.instance ? { instance: plan.instance } : {}),
    ...(plan.agentCode ? { agentCode: plan.agentCode } : {}),
    mode: plan.mode,
    messages,
  };
}

async function resolveInstance(dotplan: DotplanReads, ref: string, root: string | undefined): Promise<TreePlace> {
  if (ref.startsWith('p_')) return (await dotplan.store.tree.treeOf(ref)).find((p) => p.id === ref)!;
  const found = (await dotplan.store.tree.byInstance(ref)).filter((p) => root === undefined || p.root === root);
  if (found.length === 1) return found[0]!;
  if (found.length === 0)
    throw new NotFoundError(
      `no agent instance ${JSON.stringify(ref)}${root ? ` in the tree of ${root}` : ''}; see the instances with \`dotplan plan tree <plan>\``,
    );
  throw new InvalidInputError(
    `${found.length} trees have an instance ${ref} (${found.map((p) => `${p.id} under ${p.root}`).join(', ')}); name the tree with --root <root plan> or give the child plan's id`,
  );
}

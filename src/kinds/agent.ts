import type { AttemptResult } from '../engine/attempts.js';
import { resolveReferences } from '../execute/resolve-input.js';
import { commaList } from '../model/attributes.js';
import { findReferences } from '../model/references.js';
import type { ClaimedNode } from '../store/types.js';
import type { ChildInput } from './agent-child.js';
import type { NodeKind } from './types.js';
import { fetchReferencedNodes, referencedNodes, type UpstreamNode } from './upstream.js';

/**
 * An agent node runs a child plan (seed 004's AEP → EP; seed 002's plan stack): its task, agentParams
 * and inherited values, references resolved, go to the child's starter; the node then waits on the
 * child, holding no lease, and the child's last step finishes it (src/store/tree/). An external
 * agent's node (A2A) runs its remote task instead, holding its lease while it follows the task.
 */
export const agentKind: NodeKind = {
  type: 'agent',
  async run(claim, abort, deps): Promise<AttemptResult> {
    if (!deps.children) return { kind: 'failed', error: `agent node "${claim.nodeId}": this worker has no agents configured`, retryable: false };
    let input: ChildInput;
    try {
      input = await childInput(claim, deps.plans);
    } catch (error) {
      if (!(error instanceof AgentInputError)) throw error;
      return { kind: 'failed', error: error.message, retryable: false };
    }
    // An external agent's node stands for its remote task: no child plan (src/agents/a2a/).
    if (deps.remote?.handles(input.agentCode)) return deps.remote.run(claim, input, abort.signal, deps.log);
    const started = await deps.children.start(claim, input, abort.signal, deps.handOff);
    if (started.kind === 'failed') return started;
    return { kind: 'delegated', childPlanId: started.childPlanId, claimed: started.claimed };
  },
};

class AgentInputError extends Error {}

/**
 * childInput without reading the database, for the write that hands the node over to start its child
 * in (FinishOptions.children): undefined where the node's texts refer to other nodes (their outputs are
 * read as the node runs) or its input is refused (its attempt fails with the reason as it runs).
 */
export async function childInputUnread(claim: ClaimedNode): Promise<ChildInput | undefined> {
  if (referencedNodes(inputTexts(claim)).size > 0) return undefined;
  try {
    return await childInput(claim, undefined);
  } catch (error) {
    if (error instanceof AgentInputError) return undefined;
    throw error;
  }
}

/** The texts of an agent node that may hold references: task, agentParams, and each inherited name as a reference. */
function inputTexts(claim: ClaimedNode): Array<string | undefined> {
  const a = claim.attributes;
  return [a.task, a.agentParams, ...commaList(a.inherit).map((name) => `{{${name}}}`)];
}

/**
 * The node's attributes as the child gets them: task, agentParams and inherited values with references
 * resolved (the upstream nodes they name read with `plans`; none without).
 */
export async function childInput(claim: ClaimedNode, plans: Parameters<typeof fetchReferencedNodes>[1] | undefined): Promise<ChildInput> {
  const a = claim.attributes;
  const agentCode = a.agentCode?.trim();
  if (!agentCode) throw new AgentInputError(`agent node "${claim.nodeId}" has no agentCode: name a registered agent (dotplan agent list)`);
  const inherit = commaList(a.inherit);
  const inheritRefs = inherit.map((name) => `{{${name}}}`);
  const upstream = plans ? await fetchReferencedNodes(claim, plans, inputTexts(claim)) : new Map<string, UpstreamNode>();
  const scope = { params: claim.params, nodes: (id: string): UpstreamNode | undefined => upstream.get(id) };
  const resolve = (text: string, where: string): string => {
    try {
      return resolveReferences(text, scope);
    } catch (error) {
      throw new AgentInputError(`agent node "${claim.nodeId}" ${where}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  const task = resolve(a.task ?? a.label ?? claim.nodeId, 'task');
  const agentParams: Record<string, string> = {};
  if (a.agentParams !== undefined && a.agentParams.trim() !== '') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(a.agentParams);
    } catch {
      throw new AgentInputError(`agent node "${claim.nodeId}": agentParams is not JSON (expected an object such as {"topic": "..."})`);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new AgentInputError(`agent node "${claim.nodeId}": agentParams must be a JSON object`);
    }
    for (const [key, value] of Object.entries(parsed)) {
      agentParams[key] = resolve(typeof value === 'string' ? value : JSON.stringify(value), `agentParams.${key}`);
    }
  }
  const inherited: Record<string, string> = {};
  for (const [index, name] of inherit.entries()) {
    const [ref] = findReferences(inheritRefs[index]!);
    if (!ref) throw new AgentInputError(`agent node "${claim.nodeId}": inherit names "${name}", which is not nodes.<id>.output|answer or params.<name>`);
    inherited[inheritedName(name)] = resolve(inheritRefs[index]!, `inherit ${name}`);
  }
  return { agentCode, task, agentParams, inherited, detach: a.detach === 'true' };
}

/** `nodes.fetch.output` → `fetch_output`, `params.audience` → `audience`: the name the child knows it by. */
export function inheritedName(ref: string): string {
  const parts = ref.split('.');
  return parts[0] === 'params' ? parts.slice(1).join('.') : parts.slice(1).join('_');
}

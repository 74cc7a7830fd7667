import type { ChildInput } from '../../kinds/agent-child.js';
import type { AgentDefinition } from '../types.js';
import type { RemoteCard } from './connect.js';

/** The largest message sent to an external agent unless its `maxPayload` says otherwise. */
export const DEFAULT_MAX_PAYLOAD = 65_536;

/** What goes to the agent for one node (before redaction): the text, the skill asked for, the parameters. */
export interface Outgoing {
  text: string;
  skill?: string;
  /** The node's agentParams and inherited values, also sent as `values` in the message's metadata (a dotplan agent's template takes them so). */
  values: Record<string, string>;
}

/**
 * The task as sent: the node's task, then its agentParams and inherited values as `name: value`
 * lines. `agentParams.skill` names the skill asked for (else the agent's `skill`).
 */
export function outgoingOf(agent: AgentDefinition, input: ChildInput): Outgoing {
  const { skill: asked, ...values } = { ...input.inherited, ...input.agentParams };
  const lines = Object.entries(values).map(([name, value]) => `${name}: ${value}`);
  const text = lines.length > 0 ? `${input.task}\n\n${lines.join('\n')}` : input.task;
  const skill = asked ?? agent.skill;
  return skill !== undefined ? { text, skill, values } : { text, values };
}

/** The message's metadata: the skill and the values (redacted), where there are any. */
export function metadataOf(outgoing: Outgoing, redact: (text: string) => string): Record<string, unknown> | undefined {
  const values = Object.fromEntries(Object.entries(outgoing.values).map(([name, value]) => [name, redact(value)]));
  const metadata = { ...(outgoing.skill !== undefined ? { skill: outgoing.skill } : {}), ...(Object.keys(values).length > 0 ? { values } : {}) };
  return Object.keys(metadata).length > 0 ? metadata : undefined;
}

/**
 * The wrapper's permission control (seed 002 §5.3), before anything leaves: the skill must be one the
 * agent allows (`allowSkills`) and one its card offers; the message no larger than `maxPayload`.
 * Returns why a call is refused, or undefined.
 */
export function refusal(agent: AgentDefinition, card: RemoteCard, outgoing: Pick<Outgoing, 'skill'>, redactedText: string): string | undefined {
  const { skill } = outgoing;
  if (agent.allowSkills !== undefined) {
    if (skill === undefined)
      return `agent ${agent.code} allows only the skills ${agent.allowSkills.join(', ')}: name one in the node's agentParams ({"skill": "${agent.allowSkills[0]}"}) or set the agent's skill`;
    if (!agent.allowSkills.includes(skill)) return `agent ${agent.code} does not allow skill "${skill}" (allowSkills: ${agent.allowSkills.join(', ')})`;
  }
  if (skill !== undefined && card.skills.length > 0 && !card.skills.includes(skill))
    return `agent ${agent.code} (${card.name}) has no skill "${skill}"; its card offers ${card.skills.join(', ')}`;
  const max = agent.maxPayload ?? DEFAULT_MAX_PAYLOAD;
  const bytes = Buffer.byteLength(redactedText);
  if (bytes > max) return `the message for agent ${agent.code} is ${bytes} bytes, over its maxPayload of ${max}: shorten the task or raise maxPayload`;
  return undefined;
}

/**
 * A card whose interfaces point at another host than the agent's configured url would have dotplan
 * send its tasks (and token) elsewhere: refused unless that host is in `allowHosts`.
 */
export function foreignInterface(agent: AgentDefinition, card: RemoteCard): string | undefined {
  const home = new URL(agent.url ?? '').host;
  const allowed = new Set([home, ...(agent.allowHosts ?? [])]);
  for (const url of card.urls) {
    let host: string;
    try {
      host = new URL(url).host;
    } catch {
      return `agent ${agent.code}'s card names an interface URL that is not a URL: ${JSON.stringify(url)}`;
    }
    if (!allowed.has(host))
      return `agent ${agent.code}'s card (${agent.url}) sends requests to ${host}, another host than ${home}; add "${host}" to the agent's allowHosts if that is intended`;
  }
  return undefined;
}

import type { AttemptResult } from '../../engine/attempts.js';
import { retryPolicy, type RetryDefaults } from '../../engine/retry-policy.js';
import type { ChildInput } from '../../kinds/agent-child.js';
import { readEnvReference } from '../../secrets/env-reference.js';
import { registerSecret } from '../../secrets/redact.js';
import type { Store } from '../../store/types.js';
import type { ClaimedNode } from '../../store/types.js';
import type { ToolLog } from '../../worker/tool-logs.js';
import { callNotAllowed } from '../start-child.js';
import { AGENT_KINDS, type AgentDefinition } from '../types.js';
import { deliverCancels } from './cancels.js';
import type { RemoteAgentClient } from './connect.js';
import { foreignInterface } from './policy.js';
import { Redactor } from './redact.js';
import { runRemoteTask } from './run-task.js';

/** The agents a worker knows, by code. */
export interface RemoteAgentLookup {
  get(code: string): AgentDefinition | undefined;
}

/** How long fetching an agent's card may take. */
const CARD_TIMEOUT_MS = 30_000;

/**
 * The external agents (kind `a2a`) of one worker, behind the wrapper of seed 002 §5.3: a node's task
 * goes out redacted and within the agent's policy, and every exchange is audited (run-task.ts). Each
 * agent's card is fetched once (and checked: its interfaces on the configured host) and its client
 * kept; a card that could not be fetched is fetched again by the next attempt.
 */
export class RemoteAgents {
  readonly #clients = new Map<string, Promise<RemoteAgentClient>>();
  readonly #redactors = new Map<string, Redactor>();

  constructor(
    private readonly deps: {
      store: Pick<Store, 'remote' | 'events'>;
      agents: RemoteAgentLookup;
      retryDefaults: RetryDefaults;
      env?: Record<string, string | undefined>;
    },
  ) {}

  /** Whether agent nodes naming `code` are this one's to run (an external agent). */
  handles(code: string): boolean {
    return this.agent(code) !== undefined;
  }

  /** The external agent registered as `code`. */
  agent(code: string): AgentDefinition | undefined {
    const agent = this.deps.agents.get(code);
    return agent !== undefined && AGENT_KINDS[agent.kind].remote ? agent : undefined;
  }

  /** Delivers the due cancels owed to external agents (cancels.ts); returns how many were taken. */
  deliverCancels(actor: string): Promise<number> {
    return deliverCancels(this.deps.store, this, actor);
  }

  async run(claim: ClaimedNode, input: ChildInput, signal: AbortSignal, log: (entry: ToolLog) => void): Promise<AttemptResult> {
    const agent = this.agent(input.agentCode);
    if (!agent?.url) return { kind: 'failed', error: `agent ${input.agentCode} is not an external agent`, retryable: false };
    const notAllowed = callNotAllowed(this.deps.agents, claim, agent.code);
    if (notAllowed) return { kind: 'failed', error: notAllowed, retryable: false };
    let client: RemoteAgentClient;
    try {
      client = await this.client(agent);
    } catch (error) {
      if (error instanceof PolicyError) return { kind: 'failed', error: error.message, retryable: false };
      return {
        kind: 'failed',
        error: `agent ${agent.code}: its card could not be read from ${agent.url}: ${this.redactor(agent).redact(String(error instanceof Error ? error.message : error))}`,
        retryable: true,
      };
    }
    const { timeoutMs } = retryPolicy(claim.attributes, claim.planAttributes, this.deps.retryDefaults);
    return runRemoteTask(claim, agent, client, this.redactor(agent), input, signal, {
      remote: this.deps.store.remote,
      events: this.deps.store.events,
      log,
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    });
  }

  /** The agent's client, its card fetched and checked once. */
  async client(agent: AgentDefinition): Promise<RemoteAgentClient> {
    let client = this.#clients.get(agent.code);
    if (!client) {
      client = this.#connect(agent);
      this.#clients.set(agent.code, client);
      client.catch(() => this.#clients.delete(agent.code));
    }
    return client;
  }

  redactor(agent: AgentDefinition): Redactor {
    let redactor = this.#redactors.get(agent.code);
    if (!redactor) this.#redactors.set(agent.code, (redactor = new Redactor(agent.redact)));
    return redactor;
  }

  /** The card is the agent's, not an attempt's: an attempt that ends does not abort the fetch the next one waits for. */
  async #connect(agent: AgentDefinition): Promise<RemoteAgentClient> {
    const bearer = this.#bearer(agent);
    const base = agent.url!.endsWith('/') ? agent.url! : `${agent.url!}/`;
    // The SDK is loaded when an agent is first reached: a command that runs no remote task does not load it.
    const { connectRemoteAgent } = await import('./connect.js');
    const client = await connectRemoteAgent(base, bearer, AbortSignal.timeout(CARD_TIMEOUT_MS));
    const foreign = foreignInterface(agent, client.card);
    if (foreign) throw new PolicyError(foreign);
    return client;
  }

  #bearer(agent: AgentDefinition): string | undefined {
    if (!agent.auth) return undefined;
    const ref = readEnvReference(agent.auth.bearer, this.deps.env ?? process.env);
    switch (ref.kind) {
      case 'text':
        return registerSecret(ref.value);
      case 'secret':
        return ref.value;
      case 'unset':
        throw new PolicyError(`agent ${agent.code}'s auth.bearer reads env:${ref.name}, which is not set: export ${ref.name}=<token> for the worker`);
      case 'bad-name':
        throw new PolicyError(`agent ${agent.code}'s auth.bearer names env:${ref.name}, which is not a variable name`);
    }
  }
}

/** A call the configuration does not allow: the attempt fails, not retried. */
class PolicyError extends Error {}

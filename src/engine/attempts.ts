import type { ClaimedNode } from '../store/types.js';
import { formatDuration } from '../model/duration.js';
import { failNode } from './failure.js';
import { propagate, type Changed } from './propagate.js';
import { nextRetryDelay, retryPolicy, type RetryDefaults } from './retry-policy.js';
import type { NodeState, Snapshot } from './snapshot.js';
import { StepBuilder, type Actor, type Step } from './step.js';

/**
 * The end of attempts (SPEC §5): what a worker reports for each node it ran, and what becomes of
 * the node — done, back to ready for a retry after a backoff, failed (and with onFailure=stop its
 * plan), released at shutdown, or waiting for a person — with readiness following. A node back to
 * ready whose parent was retried while the attempt ran waits for that parent again (held back to
 * pending by propagate): an edge means "waits for", for a node that already ran once too.
 */
export type AttemptResult =
  /** `input`: what the node ran with, references resolved, when it differs from its `toolInput` as written (recorded in the event). */
  | { kind: 'done'; output: string; input?: string }
  | { kind: 'failed'; error: string; retryable: boolean; input?: string }
  /** The worker is shutting down: back to ready, the attempt does not count. */
  | { kind: 'released' }
  /**
   * A confirm node asked its question (resolved from its references) and waits for a person; or an
   * agent node's external agent asks one, with the `options` it offers (none: free text).
   */
  | { kind: 'asked'; question?: string; options?: readonly string[] }
  /** An agent node started its child plan and waits on it, written by the child's starter (src/store/tree/): nothing to finish here. */
  | { kind: 'delegated'; childPlanId: string; claimed?: ClaimedNode[] }
  /** An external agent's node in detached mode parked itself on its remote task (src/store/remote-tasks.ts): still running, no lease, nothing to finish here. */
  | { kind: 'parked' };

export interface AttemptEnd {
  node: string;
  result: AttemptResult;
  /** In [0, 1): the random part of the retry backoff, drawn by the caller. */
  jitter: number;
}

export interface FinishOptions {
  retryDefaults: RetryDefaults;
  /** The worker reporting: named in the events; it takes up to `claim` of the nodes the step makes ready. */
  owner: string;
  claim: number;
  /** The worker the nodes made ready are handed to, when not the one named in the events (a child plan's end). */
  claimFor?: string;
}

export function finishAttempts(snapshot: Snapshot, ends: readonly AttemptEnd[], options: FinishOptions): Step {
  const b = new StepBuilder(snapshot);
  const worker: Actor = { driver: 'engine', name: options.owner };
  const changed: Changed[] = [];
  /** Nodes whose attempt ended without finishing them: back to ready, unless a parent of theirs runs again (propagate holds them back). */
  const back: string[] = [];
  for (const { node: id, result, jitter } of ends) {
    const before = b.node(id);
    // The input the attempt ran with goes into the event that ends it (the run report's Input column).
    const ran = (result.kind === 'done' || result.kind === 'failed') && result.input !== undefined ? { input: result.input } : undefined;
    switch (result.kind) {
      case 'done':
        b.move(id, 'done', worker, undefined, { output: result.output, error: null }, ran);
        changed.push({ id, before });
        break;
      case 'failed': {
        const policy = retryPolicy(before.attributes ?? {}, b.plan.attributes, options.retryDefaults);
        const of = `attempt ${before.attempts} of ${policy.retries + 1}`;
        if (result.retryable && before.attempts <= policy.retries) {
          const delay = nextRetryDelay(before.attempts, policy.baseDelayMs, () => jitter);
          b.move(
            id,
            'ready',
            worker,
            `${of} failed, retrying in ${formatDuration(delay)}: ${result.error}`,
            { error: result.error, runAfterDelayMs: delay },
            ran,
          );
          back.push(id);
        } else {
          changed.push(failNode(b, id, result.error, worker, policy.retries > 0 ? `${result.error} (${of})` : result.error, ran));
        }
        break;
      }
      case 'released':
        b.move(id, 'ready', worker, 'released by its worker (shutting down); the attempt does not count', {
          attempts: before.attempts - 1,
          runAfterDelayMs: 0,
        });
        back.push(id);
        break;
      case 'asked': {
        const attributes = askedAttributes(before.attributes, result);
        b.move(id, 'awaiting_input', worker, 'waiting for an answer', attributes ? { attributes } : {});
        break;
      }
      case 'delegated':
      case 'parked':
        break;
    }
  }
  propagate(b, changed, back);
  handOff(b, options.claimFor ?? options.owner, options.claim);
  return b.build();
}

/** The node's attributes with the question asked (and the options offered: none clears earlier ones); undefined: unchanged. */
function askedAttributes(attributes: NodeState['attributes'], asked: { question?: string; options?: readonly string[] }): NodeState['attributes'] {
  if (asked.question === undefined && asked.options === undefined) return undefined;
  const out = { ...attributes };
  if (asked.question !== undefined) out.question = asked.question;
  if (asked.options !== undefined) {
    delete out.multiple;
    // An option is one item of the comma-separated list: a comma inside one would split it.
    const options = asked.options.map((o) => o.replace(/\s*,\s*/g, ' ').trim()).filter((o) => o !== '');
    if (options.length > 0) out.options = options.join(',');
    else delete out.options;
  }
  return out;
}

/** A running node whose lease ran out (its worker crashed or hung). */
export interface ExpiredLease {
  node: string;
  /** The worker that held it. */
  owner?: string;
}

/**
 * Lease expiry: the node goes back to ready (the attempt counted) or, with its attempts used up,
 * fails. A crashed worker is not the node's fault, so a node (and plan) that sets no `retries` may
 * lose at least `minimumRetries` leases before it fails.
 */
export function expireLeases(snapshot: Snapshot, expired: readonly ExpiredLease[], retryDefaults: RetryDefaults, minimumRetries: number): Step {
  const b = new StepBuilder(snapshot);
  const engine: Actor = { driver: 'engine' };
  const changed: Changed[] = [];
  const back: string[] = [];
  const defaults = { ...retryDefaults, retries: Math.max(retryDefaults.retries, minimumRetries) };
  for (const { node: id, owner } of expired) {
    const before = b.node(id);
    const { retries } = retryPolicy(before.attributes ?? {}, b.plan.attributes, defaults);
    const why = `lease expired (${owner ? `worker ${owner}` : 'its worker'} stopped renewing it)`;
    if (before.attempts >= retries + 1) {
      const error = `${why} on attempt ${before.attempts} of ${retries + 1}`;
      changed.push(failNode(b, id, error, engine, error));
    } else {
      b.move(id, 'ready', engine, why, { runAfterDelayMs: 0 });
      back.push(id);
    }
  }
  propagate(b, changed, back);
  return b.build();
}

/**
 * The worker that finished a node runs what it made ready itself, up to its free slots, claimed in
 * the same step: a chain's next step starts without a wake-up, a poll or a commit of its own.
 */
export function handOff(b: StepBuilder, owner: string, limit: number): void {
  if (limit <= 0 || b.plan.status !== 'running') return;
  for (const id of b.newlyReady().slice(0, limit)) b.claim(id, owner);
}

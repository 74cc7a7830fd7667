import { ToolError } from '../errors/errors.js';
import { executeNode } from '../engine/execute-node.js';
import { resolveReferences } from '../engine/resolve-input.js';
import { nextRetryDelay, retryPolicy, type RetryDefaults } from '../engine/retry-policy.js';
import { findReferences } from '../model/references.js';
import type { AttemptOutcome, ClaimedNode, Store } from '../store/types.js';
import type { ToolCatalogue } from '../tools/types.js';

/** Why a worker aborted an attempt: these end in a release, not a failure. */
export class AttemptAborted extends Error {
  constructor(readonly why: 'shutdown' | 'lease lost') {
    super(why === 'shutdown' ? 'worker shutting down' : 'lease lost to another worker');
  }
}

export interface RunClaimDeps {
  store: Store;
  tools: ToolCatalogue;
  retryDefaults: RetryDefaults;
  log: (planId: string, nodeId: string, message: string) => void;
}

/**
 * Runs one claimed node and says what became of the attempt. Confirm nodes ask their question;
 * function and multiFunction nodes run their tools; a failure is retried after a backoff while the
 * node's `retries` allow and the error is retryable.
 */
export async function runClaim(claim: ClaimedNode, signal: AbortSignal, deps: RunClaimDeps): Promise<AttemptOutcome> {
  if (claim.type === 'confirm') return askQuestion(claim, deps.store);
  if (claim.type !== 'function' && claim.type !== 'multiFunction') {
    return { status: 'failed', error: `node type ${claim.type} cannot run on this worker` };
  }
  const policy = retryPolicy(claim.attributes, claim.planAttributes, deps.retryDefaults);
  try {
    const upstream = await fetchReferencedNodes(claim, deps.store);
    const { output } = await executeNode(
      { id: claim.nodeId, type: claim.type, attributes: claim.attributes },
      {
        planId: claim.planId,
        attempt: claim.attempts,
        signal,
        log: (message) => deps.log(claim.planId, claim.nodeId, message),
        params: claim.params,
        nodes: (id) => upstream.get(id),
        ...(policy.timeoutMs !== undefined ? { timeoutMs: policy.timeoutMs } : {}),
      },
      deps.tools,
    );
    return { status: 'done', output };
  } catch (error) {
    if (signal.aborted && signal.reason instanceof AttemptAborted) return { status: 'released' };
    const toolError = error instanceof ToolError ? error : new ToolError(String(error), { cause: error });
    const canRetry = toolError.retryable && claim.attempts <= policy.retries;
    const message = canRetry
      ? `${toolError.message} (attempt ${claim.attempts} of ${policy.retries + 1}; retrying)`
      : toolError.message;
    return canRetry
      ? { status: 'failed', error: message, retryAt: new Date(Date.now() + nextRetryDelay(claim.attempts, policy.baseDelayMs)) }
      : { status: 'failed', error: message };
  }
}

/** A confirm node asks its question, with its references resolved, and waits for a person. */
async function askQuestion(claim: ClaimedNode, store: Store): Promise<AttemptOutcome> {
  const question = claim.attributes.question;
  if (!question || !question.includes('{{')) return { status: 'awaiting_input' };
  const upstream = await fetchReferencedNodes(claim, store, [question]);
  try {
    return { status: 'awaiting_input', question: resolveReferences(question, { params: claim.params, nodes: (id) => upstream.get(id) }) };
  } catch {
    return { status: 'awaiting_input' }; // an unresolved reference leaves the question as written
  }
}

/** Reads only the upstream nodes the inputs refer to (no DOT parsing, no whole-plan read). */
async function fetchReferencedNodes(
  claim: ClaimedNode,
  store: Store,
  texts = [claim.attributes.toolInput, claim.attributes.toolCalls],
): Promise<Map<string, { output?: string; answer?: string }>> {
  const ids = new Set<string>();
  for (const text of texts) {
    if (!text || !text.includes('{{')) continue;
    for (const ref of findReferences(text)) if (ref.kind === 'nodes') ids.add(ref.node);
  }
  const found = new Map<string, { output?: string; answer?: string }>();
  await Promise.all(
    [...ids].map(async (id) => {
      const node = await store.getNode(claim.planId, id);
      found.set(id, { ...(node.output !== undefined ? { output: node.output } : {}), ...(node.answer !== undefined ? { answer: node.answer } : {}) });
    }),
  );
  return found;
}

import type { AttemptResult } from '../engine/attempts.js';
import { retryPolicy } from '../engine/retry-policy.js';
import { ToolError } from '../errors/errors.js';
import type { AttemptAbort } from '../execute/attempt-abort.js';
import { executeNode } from '../execute/execute-node.js';
import { checkOutput, VERIFICATION_FAILED, verifyMode, type Judge, type Judgement } from '../execute/verify.js';
import type { ClaimedNode } from '../store/types.js';
import { AttemptAborted } from './aborted.js';
import type { KindDeps, NodeKind } from './types.js';
import { fetchReferencedNodes, UpstreamUnreachable } from './upstream.js';

/** function and multiFunction nodes run their tools under the node's timeout, then their output is verified. */
async function runTools(claim: ClaimedNode, abort: AttemptAbort, deps: KindDeps): Promise<AttemptResult> {
  if (claim.type !== 'function' && claim.type !== 'multiFunction') throw new Error(`runTools called for a ${claim.type} node`);
  const { timeoutMs } = retryPolicy(claim.attributes, claim.planAttributes, deps.retryDefaults);
  const inputs = [claim.attributes.toolInput, claim.attributes.toolCalls];
  // The resolved input is recorded only when references made it differ from the input as written.
  const ran: { input?: string } = {};
  const onInput = inputs.some((text) => text?.includes('{{')) ? (text: string) => void (ran.input = text) : undefined;
  try {
    const upstream = await fetchReferencedNodes(claim, deps.plans, inputs);
    const { output } = await executeNode(
      { id: claim.nodeId, type: claim.type, attributes: claim.attributes },
      {
        planId: claim.planId,
        attempt: claim.attempts,
        abort,
        log: (message) => deps.log({ planId: claim.planId, nodeId: claim.nodeId, attempt: claim.attempts, message }),
        params: claim.params,
        nodes: (id) => upstream.get(id),
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        ...(onInput ? { onInput } : {}),
      },
      deps.tools,
    );
    const judgement = await verify(claim, output, abort, deps.judge);
    if (!judgement.ok) return { kind: 'failed', error: `${VERIFICATION_FAILED}: ${judgement.reasoning}`, retryable: false, ...ran };
    return { kind: 'done', output, ...ran };
  } catch (error) {
    if (error instanceof UpstreamUnreachable) throw error;
    if (abort.aborted && abort.reason instanceof AttemptAborted) return { kind: 'released' };
    const toolError = error instanceof ToolError ? error : new ToolError(String(error), { cause: error });
    return { kind: 'failed', error: toolError.message, retryable: toolError.retryable, ...ran };
  }
}

/** The node's output checked as its `verify` attribute says. */
async function verify(claim: ClaimedNode, output: string, abort: AttemptAbort, judge: Judge | undefined): Promise<Judgement> {
  const mode = verifyMode(claim.attributes, claim.planAttributes);
  const rule = checkOutput(mode, output);
  if (rule) return rule;
  if (!judge) return { ok: false, reasoning: 'verify="llm" but this worker has no LLM endpoint configured (OPENAI_BASE_URL / OPENAI_API_KEY)' };
  return judge(claim, output, abort.signal);
}

export const functionKind: NodeKind = { type: 'function', run: runTools };
/** Several tools at once (seed 004: one round of ReAct reasoning may yield several tool calls). */
export const multiFunctionKind: NodeKind = { type: 'multiFunction', run: runTools };

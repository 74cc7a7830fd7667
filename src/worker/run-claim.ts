import type { AttemptResult } from '../engine/attempts.js';
import { retryPolicy, type RetryDefaults } from '../engine/retry-policy.js';
import { ToolError } from '../errors/errors.js';
import { executeNode } from '../execute/execute-node.js';
import { checkOutput, VERIFICATION_FAILED, verifyMode, type Judge, type Judgement } from '../execute/verify.js';
import { resolveReferences } from '../execute/resolve-input.js';
import { findReferences } from '../model/references.js';
import type { ClaimedNode, PlanStore } from '../store/types.js';
import { isDatabaseUnreachable } from '../store/unreachable.js';
import type { ToolCatalogue } from '../tools/types.js';
import type { ToolLog } from './tool-logs.js';

/** Why a worker aborted an attempt: these end in a release, not a failure. */
export class AttemptAborted extends Error {
  constructor(readonly why: 'shutdown' | 'lease lost') {
    super(why === 'shutdown' ? 'worker shutting down' : 'lease lost to another worker');
  }
}

export interface RunClaimDeps {
  plans: PlanStore;
  tools: ToolCatalogue;
  retryDefaults: RetryDefaults;
  /** A tool's `ctx.log` line. */
  log: (entry: ToolLog) => void;
  /** Judges outputs of nodes with verify="llm"; without it such nodes fail their verification. */
  judge?: Judge;
}

/**
 * Runs one claimed node and says how the attempt ended; what that does to the node (a retry after a
 * backoff, a failure, the plan going on) is the engine's to decide. Confirm nodes ask their question;
 * function and multiFunction nodes run their tools under the node's timeout.
 */
export async function runClaim(claim: ClaimedNode, signal: AbortSignal, deps: RunClaimDeps): Promise<AttemptResult> {
  try {
    return await run(claim, signal, deps);
  } catch (error) {
    // The upstream outputs could not be read (the database is away): nothing ran, the node goes back to ready uncounted.
    if (error instanceof UpstreamUnreachable) return { kind: 'released' };
    throw error;
  }
}

async function run(claim: ClaimedNode, signal: AbortSignal, deps: RunClaimDeps): Promise<AttemptResult> {
  if (claim.type === 'confirm') return askQuestion(claim, deps.plans);
  if (claim.type !== 'function' && claim.type !== 'multiFunction') {
    return { kind: 'failed', error: `node type ${claim.type} cannot run on this worker`, retryable: false };
  }
  const { timeoutMs } = retryPolicy(claim.attributes, claim.planAttributes, deps.retryDefaults);
  // The resolved input is recorded only when references made it differ from the input as written.
  const ran: { input?: string } = {};
  const onInput = [claim.attributes.toolInput, claim.attributes.toolCalls].some((text) => text?.includes('{{'))
    ? (text: string) => void (ran.input = text)
    : undefined;
  try {
    const upstream = await fetchReferencedNodes(claim, deps.plans);
    const { output } = await executeNode(
      { id: claim.nodeId, type: claim.type, attributes: claim.attributes },
      {
        planId: claim.planId,
        attempt: claim.attempts,
        signal,
        log: (message) => deps.log({ planId: claim.planId, nodeId: claim.nodeId, attempt: claim.attempts, message }),
        params: claim.params,
        nodes: (id) => upstream.get(id),
        ...(timeoutMs !== undefined ? { timeoutMs } : {}),
        ...(onInput ? { onInput } : {}),
      },
      deps.tools,
    );
    const judgement = await verify(claim, output, signal, deps.judge);
    if (!judgement.ok) return { kind: 'failed', error: `${VERIFICATION_FAILED}: ${judgement.reasoning}`, retryable: false, ...ran };
    return { kind: 'done', output, ...ran };
  } catch (error) {
    if (error instanceof UpstreamUnreachable) throw error;
    if (signal.aborted && signal.reason instanceof AttemptAborted) return { kind: 'released' };
    const toolError = error instanceof ToolError ? error : new ToolError(String(error), { cause: error });
    return { kind: 'failed', error: toolError.message, retryable: toolError.retryable, ...ran };
  }
}

/** The node's output checked as its `verify` attribute says. */
async function verify(claim: ClaimedNode, output: string, signal: AbortSignal, judge: Judge | undefined): Promise<Judgement> {
  const mode = verifyMode(claim.attributes, claim.planAttributes);
  const rule = checkOutput(mode, output);
  if (rule) return rule;
  if (!judge) return { ok: false, reasoning: 'verify="llm" but this worker has no LLM endpoint configured (OPENAI_BASE_URL / OPENAI_API_KEY)' };
  return judge(claim, output, signal);
}

/** A confirm node asks its question, with its references resolved, and waits for a person. */
async function askQuestion(claim: ClaimedNode, plans: PlanStore): Promise<AttemptResult> {
  const question = claim.attributes.question;
  if (!question || !question.includes('{{')) return { kind: 'asked' };
  const upstream = await fetchReferencedNodes(claim, plans, [question]);
  try {
    return { kind: 'asked', question: resolveReferences(question, { params: claim.params, nodes: (id) => upstream.get(id) }) };
  } catch {
    return { kind: 'asked' }; // an unresolved reference leaves the question as written
  }
}

/** Reads only the upstream nodes the inputs refer to (no DOT parsing, no whole-plan read). */
async function fetchReferencedNodes(
  claim: ClaimedNode,
  plans: PlanStore,
  texts = [claim.attributes.toolInput, claim.attributes.toolCalls],
): Promise<Map<string, { output?: string; answer?: string; status: string }>> {
  const ids = new Set<string>();
  for (const text of texts) {
    if (!text || !text.includes('{{')) continue;
    for (const ref of findReferences(text)) if (ref.kind === 'nodes') ids.add(ref.node);
  }
  const found = new Map<string, { output?: string; answer?: string; status: string }>();
  if (ids.size === 0) return found;
  await Promise.all(
    [...ids].map(async (id) => {
      const node = await plans.node(claim.planId, id);
      found.set(id, {
        status: node.status,
        ...(node.output !== undefined ? { output: node.output } : {}),
        ...(node.answer !== undefined ? { answer: node.answer } : {}),
      });
    }),
  ).catch((error: unknown) => {
    throw isDatabaseUnreachable(error) ? new UpstreamUnreachable(error) : error;
  });
  return found;
}

/** The database could not be reached to read a node's upstream outputs. */
class UpstreamUnreachable extends Error {
  constructor(cause: unknown) {
    super(`the upstream outputs could not be read: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

import type { LlmCallInput, LlmCallRecord, LlmOutcome, LlmPurpose } from '../store/index.js';
import type { LlmResult } from './client.js';
import type { ChatMessage } from './prompt.js';

/** What a call to the model was for: the plan (and node), the purpose, the messages sent. */
export interface CallContext {
  planId: string;
  nodeId?: string;
  purpose: LlmPurpose;
  messages: readonly ChatMessage[];
}

/** The most tokens one call is counted with: no model reads or writes more; a larger `usage` is clamped to it. */
export const MAX_CALL_TOKENS = 10_000_000;

/**
 * A token count the endpoint reported in `usage`, as dotplan counts it: a whole number from 0 to
 * MAX_CALL_TOKENS as it is; a larger number (1e308, Infinity) clamped; anything else — a string,
 * a fraction, a negative number, nothing — replaced by an estimate from the text (4 characters a
 * token), so that a plan's token budget still counts the call and the record always stores.
 */
export function usageCount(reported: unknown, text: string): number {
  if (typeof reported === 'number' && reported >= 0 && (Number.isInteger(reported) || reported === Infinity)) return Math.min(reported, MAX_CALL_TOKENS);
  return Math.min(Math.ceil(text.length / 4), MAX_CALL_TOKENS);
}

/** The record of a call that got a reply (`plan calls`), with the problems of a refused one. */
export function answeredCall(
  context: CallContext,
  call: LlmResult<unknown>,
  outcome: Exclude<LlmOutcome, 'error'>,
  problems: readonly unknown[] = [],
): LlmCallInput {
  return {
    ...base(context),
    model: call.model,
    reply: call.text,
    promptTokens: call.promptTokens,
    completionTokens: call.completionTokens,
    ms: call.ms,
    outcome,
    ...(problems.length > 0 ? { diagnostics: problems } : {}),
  };
}

/** The record of a call whose endpoint failed after the client's retries. */
export function failedCall(context: CallContext, model: string, startedAt: number, error: unknown): LlmCallInput {
  const message = error instanceof Error ? error.message : String(error);
  return {
    ...base(context),
    model,
    promptTokens: 0,
    completionTokens: 0,
    ms: Date.now() - startedAt,
    outcome: 'error',
    diagnostics: [{ code: 'LLM_FAILED', severity: 'error', message }],
  };
}

function base(context: CallContext) {
  return {
    planId: context.planId,
    ...(context.nodeId !== undefined ? { nodeId: context.nodeId } : {}),
    purpose: context.purpose,
    prompt: JSON.stringify(context.messages),
  };
}

/** A stored call as `plan calls --json` and the run report show it (the report counts the problems instead). */
export function callView(c: LlmCallRecord) {
  return {
    purpose: c.purpose,
    ...(c.nodeId !== undefined ? { node: c.nodeId } : {}),
    model: c.model,
    promptTokens: c.promptTokens,
    completionTokens: c.completionTokens,
    ms: c.ms,
    outcome: c.outcome,
    ...(c.diagnostics !== undefined ? { diagnostics: c.diagnostics } : {}),
    at: c.at.toISOString(),
  };
}

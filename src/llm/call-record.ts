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

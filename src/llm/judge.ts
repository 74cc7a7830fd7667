import { z } from 'zod';
import type { Judge } from '../execute/verify.js';
import type { LlmQueue } from '../store/index.js';
import type { LlmClient } from './client.js';
import { answeredCall, failedCall } from './call-record.js';
import { verifyMessages } from './prompt.js';

/** The verifier's structured judgement (seeds 000/001). */
export const judgementSchema = z.object({ is_successful: z.boolean(), reasoning: z.string() });

/**
 * verify="llm": the model judges a node's output against the node's label and purpose, through
 * structured output; each call is recorded against the plan (purpose `verify`, with the node).
 */
export function llmJudge(client: LlmClient, llm: LlmQueue, resultChars: number): Judge {
  return async (step, output, signal) => {
    const messages = verifyMessages(step.planAttributes.goal, { id: step.nodeId, ...step.attributes }, output, resultChars);
    const started = Date.now();
    const context = { planId: step.planId, nodeId: step.nodeId, purpose: 'verify' as const, messages };
    try {
      const call = await client.judge(messages, judgementSchema, 'judgement', { signal });
      await llm.record(answeredCall(context, call, 'ok'));
      return { ok: call.value.is_successful, reasoning: call.value.reasoning };
    } catch (error) {
      await llm.record(failedCall(context, client.model, started, error));
      throw error;
    }
  };
}

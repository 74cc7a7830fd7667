import { z } from 'zod';
import type { Judge } from '../execute/verify.js';
import type { LlmQueue } from '../store/index.js';
import type { LlmClient } from './client.js';
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
    try {
      const call = await client.judge(messages, judgementSchema, 'judgement', { signal });
      await llm.record({
        planId: step.planId,
        nodeId: step.nodeId,
        purpose: 'verify',
        model: call.model,
        prompt: JSON.stringify(messages),
        reply: call.text,
        promptTokens: call.promptTokens,
        completionTokens: call.completionTokens,
        ms: call.ms,
        outcome: 'ok',
      });
      return { ok: call.value.is_successful, reasoning: call.value.reasoning };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      await llm.record({
        planId: step.planId,
        nodeId: step.nodeId,
        purpose: 'verify',
        model: client.model,
        prompt: JSON.stringify(messages),
        promptTokens: 0,
        completionTokens: 0,
        ms: Date.now() - started,
        outcome: 'error',
        diagnostics: [{ code: 'LLM_FAILED', severity: 'error', message }],
      });
      throw error;
    }
  };
}

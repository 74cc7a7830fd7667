import { VERIFY } from '../model/attributes.js';
import type { Attributes } from '../model/types.js';

/**
 * The verifier of seeds 000/001 (Planner → Executor → Verifier): after a function node's tool
 * returned, its output is checked as the node's `verify` attribute says (the plan's `verify` graph
 * attribute is the default): `none`, `nonEmpty` (not blank), `json` (parses as JSON) or `llm` (the
 * model judges it against the node's purpose). A failed judgement fails the attempt with the
 * reasoning as the error — `verification failed: ...` — which a reflection plan's next rewrite sees.
 */
export type VerifyMode = (typeof VERIFY)[number];

export interface Judgement {
  ok: boolean;
  reasoning: string;
}

/** Asks the model whether the output does what the node is for. */
export type Judge = (
  step: { planId: string; nodeId: string; attributes: Attributes; planAttributes: Attributes },
  output: string,
  signal: AbortSignal,
) => Promise<Judgement>;

export const VERIFICATION_FAILED = 'verification failed';

export function verifyMode(node: Attributes, plan: Attributes): VerifyMode {
  const mode = node.verify ?? plan.verify ?? 'none';
  return (VERIFY as readonly string[]).includes(mode) ? (mode as VerifyMode) : 'none';
}

/** The rule-based checks; `llm` is the judge's (undefined here). */
export function checkOutput(mode: VerifyMode, output: string): Judgement | undefined {
  if (mode === 'nonEmpty') return output.trim() ? { ok: true, reasoning: 'the output is not empty' } : { ok: false, reasoning: 'the output is empty' };
  if (mode === 'json') {
    try {
      JSON.parse(output);
      return { ok: true, reasoning: 'the output is JSON' };
    } catch (error) {
      return { ok: false, reasoning: `the output is not JSON (${(error as Error).message})` };
    }
  }
  if (mode === 'none') return { ok: true, reasoning: 'not verified' };
  return undefined;
}

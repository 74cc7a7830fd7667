/**
 * Issue 14's acceptance property: over random sequences of endpoint behaviours (valid, refused,
 * garbage, deep, huge, slow, error, bad usage), a reflection plan served by a real worker through the
 * real client always ends — completed or failed with the reason — every request is one recorded call,
 * failures in a row never pass maxRewriteAttempts, and each one is followed by its backoff before the
 * next request.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testBackend } from '../support/db.js';
import {
  BEHAVIOURS,
  MAX_REWRITE_ATTEMPTS,
  REPLIES,
  RETRY_DELAY_MS,
  completions,
  createGoal,
  openRig,
  runUntilIdle,
  serve,
  type Rig,
} from './llm-failures-setup.js';

describe(`any sequence of endpoint behaviours stays within the bounds (${testBackend()})`, () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await openRig();
  });
  afterAll(async () => {
    await rig?.close();
  });

  it('ends every plan, records every request, and backs off after every failure', { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...BEHAVIOURS), { minLength: 1, maxLength: 5 }), async (behaviours) => {
        const server = await serve({ replies: behaviours.map((b) => REPLIES[b]) });
        try {
          const planId = await createGoal(rig.dotplan, behaviours.join(', '));
          await runUntilIdle(rig.dotplan, server);
          const requests = completions(server);
          const calls = await rig.dotplan.calls(planId);
          const plan = await rig.dotplan.plan(planId);

          expect(['completed', 'failed']).toContain(plan.status);
          expect(calls).toHaveLength(requests.length); // no exchange left unrecorded
          expect(requests.length).toBeLessThanOrEqual(behaviours.length + MAX_REWRITE_ATTEMPTS); // once the script is spent, the server's 500s count too
          expect(Number.isSafeInteger(plan.tokensUsed ?? 0)).toBe(true);

          let inRow = 0;
          calls.forEach((call, i) => {
            const failed = call.outcome === 'refused' || call.outcome === 'error';
            inRow = failed ? inRow + 1 : 0;
            expect(inRow).toBeLessThanOrEqual(MAX_REWRITE_ATTEMPTS);
            const next = requests[i + 1];
            // Half the exponential backoff at least (equal jitter), before the next request for the plan.
            if (failed && next) expect(Date.parse(next.at) - Date.parse(requests[i]!.at)).toBeGreaterThanOrEqual((RETRY_DELAY_MS * 2 ** (inRow - 1)) / 2 - 5);
          });
          if (plan.status === 'failed') {
            expect(inRow).toBe(MAX_REWRITE_ATTEMPTS);
            expect(plan.error).toMatch(/maxRewriteAttempts=3/);
          } else {
            expect(calls.at(-1)).toMatchObject({ purpose: 'answer', outcome: 'ok' });
          }
        } finally {
          await server.close();
        }
      }),
      { numRuns: 8 },
    );
  });
});

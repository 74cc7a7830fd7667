import type { AttemptResult } from '../engine/attempts.js';
import type { AttemptAbort } from '../execute/attempt-abort.js';
import { nodeKind } from '../kinds/registry.js';
import type { KindDeps } from '../kinds/types.js';
import { UpstreamUnreachable } from '../kinds/upstream.js';
import type { ClaimedNode } from '../store/types.js';

export { AttemptAborted } from '../kinds/aborted.js';
export type RunClaimDeps = KindDeps;

/**
 * Runs one claimed node by its kind (src/kinds/registry.ts) and says how the attempt ended; what
 * that does to the node (a retry after a backoff, a failure, the plan going on) is the engine's to decide.
 */
export async function runClaim(claim: ClaimedNode, abort: AttemptAbort, deps: RunClaimDeps): Promise<AttemptResult> {
  const kind = nodeKind(claim.type);
  if (!kind) return { kind: 'failed', error: `node type ${claim.type} cannot run on this worker`, retryable: false };
  try {
    return await kind.run(claim, abort, deps);
  } catch (error) {
    // The upstream outputs could not be read (the database is away): nothing ran, the node goes back to ready uncounted.
    if (error instanceof UpstreamUnreachable) return { kind: 'released' };
    throw error;
  }
}

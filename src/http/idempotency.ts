import { createHash } from 'node:crypto';
import { ConflictError, InvalidArgumentError } from '../errors/errors.js';
import type { CreatedPlan, Dotplan } from '../operations/dotplan.js';

/**
 * A create request made at most once per `Idempotency-Key` (per token): the first request makes the
 * plan; a retry with the same key and body gets that plan back (`replayed`), one with another body
 * is refused (422), and one that arrives while the first is still being made is a 409 to retry.
 */
export async function createOnce(
  dotplan: Dotplan,
  request: { key: string; by: string; body: unknown },
  make: () => Promise<CreatedPlan>,
): Promise<{ plan: CreatedPlan; replayed: boolean }> {
  const hash = createHash('sha256').update(JSON.stringify(request.body)).digest('hex');
  const keys = dotplan.store.requestKeys;
  const claim = await keys.claim(request.by, request.key, hash);
  switch (claim.state) {
    case 'done':
      return { plan: { ...(await dotplan.plan(claim.planId)), warnings: [] }, replayed: true };
    case 'mismatch':
      throw InvalidArgumentError.about('Idempotency-Key', 'was used before with a different body; use a new key for a new plan');
    case 'busy':
      throw new ConflictError('A request with this Idempotency-Key is still being handled; retry in a moment.');
    case 'new':
      break;
  }
  try {
    const plan = await make();
    await keys.settle(request.by, request.key, plan.id);
    return { plan, replayed: false };
  } catch (error) {
    await keys.release(request.by, request.key);
    throw error;
  }
}

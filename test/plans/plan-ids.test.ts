/**
 * Plan ids (src/store/ids.ts): `p_`, the creation time in base 36, 6 base-36 digits — in the order this
 * process made them (ULID's monotonic mode within a millisecond), distinct, random from one millisecond to the next.
 */
import { describe, expect, it } from 'vitest';
import { newPlanId } from '../../src/store/ids.js';

describe('plan ids', () => {
  // Later than any id this process made before: the time part is then `now` itself.
  const now = Date.now() + 86_400_000;

  it('are p_ with 15 base-36 digits and sort in the order they were made, within a millisecond too', () => {
    const ids = Array.from({ length: 1000 }, () => newPlanId(now));
    for (const id of ids) expect(id).toMatch(/^p_[0-9a-z]{15}$/);
    expect(new Set(ids).size).toBe(1000);
    expect([...ids].sort()).toEqual(ids);
    for (const id of ids) expect(id.slice(2, 11)).toBe(now.toString(36).padStart(9, '0'));
    expect(newPlanId(now + 1) > ids.at(-1)!).toBe(true);
    // A clock that goes back does not put an id before the ones already made.
    const before = newPlanId(now + 1);
    expect(newPlanId(now - 60_000) > before).toBe(true);
  });

  it('start each millisecond from random digits: over many, every digit appears at each position', () => {
    const ids = Array.from({ length: 2000 }, (_, i) => newPlanId(now + 10_000 + i));
    for (let position = 11; position < 17; position++) expect(new Set(ids.map((id) => id[position])).size).toBe(36);
  });
});

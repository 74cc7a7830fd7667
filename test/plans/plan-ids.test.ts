/** Plan ids (src/store/ids.ts): `p_`, the creation time in base 36, 6 random base-36 digits — sortable by creation time, distinct. */
import { describe, expect, it } from 'vitest';
import { newPlanId } from '../../src/store/ids.js';

describe('plan ids', () => {
  it('are p_ with 15 base-36 digits, sort by creation time, and differ when made in the same millisecond', () => {
    const now = Date.UTC(2026, 10, 27);
    const ids = Array.from({ length: 1000 }, () => newPlanId(now));
    for (const id of ids) expect(id).toMatch(/^p_[0-9a-z]{15}$/);
    expect(new Set(ids).size).toBeGreaterThan(990); // 36^6 ≈ 2.2e9 values: a clash among 1,000 is very unlikely
    expect(newPlanId(now) < newPlanId(now + 1)).toBe(true);
    expect(newPlanId(now).slice(2, 11)).toBe(now.toString(36).padStart(9, '0'));
    // Every random digit is used: over many ids each of the 36 appears at each position.
    for (let position = 11; position < 17; position++) expect(new Set(ids.map((id) => id[position])).size).toBe(36);
  });
});

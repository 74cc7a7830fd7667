import { randomBytes } from 'node:crypto';

/**
 * Plan ids: `p_` + the creation time in base 36 (9 digits, so ids sort by creation time until the
 * year 5188) + 6 random base-36 digits. Short, URL-safe, sortable.
 */
export function newPlanId(now = Date.now()): string {
  const time = now.toString(36).padStart(9, '0');
  const bytes = randomBytes(6);
  let random = '';
  for (const byte of bytes) random += (byte % 36).toString(36);
  return `p_${time}${random}`;
}

import { randomUUID } from 'node:crypto';

/**
 * Plan ids: `p_` + the creation time in base 36 (9 digits, so ids sort by creation time until the
 * year 5188) + 6 random base-36 digits. Short, URL-safe, sortable. The random digits come from a
 * UUID's first 6 bytes (random in a version 4 UUID): Node draws UUIDs from a buffered pool, where
 * `randomBytes` makes a system call each time — an agent node's child is a plan made on a worker's path.
 */
export function newPlanId(now = Date.now()): string {
  const time = now.toString(36).padStart(9, '0');
  const uuid = randomUUID(); // xxxxxxxx-xxxx-4xxx-…: the 12 hex digits around the first dash are random
  const hex = uuid.slice(0, 8) + uuid.slice(9, 13);
  let random = '';
  for (let i = 0; i < 12; i += 2) random += (parseInt(hex.slice(i, i + 2), 16) % 36).toString(36);
  return `p_${time}${random}`;
}

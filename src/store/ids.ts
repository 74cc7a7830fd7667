import { randomUUID } from 'node:crypto';

/** 36^6: the values of the 6 random base-36 digits. */
const RANDOM_VALUES = 36 ** 6;

/** The last id this process made: its time and its random part (as a number). */
let last = { time: 0, random: 0 };

/**
 * Plan ids: `p_` + the creation time in base 36 (9 digits, so ids sort by creation time until the
 * year 5188) + 6 base-36 digits. Short, URL-safe, sortable. Ids this process makes in one millisecond
 * (or after its clock went back) keep the time of the one before and count its last digits up, as
 * ULID's monotonic mode does: a process's ids sort in the order it made them, so plans made in a burst
 * list in that order. A new millisecond starts from random digits, taken from a UUID's first 6 bytes
 * (random in a version 4 UUID): Node draws UUIDs from a buffered pool, where `randomBytes` makes a system
 * call each time — an agent node's child is a plan made on a worker's path.
 */
export function newPlanId(now = Date.now()): string {
  let time = now;
  let random: number;
  if (time <= last.time && last.random + 1 < RANDOM_VALUES) {
    time = last.time;
    random = last.random + 1;
  } else {
    if (time <= last.time) time = last.time + 1; // this millisecond's values are spent: the next one
    random = randomValue();
  }
  last = { time, random };
  return `p_${time.toString(36).padStart(9, '0')}${random.toString(36).padStart(6, '0')}`;
}

/** A random value below RANDOM_VALUES: 6 base-36 digits, each a random byte of a UUID modulo 36. */
function randomValue(): number {
  const uuid = randomUUID(); // xxxxxxxx-xxxx-4xxx-…: the 12 hex digits around the first dash are random
  const hex = uuid.slice(0, 8) + uuid.slice(9, 13);
  let value = 0;
  for (let i = 0; i < 12; i += 2) value = value * 36 + (parseInt(hex.slice(i, i + 2), 16) % 36);
  return value;
}

/**
 * How the run report's renderers show values, whatever the format: long values cut with a note
 * saying how much is left out and where to read it whole, times to the second, durations in the
 * short form messages use. The data (`RunReport`, the json format) keeps every value whole.
 */
import { formatDuration } from '../model/duration.js';
import { plural } from '../model/plural.js';

/** Characters of a value the report shows before cutting it. */
export const SHOWN_CHARS = 300;

export interface Shown {
  text: string;
  /** Characters left out (0: the whole value). */
  more: number;
}

/** The first `limit` characters (code points: an emoji is not split) and how many are left out. */
export function cut(value: string, limit = SHOWN_CHARS): Shown {
  const chars = Array.from(value);
  if (chars.length <= limit) return { text: value, more: 0 };
  return { text: chars.slice(0, limit).join(''), more: chars.length - limit };
}

/** The note after a cut value: `… (N more characters; see `<command>`)`. */
export function moreNote(more: number, command: string): string {
  return `… (${plural(more, 'more character')}; see \`${command}\`)`;
}

/** Where each cut value can be read whole. */
export const wholeValues = {
  node: (planId: string) => `dotplan plan show ${planId} --format json`,
  /** A node's input as it ran (references resolved) is whole in the report's own data. */
  input: (planId: string) => `dotplan plan report ${planId} --format json`,
  event: (planId: string) => `dotplan plan events ${planId} --json`,
  revision: (planId: string) => `dotplan plan revisions ${planId} --json`,
};

/** `2026-11-23T09:41:09.123Z` → `2026-11-23 09:41:09.123 UTC` (steps of a plan often come within a second). */
export function formatTime(iso: string): string {
  return iso.replace('T', ' ').replace(/Z$/, ' UTC');
}

/** A node's attempts, and how many times it ran in all when an operator's retry started its count afresh. */
export function formatAttempts(attempts: number, runs: number): string {
  return runs > attempts ? `${attempts} (${runs} runs in all)` : String(attempts);
}

export function formatMs(ms: number | undefined): string {
  return ms === undefined ? '' : formatDuration(ms);
}

/** The plan's total duration, saying when it is not over yet. */
export function planDuration(durationMs: number, finished: boolean): string {
  return finished ? formatDuration(durationMs) : `${formatDuration(durationMs)} so far (not finished)`;
}

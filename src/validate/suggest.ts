/** Nearest-match suggestions for typos in types, statuses, tool codes, node ids and parameter names. */

export function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = prev[j]!;
      prev[j] = Math.min(above + 1, prev[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return prev[b.length]!;
}

/** Candidates ordered nearest first (ignoring case), at most `limit`. */
export function nearest(value: string, candidates: Iterable<string>, limit = 5): string[] {
  const lower = value.toLowerCase();
  return [...new Set(candidates)]
    .map((candidate) => ({ candidate, distance: editDistance(lower, candidate.toLowerCase()) }))
    .sort((x, y) => x.distance - y.distance || x.candidate.localeCompare(y.candidate))
    .slice(0, limit)
    .map((x) => x.candidate);
}

/** The one candidate close enough to be what was meant, if any: the nearest (ties: the first in locale order), in one pass. */
export function closest(value: string, candidates: Iterable<string>): string | undefined {
  const lower = value.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance < bestDistance || (distance === bestDistance && candidate.localeCompare(best!) < 0)) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(best.length / 3)) ? best : undefined;
}

/** A fix text, led by `did you mean "x"?` when a candidate is close to the bad value. */
export function suggestFix(value: string, candidates: Iterable<string>, fix: string): string {
  return withSuggestion(closest(value, candidates), fix);
}

/**
 * How many distinct unknown values of one kind get a did-you-mean in one validation. Each one is compared with every
 * candidate, so N unknown node ids among N nodes would cost N² comparisons (a reply with 20,000 references to unknown
 * nodes took minutes); past the first few the fix is given without the guess.
 */
export const SUGGESTION_BUDGET = 20;

/** `suggestFix` against one candidate list for many values: each value compared once, at most `budget` values compared. */
export function suggester(candidates: Iterable<string>, budget: number = SUGGESTION_BUDGET): (value: string, fix: string) => string {
  const list = [...new Set(candidates)];
  const guesses = new Map<string, string | undefined>();
  return (value, fix) => {
    if (!guesses.has(value)) {
      if (guesses.size >= budget) return fix;
      guesses.set(value, closest(value, list));
    }
    return withSuggestion(guesses.get(value), fix);
  };
}

function withSuggestion(best: string | undefined, fix: string): string {
  return best === undefined ? fix : `did you mean "${best}"? Otherwise ${fix}`;
}

/** Nearest-match suggestions for typos in types, statuses, tool codes and node ids. */

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

/** The one candidate close enough to be what was meant, if any. */
export function closest(value: string, candidates: Iterable<string>): string | undefined {
  const [best] = nearest(value, candidates, 1);
  if (best === undefined) return undefined;
  const distance = editDistance(value.toLowerCase(), best.toLowerCase());
  return distance <= Math.max(2, Math.floor(best.length / 3)) ? best : undefined;
}

/** A fix text, led by `did you mean "x"?` when a candidate is close to the bad value. */
export function suggestFix(value: string, candidates: Iterable<string>, fix: string): string {
  const best = closest(value, candidates);
  return best === undefined ? fix : `did you mean "${best}"? Otherwise ${fix}`;
}

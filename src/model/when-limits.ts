/**
 * How complex a `when` regular expression may be. RE2 matches in time linear in the value, but the
 * factor is the pattern's: each copy of a counted repetition is compiled out, and each unbounded
 * repetition (`*`, `+`, `{n,}`) inside a counted one stays alive along the whole value —
 * `/(.*a){1000}/` on a 150 KB output held a worker for 31 s deciding one edge. So a pattern is
 * refused when a plan is validated (the engine still reads plans stored before) if:
 * - its compiled program has more than `programSize` instructions (a repetition `{n}` copies its
 *   group n times, so this bounds counted repetitions too), or
 * - it keeps more than `openRepeats` unbounded repetitions alive at once: each `*`, `+` or `{n,}`
 *   counts once, times the upper bound of every counted repetition around it (`/(.*a){10}/` is 10,
 *   `/.*a.*b/` is 2).
 * With these, deciding an edge on a 1 MB value takes well under a second on an idle machine.
 */
export const WHEN_PATTERN_LIMITS = { programSize: 1000, openRepeats: 10 } as const;

/** Why a pattern that RE2 compiled is over a limit, or undefined when it is within them. */
export function patternOverLimits(source: string, programSize: number): string | undefined {
  if (programSize > WHEN_PATTERN_LIMITS.programSize) {
    return `the regular expression compiles to ${programSize} instructions, more than the limit of ${WHEN_PATTERN_LIMITS.programSize} (a counted repetition {n} copies its group n times)`;
  }
  const open = openRepeats(source);
  if (open > WHEN_PATTERN_LIMITS.openRepeats) {
    return `the regular expression repeats unbounded parts (*, + or {n,}) inside counted repetitions ${open} times over, more than the limit of ${WHEN_PATTERN_LIMITS.openRepeats}`;
  }
  return undefined;
}

const COUNTED = /\{(\d+)(?:(,)(\d*))?\}/y;

/**
 * The weight described above, from the pattern text (which RE2 has already accepted): one linear
 * pass with a stack of groups. Conservative where it cannot tell (alternatives add up).
 */
export function openRepeats(source: string): number {
  const stack: number[] = [0]; // weight of the group being read, outermost first
  let last = 0; // weight of the atom just read, which a quantifier applies to
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\') {
      if (source[i + 1] === 'Q') {
        const end = source.indexOf('\\E', i + 2);
        i = end < 0 ? source.length : end + 1;
      } else i++;
      last = 0;
    } else if (c === '[') {
      i = classEnd(source, i);
      last = 0;
    } else if (c === '(') {
      stack.push(0);
      last = 0;
    } else if (c === ')') {
      last = stack.length > 1 ? stack.pop()! : 0;
      stack[stack.length - 1]! += last;
    } else if (c === '*' || c === '+') {
      stack[stack.length - 1]! += 1;
      last = 0;
    } else if (c === '{') {
      COUNTED.lastIndex = i;
      const m = COUNTED.exec(source);
      if (!m) continue; // a literal `{`
      const weight = m[2] !== undefined && m[3] === '' ? last * Number(m[1]) + 1 : last * (Number(m[3] || m[1]) - 1);
      stack[stack.length - 1]! += weight;
      i = COUNTED.lastIndex - 1;
      last = 0;
    } else {
      last = 0;
    }
  }
  return stack.reduce((a, b) => a + b, 0);
}

/** Where a character class `[...]` that opens at `start` closes (a `]` right after `[` or `[^` is a member). */
function classEnd(source: string, start: number): number {
  let i = start + 1;
  if (source[i] === '^') i++;
  if (source[i] === ']') i++;
  for (; i < source.length; i++) {
    if (source[i] === '\\') i++;
    else if (source[i] === '[' && source[i + 1] === ':') {
      const end = source.indexOf(':]', i + 2);
      if (end >= 0) i = end + 1;
    } else if (source[i] === ']') return i;
  }
  return source.length;
}

/**
 * Durations in node and graph attributes (`retryDelay`, `timeout`): `500ms`, `10s`, `5m`, `1h`,
 * `1d`, or a plain number of milliseconds (`250`). Decimals are allowed (`1.5s`); white space
 * around the number and unit is ignored.
 */
const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/;

/** Milliseconds, or undefined when the text is not a duration. */
export function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text.trim());
  if (!match) return undefined;
  const ms = Number(match[1]) * UNITS[match[2] ?? 'ms']!;
  return Number.isFinite(ms) ? Math.round(ms) : undefined;
}

/** `1500` → `1.5s`, `90000` → `1.5m`: the shortest readable form, for messages. */
export function formatDuration(ms: number): string {
  for (const unit of ['d', 'h', 'm', 's'] as const) {
    const size = UNITS[unit]!;
    if (ms >= size) return `${Number((ms / size).toFixed(2))}${unit}`;
  }
  return `${ms}ms`;
}

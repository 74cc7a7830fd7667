import type { EventRecord } from '../store/types.js';

/**
 * One readable line per event: a status move (time, plan, node, from → to, duration of the attempt,
 * why), or another kind (an answer, a notice, a revision: its kind, who and why); or one JSON object
 * per line with `--json` (`eventJson`, plus `durationMs`). Durations are measured from the node's last move to `running` among the
 * events seen.
 */
export class ProgressPrinter {
  private readonly startedAt = new Map<string, number>();

  constructor(
    private readonly write: (line: string) => void,
    private readonly json = false,
  ) {}

  print(event: EventRecord): void {
    const key = `${event.planId}\u0000${event.nodeId ?? ''}`;
    let durationMs: number | undefined;
    if (event.kind !== 'status') {
      // not a move: nothing to time
    } else if (event.to === 'running') this.startedAt.set(key, event.at.getTime());
    else if (event.from === 'running' && this.startedAt.has(key)) {
      durationMs = event.at.getTime() - this.startedAt.get(key)!;
      this.startedAt.delete(key);
    }
    if (this.json) {
      this.write(JSON.stringify({ ...eventJson(event), ...(durationMs !== undefined ? { durationMs } : {}) }));
      return;
    }
    const time = event.at.toISOString().slice(11, 23);
    const subject = event.nodeId !== undefined ? `node ${event.nodeId}` : 'plan';
    const who = event.actor ? `${event.driver} ${event.actor}` : event.driver;
    const move =
      event.kind === 'status'
        ? `${event.from || '∅'} → ${event.to}`
        : `[${event.kind}] by ${who}${event.detail ? ` ${oneLine(JSON.stringify(event.detail))}` : ''}`;
    const took = durationMs !== undefined ? ` (${formatMs(durationMs)})` : '';
    const why = event.reason ? `  ${oneLine(event.reason)}` : '';
    this.write(`${time}  ${event.planId}  ${subject.padEnd(16)}  ${move}${took}${why}`);
  }
}

/** An event as JSON, the same keys wherever it is printed: `plan events --json`, `worker --json`, `demo --json`. */
export function eventJson(event: EventRecord): Record<string, unknown> {
  return {
    id: event.id,
    at: event.at.toISOString(),
    planId: event.planId,
    ...(event.nodeId !== undefined ? { nodeId: event.nodeId } : {}),
    kind: event.kind,
    driver: event.driver,
    ...(event.actor !== undefined ? { actor: event.actor } : {}),
    from: event.from,
    to: event.to,
    ...(event.reason ? { reason: event.reason } : {}),
    ...(event.detail !== undefined ? { detail: event.detail } : {}),
  };
}

export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  return `${Math.floor(ms / 60_000)}m${Math.round((ms % 60_000) / 1000)}s`;
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 120 ? `${line.slice(0, 117)}...` : line;
}

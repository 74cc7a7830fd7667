/** Small text helpers shared by the pages. */

/** `2026-11-27 17:12:05` in the viewer's time zone. */
export function when(iso: string | undefined): string {
  if (iso === undefined) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** `3 s`, `4 min`, `2 h`, `5 d`. */
export function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.round(s / 60)} min`;
  if (s < 86_400) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86_400)} d`;
}

/** One line for an audit-log event: `a: ready → running (claimed by …)`. */
export function eventLine(e: { kind: string; nodeId?: string; from: string; to: string; reason?: string }): string {
  const what = e.nodeId ?? 'plan';
  const move = e.from || e.to ? ` ${e.from || '·'} → ${e.to || '·'}` : '';
  return `${what}:${e.kind === 'status' ? '' : ` ${e.kind}`}${move}${e.reason ? ` — ${e.reason}` : ''}`;
}

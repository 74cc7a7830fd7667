import type { EventInput } from '../engine/step.js';
import { noticeText, type Notice } from './notice.js';
import { sendAll, type SendResult } from './send.js';
import { notifiersFor, type NotifierConfig } from './targets.js';
import { plural } from '../model/plural.js';

/**
 * A worker's notices, sent: printed on its console, then to every notifier the plan's notices go to
 * (all configured ones, or those its `notify` attribute names), each retried on its own. Every
 * delivery and every failure is recorded as a `notice` event, so `plan events` shows who was told
 * what and when. Runs beside the worker, never in its way; `drain` lets a stopping worker finish
 * what is in flight for a while, then abandons the rest.
 */
export interface AnnouncerOptions {
  targets: readonly NotifierConfig[];
  retries: number;
  retryDelayMs: number;
  /** A line on the worker's console. */
  print: (line: string) => void;
  record: (events: EventInput[]) => Promise<void>;
}

export class Announcer {
  readonly #pending = new Set<Promise<void>>();
  readonly #stop = new AbortController();

  constructor(private readonly options: AnnouncerOptions) {}

  /** Sends the notice in the background; the returned promise settles when it is sent and recorded. */
  announce(notice: Notice): Promise<void> {
    const job = this.#send(notice).finally(() => this.#pending.delete(job));
    this.#pending.add(job);
    return job;
  }

  /** Waits up to `maxMs` for notices in flight, then abandons their retries (recorded as such). */
  async drain(maxMs: number): Promise<void> {
    if (this.#pending.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, maxMs)));
    await Promise.race([Promise.all([...this.#pending]), late]);
    clearTimeout(timer);
    this.#stop.abort();
    await Promise.all([...this.#pending]);
  }

  async #send(notice: Notice): Promise<void> {
    const { print, record, retries, retryDelayMs } = this.options;
    print(noticeText(notice));
    const { targets, unknown } = notifiersFor(this.options.targets, notice.notifiers);
    const results: SendResult[] = await sendAll(targets, notice, {
      retries,
      retryDelayMs,
      signal: this.#stop.signal,
      onRetry: (target, attempt, error, waitMs) =>
        print(`notify: ${target.name} (${target.type}) attempt ${attempt} failed: ${error}; retrying in ${waitMs} ms`),
    });
    for (const r of results) if (!r.ok) print(`notify: ${r.name} (${r.type}) failed after ${plural(r.attempts, 'attempt')}: ${r.error}`);
    const known = this.options.targets.map((t) => t.name).join(', ') || 'none';
    const unknownResults = unknown.map((name) => ({
      name,
      type: 'unknown',
      ok: false,
      attempts: 0,
      error: `the plan's notify attribute names "${name}", which is not configured (configured: ${known})`,
    }));
    for (const u of unknownResults) print(`notify: ${u.error}`);
    const what = `${notice.kind}${notice.reminder > 0 ? ` reminder ${notice.reminder}` : ''}`;
    const channels = [
      { name: 'console', type: 'console', ok: true, attempts: 1 } as { name: string; type: string; ok: boolean; attempts: number; error?: string },
      ...results,
      ...unknownResults,
    ];
    await record(
      channels.map((c) => ({
        planId: notice.planId,
        ...(notice.nodeId !== undefined ? { node: notice.nodeId } : {}),
        kind: 'notice' as const,
        driver: 'engine' as const,
        reason: c.ok
          ? `${what} sent to ${describe(c)}${c.attempts > 1 ? ` (attempt ${c.attempts})` : ''}`
          : `${what} to ${describe(c)} failed${c.attempts > 0 ? ` after ${plural(c.attempts, 'attempt')}` : ''}: ${c.error}`,
        detail: { channel: c.name, type: c.type, ok: c.ok, attempts: c.attempts, reminder: notice.reminder },
      })),
    ).catch((error: Error) => print(`notify: the notice was sent but not recorded: ${error.message}`));
  }
}

function describe(channel: { name: string; type: string }): string {
  return channel.name === channel.type ? `the ${channel.name}` : `${channel.name} (${channel.type})`;
}

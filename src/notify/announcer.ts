import type { EventInput } from '../engine/step.js';
import { noticeText, type Notice } from './notice.js';
import { uiLink } from './link.js';
import { sendOne } from './send.js';
import { notifiersFor, type NotifierConfig } from './targets.js';
import { plural } from '../model/plural.js';

/** Where an {@link Announcer} sends notices, how it retries, where it prints and records. */
export interface AnnouncerOptions {
  /** The notifiers (the config's `notify.targets`). */
  targets: readonly NotifierConfig[];
  /** Further attempts per notifier after a failure (the config's `notify.retries`). */
  retries: number;
  /** Wait before the first retry, doubling each time. */
  retryDelayMs: number;
  /** A line on the worker's console. */
  print: (line: string) => void;
  /** Records each delivery or failure as a `notice` event: `(events) => dotplan.events.append(events)`. */
  record: (events: EventInput[]) => Promise<void>;
  /** The web UI's public address (`serve.publicUrl`): each notice then links to the page where it is answered. */
  publicUrl?: string;
}

/**
 * A worker's notices, sent: printed on its console, then to every notifier the plan's notices go to
 * (all configured ones, or those its `notify` attribute names), each retried on its own. Every
 * delivery and every failure is recorded as a `notice` event, so `plan events` shows who was told
 * what and when — each outcome when it happens. Runs beside the worker, never in its way; `drain` lets a stopping worker finish
 * what is in flight for a while, then abandons the rest. An embedded worker sends its notices as
 * `dotplan worker` does:
 *
 * ```ts
 * const announcer = new Announcer({
 *   targets: config.notify.targets, // complete notifier objects: name, type, url, timeoutMs, secret?, headers?
 *   retries: 3,
 *   retryDelayMs: 1000,
 *   print: (line) => console.error(line),
 *   record: (events) => dotplan.events.append(events),
 * });
 * worker.on('notice', (notice) => void announcer.announce(notice));
 * ```
 */
export class Announcer {
  readonly #pending = new Set<Promise<void>>();
  readonly #stop = new AbortController();

  constructor(private readonly options: AnnouncerOptions) {}

  /** Sends the notice in the background; the returned promise settles when it is sent and recorded. */
  announce(notice: Notice): Promise<void> {
    const { publicUrl } = this.options;
    const job = this.#send(publicUrl !== undefined && notice.link === undefined ? { ...notice, link: uiLink(publicUrl, notice) } : notice).finally(() =>
      this.#pending.delete(job),
    );
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

  /** Each outcome is recorded as it happens — the console at once, each notifier when it delivered or gave up — so the audit log is in the order things happened. */
  async #send(notice: Notice): Promise<void> {
    const { print, retries, retryDelayMs } = this.options;
    print(noticeText(notice));
    const { targets, unknown } = notifiersFor(this.options.targets, notice.notifiers);
    const known = this.options.targets.map((t) => t.name).join(', ') || 'none';
    const unknownResults = unknown.map((name) => ({
      name,
      type: 'unknown',
      ok: false,
      attempts: 0,
      error: `the plan's notify attribute names "${name}", which is not configured (configured: ${known})`,
    }));
    for (const u of unknownResults) print(`notify: ${u.error}`);
    const policy = {
      retries,
      retryDelayMs,
      signal: this.#stop.signal,
      onRetry: (target: NotifierConfig, attempt: number, error: string, waitMs: number) =>
        print(`notify: ${target.name} (${target.type}) attempt ${attempt} failed: ${error}; retrying in ${waitMs} ms`),
    };
    await Promise.all([
      this.#record(notice, [{ name: 'console', type: 'console', ok: true, attempts: 1 }, ...unknownResults]),
      ...targets.map(async (target) => {
        const result = await sendOne(target, notice, policy);
        if (!result.ok) print(`notify: ${result.name} (${result.type}) failed after ${plural(result.attempts, 'attempt')}: ${result.error}`);
        await this.#record(notice, [result]);
      }),
    ]);
  }

  /** `notice` events for these channels' outcomes; a failure to record is printed, never thrown. */
  async #record(notice: Notice, channels: readonly Channel[]): Promise<void> {
    const what = `${notice.kind}${notice.reminder > 0 ? ` reminder ${notice.reminder}` : ''}`;
    await this.options
      .record(
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
      )
      .catch((error: Error) => this.options.print(`notify: the notice was sent but not recorded: ${error.message}`));
  }
}

/** One channel's outcome: the console, a notifier, or a name the plan gives that is not configured. */
interface Channel {
  name: string;
  type: string;
  ok: boolean;
  attempts: number;
  error?: string;
}

function describe(channel: { name: string; type: string }): string {
  return channel.name === channel.type ? `the ${channel.name}` : `${channel.name} (${channel.type})`;
}

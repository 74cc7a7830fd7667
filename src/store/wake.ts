import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { WakeEvent } from './types.js';
import { reconnectDelay } from './unreachable.js';

/** The PostgreSQL channel workers LISTEN on. */
export const WAKE_CHANNEL = 'dotplan_wake';

/** How often a SQLite store looks whether another process committed (`PRAGMA data_version`). */
export const SQLITE_WATCH_MS = 50;

export interface WakeSource {
  /** PostgreSQL: makes a (not yet connected) client to LISTEN on for other processes' NOTIFYs. */
  postgresListener?: () => pg.Client;
  /** SQLite: the connection's data_version, which changes when another connection commits. */
  dataVersion?: () => Promise<number>;
}

/**
 * Wake-ups after commits: delivered in-process at once (an EventEmitter); on PostgreSQL also
 * NOTIFYed inside the committing statement, so that workers in other processes and on other
 * machines wake too (a lost LISTEN connection is made again with backoff, and its return is a
 * wake-up of its own: notifications sent meanwhile were missed); on SQLite other processes' commits are noticed within SQLITE_WATCH_MS by
 * watching the file's data_version. Both start with the first subscription only.
 */
export class Wakes {
  readonly instance = randomUUID();
  readonly #emitter = new EventEmitter();
  #listener: pg.Client | undefined;
  #watch: NodeJS.Timeout | undefined;
  #closed = false;
  #retry: NodeJS.Timeout | undefined;
  /** Failed LISTEN connections in a row (for the backoff); -1 before the first LISTEN. */
  #failures = -1;

  constructor(private readonly source: WakeSource = {}) {
    this.#emitter.setMaxListeners(0);
  }

  on(listener: (event: WakeEvent) => void): () => void {
    this.#emitter.on('wake', listener);
    if (this.source.postgresListener && !this.#listener && !this.#closed) this.#listen(this.source.postgresListener);
    if (this.source.dataVersion && !this.#watch && !this.#closed) this.#watchFile(this.source.dataVersion);
    return () => {
      this.#emitter.off('wake', listener);
      if (this.#emitter.listenerCount('wake') === 0) {
        clearInterval(this.#watch);
        this.#watch = undefined;
      }
    };
  }

  /** In-process delivery, once per distinct (reason, plan). */
  emit(events: readonly WakeEvent[]): void {
    for (const event of dedupe(events)) this.#emitter.emit('wake', event);
  }

  /** NOTIFY payloads for a transaction's wake-ups (other processes only care about new ready work and plan changes). */
  payloads(events: readonly WakeEvent[]): string[] {
    return dedupe(events)
      .filter((e) => e.reason !== 'finished')
      .map((e) => JSON.stringify({ i: this.instance, r: e.reason, p: e.planId }));
  }

  /** Resolves once LISTEN is active (PostgreSQL); at once otherwise. */
  listening: Promise<void> = Promise.resolve();

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    clearInterval(this.#watch);
    this.#emitter.removeAllListeners();
    const client = this.#listener;
    this.#listener = undefined;
    await client?.end().catch(() => undefined);
  }

  #watchFile(dataVersion: () => Promise<number>): void {
    let last: number | undefined;
    let busy = true;
    this.listening = dataVersion()
      .then((version) => void (last = version))
      .catch(() => undefined)
      .finally(() => (busy = false));
    this.#watch = setInterval(() => {
      if (busy) return;
      busy = true;
      dataVersion()
        .then((version) => {
          if (last !== undefined && version !== last && !this.#closed) this.#emitter.emit('wake', { reason: 'external' } satisfies WakeEvent);
          last = version;
        })
        .catch(() => undefined)
        .finally(() => (busy = false));
    }, SQLITE_WATCH_MS);
    this.#watch.unref();
  }

  #listen(newClient: () => pg.Client): void {
    const client = newClient();
    this.#listener = client;
    const reconnect = () => {
      if (this.#closed || this.#listener !== client) return;
      this.#listener = undefined;
      client.end().catch(() => undefined);
      this.#failures = Math.max(1, this.#failures + 1);
      this.#retry = setTimeout(() => {
        if (!this.#closed && this.#emitter.listenerCount('wake') > 0) this.#listen(newClient);
      }, reconnectDelay(this.#failures));
      this.#retry.unref();
    };
    client.on('error', reconnect);
    client.on('end', reconnect);
    client.on('notification', (message) => {
      if (message.channel !== WAKE_CHANNEL || !message.payload) return;
      try {
        const data = JSON.parse(message.payload) as { i?: string; r?: WakeEvent['reason']; p?: string };
        if (data.i === this.instance || !data.r) return;
        this.#emitter.emit('wake', data.p ? { reason: data.r, planId: data.p } : { reason: data.r });
      } catch {
        // not ours
      }
    });
    this.listening = client
      .connect()
      .then(() => client.query(`LISTEN ${WAKE_CHANNEL}`))
      .then(() => {
        // LISTENing again after a lost connection: what was NOTIFYed meanwhile was missed, so listeners look again.
        const again = this.#failures >= 0;
        this.#failures = 0;
        if (again && !this.#closed) this.#emitter.emit('wake', { reason: 'external' } satisfies WakeEvent);
      })
      .catch(() => reconnect());
    // The LISTEN connection must not keep a process alive on its own.
    void this.listening.then(() => (client as unknown as { connection?: { stream?: { unref?: () => void } } }).connection?.stream?.unref?.());
  }
}

function dedupe(events: readonly WakeEvent[]): WakeEvent[] {
  const seen = new Set<string>();
  const out: WakeEvent[] = [];
  for (const event of events) {
    const key = `${event.reason}\u0000${event.planId ?? ''}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(event);
    }
  }
  return out;
}

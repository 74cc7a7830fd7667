import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { WakeEvent } from './types.js';

/** The PostgreSQL channel workers LISTEN on. */
export const WAKE_CHANNEL = 'dotplan_wake';

/**
 * Wake-ups after commits: delivered in-process at once (an EventEmitter), and on PostgreSQL also
 * NOTIFYed inside the committing transaction, so that workers in other processes and on other
 * machines wake too. The LISTEN connection is opened on the first subscription only.
 */
export class Wakes {
  readonly instance = randomUUID();
  readonly #emitter = new EventEmitter();
  #listener: pg.Client | undefined;
  #closed = false;
  #retry: NodeJS.Timeout | undefined;

  constructor(private readonly postgresUrl?: string) {
    this.#emitter.setMaxListeners(0);
  }

  on(listener: (event: WakeEvent) => void): () => void {
    this.#emitter.on('wake', listener);
    if (this.postgresUrl && !this.#listener && !this.#closed) this.#listen();
    return () => {
      this.#emitter.off('wake', listener);
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
    this.#emitter.removeAllListeners();
    const client = this.#listener;
    this.#listener = undefined;
    await client?.end().catch(() => undefined);
  }

  #listen(): void {
    const client = new pg.Client({ connectionString: this.postgresUrl });
    this.#listener = client;
    const reconnect = () => {
      if (this.#closed || this.#listener !== client) return;
      this.#listener = undefined;
      client.end().catch(() => undefined);
      this.#retry = setTimeout(() => {
        if (!this.#closed && this.#emitter.listenerCount('wake') > 0) this.#listen();
      }, 1000);
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
      .then(() => undefined)
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

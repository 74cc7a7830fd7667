import type { Dotplan } from '../../operations/dotplan.js';
import { percentile } from '../stats.js';

/** Commits made first, not counted (the stream's first events, the JIT). */
export const SSE_WARM_UP = 10;
/** How long one commit's event may take to reach the client before the run fails. */
const EVENT_TIMEOUT_MS = 10_000;

/**
 * A client of an SSE endpoint, parsing the stream itself from `fetch`'s body: every `dotplan`
 * message's `id` with the time (`performance.now()`) its bytes were read. Waits are answered from
 * what has arrived, in id order.
 */
export class SseClient {
  readonly #arrived: Array<{ id: number; at: number }> = [];
  #waiters: Array<() => void> = [];
  #failed: Error | undefined;
  readonly #abort = new AbortController();
  #done: Promise<void> = Promise.resolve();

  private constructor() {}

  /** Opens the stream; resolves once the server has answered (the stream is then subscribed). */
  static async open(url: string): Promise<SseClient> {
    const client = new SseClient();
    const res = await fetch(url, { headers: { accept: 'text/event-stream' }, signal: client.#abort.signal });
    if (res.status !== 200 || !res.body) throw new Error(`GET ${url}: HTTP ${res.status}: ${(await res.text()).slice(0, 300)}`);
    client.#done = client.#read(res.body);
    return client;
  }

  /** The newest event id received (0 before the first). */
  get lastId(): number {
    return this.#arrived.at(-1)?.id ?? 0;
  }

  /** How many events arrived. */
  get received(): number {
    return this.#arrived.length;
  }

  /** The first event received with an id above `id`: its id and when it arrived. */
  async after(id: number): Promise<{ id: number; at: number }> {
    const deadline = Date.now() + EVENT_TIMEOUT_MS;
    for (;;) {
      if (this.#failed) throw this.#failed;
      const found = this.#arrived.find((e) => e.id > id);
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`SSE: no event after ${id} within ${EVENT_TIMEOUT_MS} ms (last received: ${this.lastId})`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async close(): Promise<void> {
    this.#abort.abort();
    await this.#done;
  }

  async #read(body: ReadableStream<Uint8Array>): Promise<void> {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        const at = performance.now();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        const blocks = buffer.split(/\r?\n\r?\n/);
        buffer = blocks.pop() ?? '';
        for (const block of blocks) {
          const fields = parseBlock(block);
          if (fields.event === 'dotplan' && fields.id !== undefined) this.#arrived.push({ id: Number(fields.id), at });
        }
        this.#wake();
      }
    } catch (error) {
      if (!this.#abort.signal.aborted) this.#failed = error instanceof Error ? error : new Error(String(error));
    } finally {
      if (!this.#abort.signal.aborted && !this.#failed) this.#failed = new Error('SSE: the server ended the stream');
      this.#wake();
    }
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }
}

/** One SSE message's fields (`: comment` lines, keep-alives, are skipped); multi-line data joined by newlines. */
export function parseBlock(block: string): { id?: string; event?: string; data?: string } {
  const out: { id?: string; event?: string; data?: string } = {};
  for (const line of block.split(/\r?\n/)) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const name = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (name === 'id' || name === 'event') out[name] = value;
    else if (name === 'data') out.data = out.data === undefined ? value : `${out.data}\n${value}`;
  }
  return out;
}

export interface SseFigures {
  /** ms from just before the commit call to the client reading its first event. */
  p50: number;
  p95: number;
  /** p50 of the commit call alone (its return), ms: the part of the latency that is the command's own. */
  commitP50: number;
  /** Commits timed, and events the client received in all (warm-up included). */
  commits: number;
  received: number;
}

/**
 * Commit-to-client latency: a client holds `GET /v1/plans/{id}/events/stream` open; the plan is paused
 * and resumed in turn (`dotplan.pause`/`resume`, each one transaction whose events the stream
 * carries), SSE_WARM_UP times uncounted, then `commits` times, each timed from just before the call
 * to the client reading the commit's first event (and, beside it, to the call's return: how much of
 * that is the command's own time). Before the next commit the client has every event committed so
 * far (nothing carries over into the next one's time).
 */
export async function measureSseLatency(dotplan: Dotplan, baseUrl: string, planId: string, commits: number): Promise<SseFigures> {
  const client = await SseClient.open(`${baseUrl}/v1/plans/${planId}/events/stream`);
  try {
    const times: number[] = [];
    const calls: number[] = [];
    let paused = (await dotplan.plan(planId)).status === 'paused';
    for (let i = 0; i < SSE_WARM_UP + commits; i++) {
      const before = client.lastId;
      const started = performance.now();
      if (paused) await dotplan.resume(planId, { by: 'dotplan bench' });
      else await dotplan.pause(planId, { by: 'dotplan bench' });
      const returned = performance.now();
      paused = !paused;
      const first = await client.after(before);
      const last = await dotplan.events.lastId();
      if (last > client.lastId) await client.after(last - 1);
      if (i >= SSE_WARM_UP) {
        times.push(first.at - started);
        calls.push(returned - started);
      }
    }
    return {
      p50: Math.round(percentile(times, 50) * 1000) / 1000,
      p95: Math.round(percentile(times, 95) * 1000) / 1000,
      commitP50: Math.round(percentile(calls, 50) * 1000) / 1000,
      commits: times.length,
      received: client.received,
    };
  } finally {
    await client.close();
  }
}

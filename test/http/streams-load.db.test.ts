/**
 * Many browsers on one running plan: 200 event streams open while a worker runs a 1,000-node plan.
 * Every stream gets the whole run (its last event is the plan's completion) through the one shared
 * feed, the process's heap stays bounded, and once they disconnect every subscription is released.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testBackend } from '../support/db.js';
import { waitUntil } from '../support/wait.js';
import { openApi, type ApiUnderTest } from './client.js';

const NODES = 1_000;
const STREAMS = 200;

function fan(n: number): string {
  const nodes = Array.from({ length: n }, (_, i) => `  n${i} [type=function status=pending toolCode=template toolInput="{\\"template\\": \\"${i}\\"}"]`);
  return `digraph fan {\n${nodes.join('\n')}\n}`;
}

/** Counts an event stream's messages (natively, on the bytes) and keeps only the tail, for the last one's data. */
function counter(response: Response) {
  const state = { messages: 0, tail: Buffer.alloc(0) };
  const marker = Buffer.from('\nevent: dotplan\n');
  const body = response.body!.getReader();
  void (async () => {
    for (;;) {
      const { value, done } = await body.read().catch(() => ({ value: undefined, done: true }));
      if (done || !value) return;
      const chunk = Buffer.concat([state.tail.subarray(-(marker.length - 1)), Buffer.from(value)]);
      for (let at = chunk.indexOf(marker); at >= 0; at = chunk.indexOf(marker, at + 1)) state.messages += 1;
      state.tail = Buffer.concat([state.tail, Buffer.from(value)]).subarray(-8192);
    }
  })();
  const last = () => {
    const text = state.tail.toString('utf8');
    // The last message's data (keep-alive comments may follow it).
    return [...text.matchAll(/^data: (.*)$/gm)].at(-1)?.[1] ?? '';
  };
  return { state, last, stop: () => body.cancel() };
}

let s: ApiUnderTest;
let token: string;
beforeAll(async () => {
  s = await openApi({ rateLimit: 0 });
  token = await s.token('read');
});
afterAll(() => s?.close());

// What this measures is the HTTP layer and the shared feed, the same over either store: it runs in the
// SQLite run only, where it does not pin a core beside the PostgreSQL run's own long tests.
describe.runIf(testBackend() === 'sqlite')(`${STREAMS} streams on a running ${NODES}-node plan`, () => {
  // In one process with the worker and all 200 readers: about 20–30 s on a 2-core machine.
  it('each gets the whole run from one shared feed; memory stays bounded; all are released on disconnect', { timeout: 240_000 }, async () => {
    const plan = await s.t.dotplan.create({ dot: fan(NODES), title: 'fan' });
    await s.t.dotplan.pause(plan.id, { by: 'test' });
    const from = await s.t.dotplan.events.lastId();
    const streams = await Promise.all(
      Array.from({ length: STREAMS }, () =>
        Promise.resolve(
          s.api.app.request(`/v1/plans/${plan.id}/events/stream`, {
            headers: { host: 'localhost', authorization: `Bearer ${token}`, 'last-event-id': String(from) },
          }),
        ),
      ),
    ).then((responses) => responses.map(counter));
    await waitUntil(() => s.api.hub.size === STREAMS, `${STREAMS} subscribers`);
    const heapBefore = process.memoryUsage().heapUsed;
    await s.t.dotplan.resume(plan.id, { by: 'test' });
    const worker = s.t.dotplan.worker({ untilIdle: true });
    worker.start();
    await worker.idle;
    await worker.stop();
    const events = await s.t.dotplan.events.list({ planId: plan.id, after: from });
    expect(events.length).toBeGreaterThan(NODES * 2);
    await waitUntil(() => streams.every((x) => x.state.messages === events.length), 'every stream to get the whole run', 200_000);
    for (const x of streams) expect(JSON.parse(x.last())).toMatchObject({ planId: plan.id, kind: 'status', to: 'completed' });
    // Bounded: 200 streams × thousands of events went through without the heap growing by more than a
    // few times what one copy of the run's events takes (nothing is kept per stream once written).
    const heapGrowth = process.memoryUsage().heapUsed - heapBefore;
    expect(heapGrowth).toBeLessThan(200 * 1024 * 1024);
    await Promise.all(streams.map((x) => x.stop()));
    await waitUntil(() => s.api.hub.size === 0 && s.api.streams.size === 0, 'every stream released');
  });
});

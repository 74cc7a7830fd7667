/**
 * Live events over SSE: ids are the audit log's, so a client that reconnects with Last-Event-ID gets
 * exactly the events after it — from the same server or one started again — and a stream that goes
 * away lets go of its subscription.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../support/wait.js';
import { openApi, problemOf, type ApiUnderTest } from './client.js';

const ASK = 'digraph g { ask [type=confirm status=pending question="Go?"] }';

interface SseEvent {
  id: number;
  planId: string;
  kind: string;
}

/** Reads an event stream's messages as they come; `stop()` disconnects like a closed browser tab. */
function reader(response: Response) {
  const events: SseEvent[] = [];
  const ids: number[] = [];
  const comments: string[] = [];
  const body = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  const done = (async () => {
    for (;;) {
      const { value, done: end } = await body.read().catch(() => ({ value: undefined, done: true }));
      if (end) return;
      buffer += value;
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const message = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        if (message.startsWith(':')) comments.push(message);
        const id = /^id: (\d+)$/m.exec(message)?.[1];
        const data = /^data: (.*)$/m.exec(message)?.[1];
        if (id !== undefined && data !== undefined) {
          ids.push(Number(id));
          events.push(JSON.parse(data) as SseEvent);
        }
      }
    }
  })();
  return { events, ids, comments, done, stop: () => body.cancel() };
}

let s: ApiUnderTest;
let token: string;
let planId: string;
let other: string;
beforeAll(async () => {
  s = await openApi({ rateLimit: 0, keepAliveMs: 50 });
  token = await s.token('read');
  planId = (await s.t.dotplan.create({ dot: ASK, title: 'streamed' })).id;
  other = (await s.t.dotplan.create({ dot: ASK, title: 'other' })).id;
  await s.t.dotplan.pause(planId, { by: 'ops' });
  await s.t.dotplan.pause(other, { by: 'ops' });
});
afterAll(() => s?.close());

const stream = (path: string, headers: Record<string, string> = {}) =>
  Promise.resolve(s.api.app.request(path, { headers: { host: 'localhost', authorization: `Bearer ${token}`, ...headers } }));

describe('a plan’s event stream', () => {
  it('resumes exactly after Last-Event-ID, then goes on live, with only this plan’s events', async () => {
    const history = await s.t.dotplan.events.list({ planId });
    const n = history[0]!.id;
    const response = await stream(`/v1/plans/${planId}/events/stream`, { 'last-event-id': String(n) });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const r = reader(response);
    await waitUntil(() => r.ids.length >= history.length - 1, 'the backlog');
    expect(r.ids).toEqual(history.slice(1).map((e) => e.id));
    await s.t.dotplan.resume(other, { by: 'ops' });
    await s.t.dotplan.resume(planId, { by: 'ops' });
    const live = await s.t.dotplan.events.list({ planId, after: history.at(-1)!.id });
    await waitUntil(() => r.ids.length === history.length - 1 + live.length, 'every live event');
    expect(r.ids).toEqual([...history.slice(1), ...live].map((e) => e.id));
    expect(r.events.every((e) => e.planId === planId)).toBe(true);
    await waitUntil(() => r.comments.length > 0, 'a keep-alive comment');
    await r.stop();
    await waitUntil(() => s.api.hub.size === 0 && s.api.streams.size === 0, 'the stream let go');
  });

  it('resumes exactly after Last-Event-ID on a server started again (another app over the same database)', async () => {
    const history = await s.t.dotplan.events.list({ planId });
    const middle = history[Math.floor(history.length / 2)]!.id;
    const again = await s.t.dotplan.http({ rateLimit: 0 });
    try {
      const response = await again.app.request(`/v1/plans/${planId}/events/stream`, {
        headers: { host: 'localhost', authorization: `Bearer ${token}`, 'last-event-id': String(middle) },
      });
      const r = reader(response);
      const expected = history.filter((e) => e.id > middle).map((e) => e.id);
      await waitUntil(() => r.ids.length >= expected.length, 'the events after the last one seen');
      expect(r.ids).toEqual(expected);
      await r.stop();
      await waitUntil(() => again.hub.size === 0, 'the stream let go');
    } finally {
      await again.close();
    }
  });

  it('refuses a Last-Event-ID that is not an id, and a plan that does not exist', async () => {
    expect((await problemOf(await stream(`/v1/plans/${planId}/events/stream`, { 'last-event-id': 'abc' }))).status).toBe(422);
    expect((await problemOf(await stream('/v1/plans/p_nope/events/stream'))).status).toBe(404);
  });
});

describe('many streams', () => {
  it('serves 200 at once from one shared feed, and releases all 200 when they disconnect', async () => {
    const start = await s.t.dotplan.events.lastId();
    const readers = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        stream(i % 2 === 0 ? '/v1/events/stream' : `/v1/plans/${planId}/events/stream`, { 'last-event-id': String(start) }),
      ),
    ).then((responses) => responses.map(reader));
    await waitUntil(() => s.api.hub.size === 200, '200 subscribers');
    await s.t.dotplan.pause(planId, { by: 'ops' });
    const paused = (await s.t.dotplan.events.list({ planId, after: start })).map((e) => e.id);
    await waitUntil(() => readers.every((r) => paused.every((id) => r.ids.includes(id))), 'the pause on every stream');
    await Promise.all(readers.map((r) => r.stop()));
    await waitUntil(() => s.api.hub.size === 0 && s.api.streams.size === 0, 'every stream released');
  });

  it('ends open streams on close (a graceful shutdown), so clients resume elsewhere', async () => {
    const api = await s.t.dotplan.http({ rateLimit: 0 });
    const r = reader(await api.app.request('/v1/events/stream', { headers: { host: 'localhost', authorization: `Bearer ${token}` } }));
    await waitUntil(() => api.streams.size === 1, 'the stream open');
    await api.close();
    await r.done;
    expect(api.hub.size).toBe(0);
  });
});

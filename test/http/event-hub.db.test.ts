/**
 * The event hub behind the SSE endpoints: one shared follow of the store, fanned out to many streams,
 * each given exactly the events after its `after` (its backlog from the store, then live ones) for
 * its filter — one plan, a tree (child plans made later too), or everything — on the run's backend.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { EventHub, TooManyStreamsError, type EventHubOptions } from '../../src/http/event-hub.js';
import type { Dotplan } from '../../src/operations/dotplan.js';
import type { EventRecord } from '../../src/store/types.js';
import { openTestDotplan, thrown, type TestDotplan } from '../api/open.js';
import { waitUntil } from '../support/wait.js';

const ASK =
  'digraph g { ask [type=confirm status=pending question="Go?"] then [type=function status=pending toolCode=template toolInput="{\\"template\\": \\"ok\\"}"] ask -> then }';
/** A root whose agent node, once the question is answered, runs a child plan (a workflow agent's template). */
const TREE = `digraph root {
  ask [type=confirm question="Go?"]
  sum [type=agent agentCode=summariser agentParams="{\\"topic\\": \\"DOT\\"}"]
  ask -> sum
}`;
const SUMMARY = `digraph summary {
  params="topic"
  output="{{nodes.write.output}}"
  draft [type=function toolCode=template toolInput="Notes on {{params.topic}}"]
  write [type=function toolCode=template toolInput="{{nodes.draft.output}}, written"]
  draft -> write
}`;

let t: TestDotplan;
let dotplan: Dotplan;
let dir: string;
const hubs: EventHub[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dotplan-hub-'));
  mkdirSync(join(dir, 'templates'));
  writeFileSync(join(dir, 'templates', 'summary.dot'), SUMMARY);
  t = await openTestDotplan({ cwd: dir, agents: [{ code: 'summariser', description: 'summarises', kind: 'workflow', template: 'summary' }] });
  dotplan = t.dotplan;
});
afterEach(async () => {
  for (const hub of hubs.splice(0)) await hub.close();
  vi.restoreAllMocks();
});
afterAll(async () => {
  await t?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

function hubOf(options?: EventHubOptions): EventHub {
  const hub = new EventHub(dotplan, options);
  hubs.push(hub);
  return hub;
}

/** A stream's events as they come. */
function stream(): { got: EventRecord[]; send: (event: EventRecord) => void } {
  const got: EventRecord[] = [];
  return { got, send: (event) => void got.push(event) };
}

/** Waits until the stream got the event with this id (or a later one). */
function received(s: { got: EventRecord[] }, id: number, what = `event ${id}`): Promise<true> {
  return waitUntil(() => (s.got.at(-1)?.id ?? 0) >= id, what);
}

/** `count` notices on the plan, in one commit. */
function notices(planId: string, count: number, reason = 'notice'): Promise<void> {
  return dotplan.events.append(
    Array.from({ length: count }, (_, i) => ({ planId, kind: 'notice' as const, driver: 'engine' as const, reason: `${reason} ${i}` })),
  );
}

const ids = (events: readonly EventRecord[]) => events.map((e) => e.id);

describe('EventHub', () => {
  it('a stream from `after` gets exactly the events after it, in order, once each, across the backlog→live seam', async () => {
    const a = await dotplan.create({ dot: ASK });
    const b = await dotplan.create({ dot: ASK });
    for (let i = 0; i < 6; i++) {
      await notices(a.id, 3);
      await dotplan.pause(b.id);
      await dotplan.resume(b.id);
    }
    const before = await dotplan.events.list();
    const after = before[4]!.id;
    const backlogEnd = before.at(-1)!.id;
    const hub = hubOf({ backlogLimit: 7 });
    // One stream live already: the feed runs ahead of the one that reads its backlog.
    const live = stream();
    await hub.subscribe({}, backlogEnd, live.send);
    // While its backlog is read, page by page, more is committed (this slow client waits for it): the
    // feed brings that and holds it for the stream, later pages read it again — and the seam drops the copies.
    const behind = stream();
    let making = Promise.resolve();
    await hub.subscribe({}, after, async (event) => {
      behind.send(event);
      if (event.id > backlogEnd || behind.got.length % 5 !== 0) return;
      making = (async () => {
        await notices(a.id, 2, `while at ${event.id}`);
        await dotplan.pause(b.id);
        await dotplan.resume(b.id);
      })();
      await making;
    });
    expect(hub.size).toBe(2);
    await received(behind, backlogEnd, 'the backlog');
    await making;
    await notices(a.id, 1, 'last');
    const last = await dotplan.events.lastId();
    await received(behind, last);
    await received(live, last);
    expect(behind.got.filter((e) => e.id > backlogEnd).length).toBeGreaterThan(10); // made while its backlog was read
    expect(behind.got).toEqual(await dotplan.events.list({ after }));
    expect(live.got).toEqual(await dotplan.events.list({ after: backlogEnd }));
  });

  it('a plan filter gives that plan’s events only (backlog and live); a plan that does not exist is NOT_FOUND', async () => {
    const a = await dotplan.create({ dot: ASK });
    const b = await dotplan.create({ dot: ASK });
    const hub = hubOf({ backlogLimit: 3 });
    const mine = stream();
    await hub.subscribe({ planId: a.id }, 0, mine.send);
    await notices(b.id, 2);
    await notices(a.id, 2);
    await dotplan.pause(b.id);
    await dotplan.pause(a.id);
    await notices(a.id, 1, 'last');
    const expected = await dotplan.events.list({ planId: a.id });
    await received(mine, expected.at(-1)!.id);
    expect(mine.got).toEqual(expected);
    expect(mine.got.every((e) => e.planId === a.id)).toBe(true);
    const missing = await thrown(() => hub.subscribe({ planId: 'p_missing' }, 0, () => undefined));
    expect(missing.code).toBe('NOT_FOUND');
    expect(hub.size).toBe(1);
  });

  it('a tree filter gives the root’s events and those of a child plan made after the stream began', async () => {
    const root = await dotplan.create({ dot: TREE });
    const hub = hubOf({ backlogLimit: 4 });
    const tree = stream();
    await hub.subscribe({ rootPlanId: root.id }, 0, tree.send);
    const own = stream();
    await hub.subscribe({ planId: root.id }, 0, own.send);
    const other = await dotplan.create({ dot: ASK }); // not in the tree
    await dotplan.worker({ untilIdle: true }).start().idle; // the question is asked
    await dotplan.answer(root.id, 'ask', 'yes');
    await dotplan.worker({ untilIdle: true }).start().idle; // the agent node's child plan is made and run
    expect((await dotplan.plan(root.id)).status).toBe('completed');
    const child = (await dotplan.node(root.id, 'sum')).childPlanId!;
    expect((await dotplan.plan(child)).rootPlanId).toBe(root.id);

    const expected = await dotplan.events.list({ rootPlanId: root.id });
    await received(tree, expected.at(-1)!.id);
    expect(tree.got).toEqual(expected);
    expect(tree.got.filter((e) => e.planId === child).length).toBeGreaterThan(5);
    expect(tree.got.some((e) => e.planId === other.id)).toBe(false);
    const mine = await dotplan.events.list({ planId: root.id });
    await received(own, mine.at(-1)!.id);
    expect(own.got).toEqual(mine);
    // A stream that begins once the child exists reads the whole tree from the store.
    const late = stream();
    await hub.subscribe({ rootPlanId: root.id }, 0, late.send);
    await received(late, expected.at(-1)!.id);
    expect(late.got).toEqual(expected);
  });

  it('200 streams share one follow of the store and read no backlog; all gone, size is 0 and the follow stops', async () => {
    const follow = vi.spyOn(dotplan.events, 'follow');
    const list = vi.spyOn(dotplan.events, 'list');
    const a = await dotplan.create({ dot: ASK });
    const hub = hubOf();
    const from = await dotplan.events.lastId();
    const streams = Array.from({ length: 200 }, () => stream());
    const filters = [{}, { planId: a.id }, { rootPlanId: a.id }];
    const unsubscribes = await Promise.all(streams.map((s, i) => hub.subscribe(filters[i % 3]!, from, s.send)));
    expect(hub.size).toBe(200);
    await notices(a.id, 3);
    await dotplan.pause(a.id);
    const last = await dotplan.events.lastId();
    await waitUntil(() => streams.every((s) => s.got.at(-1)?.id === last), 'every stream');
    const expected = ids(await dotplan.events.list({ planId: a.id, after: from }));
    for (const s of streams) expect(ids(s.got)).toEqual(expected);
    expect(follow).toHaveBeenCalledTimes(1);
    expect(list).toHaveBeenCalledTimes(1); // the test's own: no stream read the store
    for (const unsubscribe of unsubscribes) unsubscribe();
    unsubscribes[0]!(); // twice is harmless
    expect(hub.size).toBe(0);
    expect(hub.following).toBe(false);
    // The next stream starts the feed again.
    const again = await hub.subscribe({}, last, () => undefined);
    expect(hub.following).toBe(true);
    expect(follow).toHaveBeenCalledTimes(2);
    again();
    expect(hub.size).toBe(0);
  });

  it('a stream whose send never resolves delays no other, and is dropped past maxQueued; a send that throws is dropped too', async () => {
    const a = await dotplan.create({ dot: ASK });
    const hub = hubOf({ maxQueued: 5 });
    const from = await dotplan.events.lastId();
    const stuck: EventRecord[] = [];
    let overflowed = 0;
    const never = (event: EventRecord) => {
      stuck.push(event);
      return new Promise<void>(() => undefined);
    };
    await hub.subscribe({}, from, never, () => (overflowed += 1));
    const fast = stream();
    await hub.subscribe({}, from, fast.send, () => expect.fail('the fast stream overflowed'));
    let failed = 0;
    await hub.subscribe(
      { planId: a.id },
      from,
      () => {
        throw new Error('the client is gone');
      },
      () => (failed += 1),
    );
    await notices(a.id, 3);
    await received(fast, await dotplan.events.lastId());
    expect(stuck).toHaveLength(1); // its first event is still being sent; two wait
    expect(overflowed).toBe(0);
    await waitUntil(() => failed === 1, 'the failed send to drop its stream');
    expect(hub.size).toBe(2);
    await notices(a.id, 10);
    const last = await dotplan.events.lastId();
    await received(fast, last);
    await waitUntil(() => overflowed === 1, 'the stuck stream to overflow');
    expect(hub.size).toBe(1);
    expect(stuck).toHaveLength(1);
    expect(fast.got).toEqual(await dotplan.events.list({ after: from }));
  });

  it('maxSubscribers is enforced (TOO_MANY_STREAMS), also for streams that subscribe at once; close drops every stream', async () => {
    const a = await dotplan.create({ dot: ASK });
    const hub = hubOf({ maxSubscribers: 3 });
    let overflowed = 0;
    const onOverflow = () => (overflowed += 1);
    const attempts = await Promise.allSettled(Array.from({ length: 5 }, () => hub.subscribe({ planId: a.id }, 0, () => undefined, onOverflow)));
    expect(attempts.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    const refused = attempts.flatMap((r) => (r.status === 'rejected' ? [r.reason as Error] : []));
    expect(refused).toHaveLength(2);
    for (const error of refused) expect(error).toBeInstanceOf(TooManyStreamsError);
    expect(await thrown(() => hub.subscribe({}, 0, () => undefined))).toMatchObject({ code: 'TOO_MANY_STREAMS' });
    expect(hub.size).toBe(3);
    // Which three of the five came in first is the scheduler's: end one of those that did.
    attempts.find((r): r is PromiseFulfilledResult<() => void> => r.status === 'fulfilled')!.value();
    await hub.subscribe({}, 0, () => undefined, onOverflow);
    expect(hub.size).toBe(3);

    await hub.close();
    expect(hub.size).toBe(0);
    expect(hub.following).toBe(false);
    expect(overflowed).toBe(0); // closed, not overflowed
    expect(await thrown(() => hub.subscribe({}, 0, () => undefined))).toMatchObject({ code: 'CONFLICT' });
  });
});

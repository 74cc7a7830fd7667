/**
 * `events.list` and `events.follow` take the same query object — `{ planId?, after?, kind?, limit? }` —
 * and give the same events for it: `list` what is committed now, `follow` that and then each one
 * committed later.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dotplan } from '../../src/operations/dotplan.js';
import type { EventRecord, PlanRecord } from '../../src/store/types.js';
import { openTestDotplan, type TestDotplan } from './open.js';

const ASK =
  'digraph g { ask [type=confirm status=pending question="Go?"] then [type=function status=pending toolCode=template toolInput="{\\"template\\": \\"ok\\"}"] ask -> then }';

let t: TestDotplan;
let dotplan: Dotplan;
let first: PlanRecord;
let second: PlanRecord;

beforeAll(async () => {
  t = await openTestDotplan();
  dotplan = t.dotplan;
  first = await dotplan.create({ dot: ASK });
  second = await dotplan.create({ dot: ASK });
  await dotplan.pause(second.id, { reason: 'later' });
});
afterAll(() => t?.cleanup());

/** Follows with `query` until `count` events came (or `limit` ended the feed). */
async function followed(query: Parameters<Dotplan['events']['follow']>[0], count = Infinity): Promise<EventRecord[]> {
  const seen: EventRecord[] = [];
  const feed = dotplan.events.follow(query, (event) => {
    seen.push(event);
    return seen.length >= count;
  });
  if (count === Infinity) await feed.stop();
  else await feed.ended;
  return seen;
}

describe('events.list and events.follow: one query object', () => {
  it('one plan, one kind: list and follow give the same events', async () => {
    const listed = await dotplan.events.list({ planId: second.id, kind: 'status' });
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.every((e) => e.planId === second.id && e.kind === 'status')).toBe(true);
    expect(listed.some((e) => e.nodeId === undefined && e.to === 'paused')).toBe(true);
    expect(await followed({ planId: second.id, kind: 'status' }, listed.length)).toEqual(listed);
  });

  it('every plan (no planId), one kind', async () => {
    const revisions = await dotplan.events.list({ kind: 'revision' });
    expect(revisions.map((e) => e.planId)).toEqual([first.id, second.id]);
    expect(await followed({ kind: 'revision' }, 2)).toEqual(revisions);
  });

  it('after and limit page through the log, in list and in follow alike', async () => {
    const all = await dotplan.events.list({ planId: first.id });
    const page = await dotplan.events.list({ planId: first.id, after: all[0]!.id, limit: 2 });
    expect(page).toEqual(all.slice(1, 3));
    // follow with a limit ends by itself after that many events, resolving `ended` with the last one
    const feed = dotplan.events.follow({ planId: first.id, after: all[0]!.id, limit: 2 }, () => false);
    expect(await feed.ended).toEqual(all[2]);
  });

  it('follow goes on with events committed later, filtered by the same query', async () => {
    const after = (await dotplan.events.list({ planId: first.id })).at(-1)!.id;
    const feed = dotplan.events.follow({ planId: first.id, after, kind: 'status' }, () => true);
    await dotplan.events.append([{ planId: first.id, kind: 'notice', driver: 'engine', reason: 'not a status move: passed over' }]);
    await dotplan.pause(first.id, { by: 'ada' });
    const paused = await feed.ended;
    expect(paused).toMatchObject({ planId: first.id, kind: 'status', to: 'paused', actor: 'ada' });
    expect(paused?.nodeId).toBeUndefined();
    expect(await dotplan.events.list({ planId: first.id, after, kind: 'status' })).toEqual([paused]);
  });
});

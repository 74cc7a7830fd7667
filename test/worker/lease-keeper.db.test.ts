/**
 * The lease thread renews what the worker holds, read from shared memory (HeldLeases) or, for what
 * does not fit there, told by message; it stops renewing a lease let go, and reports a lease it could
 * not renew once. A real thread with its own connection, on the run's backend. On a SQLite file it takes over
 * the checkpoints of the write-ahead log while it runs.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ClaimedNode } from '../../src/store/types.js';
import { LeaseKeeper } from '../../src/worker/lease-keeper.js';
import { testBackend } from '../support/db.js';
import { waitUntil } from '../support/wait.js';
import { independent } from '../store/fixtures.js';
import { openHarness, type Harness } from '../store/harness.js';

const OWNER = 'keeper';
const LEASE_MS = 600;

describe('the lease thread', () => {
  let h: Harness;
  let keeper: LeaseKeeper | undefined;
  const lost: string[][] = [];
  const errors: unknown[] = [];

  beforeEach(async () => {
    h = await openHarness(testBackend());
    lost.length = 0;
    errors.length = 0;
  });
  afterEach(async () => {
    await keeper?.stop();
    keeper = undefined;
    await h.close();
  });

  async function claimAll(count: number): Promise<ClaimedNode[]> {
    const plan = await h.create(independent(count));
    const claimed = await h.store.queue.claim({ owner: OWNER, limit: count, leaseMs: LEASE_MS });
    expect(claimed.map((c) => c.planId)).toEqual(Array.from({ length: count }, () => plan.id));
    return claimed;
  }

  async function startKeeper(slots: number): Promise<LeaseKeeper> {
    keeper = new LeaseKeeper({
      target: h.store.target,
      queue: h.store.queue,
      owner: OWNER,
      leaseMs: LEASE_MS,
      slots,
      onLost: (tokens) => lost.push(tokens),
      onError: (error) => errors.push(error),
    }).start();
    expect(await keeper.started).toBe('thread');
    return keeper;
  }

  /** Lease ends by node id, from the database. */
  async function leaseEnds(claims: readonly ClaimedNode[]): Promise<Map<string, number | undefined>> {
    const nodes = await h.store.plans.nodes(claims[0]!.planId);
    return new Map(nodes.map((n) => [n.id, n.leaseExpiresAt?.getTime()]));
  }

  it('renews leases held in shared memory and leases past its slots, until they are let go', async () => {
    const claims = await claimAll(3);
    const first = await leaseEnds(claims);
    const k = await startKeeper(1); // one lease in shared memory, two by message
    for (const claim of claims) k.hold(claim.token);

    // Every lease renewed past where it ended when claimed (a renewal every third of the lease).
    const renewedPast = async (ends: Map<string, number | undefined>, ids: readonly string[]) => {
      const now = await leaseEnds(claims);
      return ids.every((id) => (now.get(id) ?? 0) > (ends.get(id) ?? Infinity));
    };
    const all = claims.map((c) => c.nodeId);
    await waitUntil(() => renewedPast(first, all), 'every lease to be renewed');

    // The lease in shared memory (held first) and one told by message let go; the third still held.
    k.release(claims[0]!.token);
    k.release(claims[1]!.token);
    const afterRelease = await leaseEnds(claims);
    const kept = claims[2]!.nodeId;
    // Two more renewals of the kept lease: those let go were not renewed with them.
    await waitUntil(async () => renewedPast(afterRelease, [kept]), 'the kept lease to be renewed');
    const once = await leaseEnds(claims);
    await waitUntil(async () => renewedPast(once, [kept]), 'the kept lease to be renewed again');
    const last = await leaseEnds(claims);
    for (const claim of claims.slice(0, 2)) expect(last.get(claim.nodeId)).toBe(afterRelease.get(claim.nodeId));
    expect(lost).toEqual([]);
    expect(errors).toEqual([]);
  });

  it.each([
    ['in shared memory', 1024],
    ['told by message', 0],
  ])('reports a lease it could not renew once (%s), and goes on renewing the others', async (_, slots) => {
    const claims = await claimAll(2);
    const k = await startKeeper(slots);
    for (const claim of claims) k.hold(claim.token);
    // The first node's lease ends under the keeper: its attempt is written as released.
    await h.finish(claims[0]!, { kind: 'released' }, { owner: OWNER });
    await waitUntil(() => lost.length > 0, 'the lost lease to be reported');
    expect(lost).toEqual([[claims[0]!.token]]);

    const kept = claims[1]!.nodeId;
    const ends = async () => (await leaseEnds(claims)).get(kept) ?? 0;
    const before = await ends();
    await waitUntil(async () => (await ends()) > before, 'the other lease to be renewed');
    const again = await ends();
    await waitUntil(async () => (await ends()) > again, 'the other lease to be renewed again');
    expect(lost).toEqual([[claims[0]!.token]]);
    expect(errors).toEqual([]);
  });

  it("takes over a SQLite file's checkpoints from the store's connection once it runs, and gives them back when it stops", async () => {
    const calls: string[] = [];
    keeper = new LeaseKeeper({
      target: h.store.target,
      queue: h.store.queue,
      owner: OWNER,
      leaseMs: LEASE_MS,
      onLost: (tokens) => lost.push(tokens),
      onError: (error) => errors.push(error),
      handOffCheckpoints: async () => {
        calls.push('handed off');
        return async () => void calls.push('given back');
      },
    }).start();
    expect(await keeper.started).toBe('thread');
    if (h.store.target?.kind !== 'sqlite') {
      // PostgreSQL has no log of the kind to checkpoint: nothing is handed off.
      await keeper.stop();
      expect(calls).toEqual([]);
      return;
    }
    await waitUntil(() => calls.length > 0, 'the checkpoints to be handed off');
    expect(calls).toEqual(['handed off']);
    await keeper.stop();
    expect(calls).toEqual(['handed off', 'given back']);
    expect(errors).toEqual([]);
  });
});

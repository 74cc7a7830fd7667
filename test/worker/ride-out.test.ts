/**
 * The parts that let a worker ride out a database outage (issue 14 case 8), without a database: which
 * errors mean "unreachable", the backoff, the one-line-per-change health, a poll loop that retries a
 * failed round after the backoff (not in a loop, not at the next cron firing), and a result writer
 * that keeps results it could not write instead of dropping them. The outage itself, with a real
 * server stopped and started, is test/adversarial/outage.test.ts.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AttemptResult } from '../../src/engine/attempts.js';
import type { AttemptReport, ClaimedNode, FinishOptions, FinishOutcome, WorkQueue } from '../../src/store/types.js';
import { isDatabaseUnreachable, reconnectDelay, RECONNECT_MAX_MS } from '../../src/store/unreachable.js';
import { DatabaseHealth } from '../../src/worker/db-health.js';
import { FinishBatcher } from '../../src/worker/finish-batcher.js';
import { Poller } from '../../src/worker/poller.js';

const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

describe('isDatabaseUnreachable', () => {
  it.each([
    ['a refused connection', refused],
    ['a server shutting down (57P01)', Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })],
    ['a server starting up (57P03)', Object.assign(new Error('the database system is starting up'), { code: '57P03' })],
    ['a connection exception (08006)', Object.assign(new Error('connection failure'), { code: '08006' })],
    ['a connection that ended', new Error('Connection terminated unexpectedly')],
    ['Prisma cannot reach the server (P1001)', Object.assign(new Error("Can't reach database server"), { code: 'P1001' })],
    ['a wrapped cause', new Error('cannot read', { cause: refused })],
    ['an AggregateError of refusals', Object.assign(new AggregateError([refused, refused], ''), { code: 'ECONNREFUSED' })],
    ['a driver adapter error: not reachable', Object.assign(new Error('adapter'), { cause: { kind: 'DatabaseNotReachable', host: '127.0.0.1', port: 5432 } })],
    ['a driver adapter error', Object.assign(new Error('adapter'), { cause: { kind: 'postgres', originalCode: '57P01' } })],
  ])('%s is unreachable', (_, error) => {
    expect(isDatabaseUnreachable(error)).toBe(true);
  });

  it.each([
    ['a unique violation', Object.assign(new Error('duplicate key'), { code: '23505' })],
    ['a serialization failure (retried elsewhere)', Object.assign(new Error('could not serialize'), { code: '40001' })],
    ['SQLite busy', Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' })],
    ['a plain error', new Error('boom')],
    ['not an error', 'ECONNREFUSED'],
    ['nothing', undefined],
  ])('%s is not', (_, error) => {
    expect(isDatabaseUnreachable(error)).toBe(false);
  });
});

describe('reconnectDelay', () => {
  it('doubles from 100 ms up to the cap, within ±25% jitter', () => {
    const low = (n: number) => reconnectDelay(n, () => 0);
    const high = (n: number) => reconnectDelay(n, () => 1);
    expect([1, 2, 3, 4, 5, 6, 50].map(low)).toEqual([75, 150, 300, 600, 1200, 1500, 1500]);
    expect([1, 5, 50].map(high)).toEqual([125, 2000, RECONNECT_MAX_MS * 1.25]);
  });
});

describe('DatabaseHealth', () => {
  it('reports the loss once and the return once, with how long it was gone; other errors are not its business', () => {
    let now = 1_000;
    const seen: string[] = [];
    const health = new DatabaseHealth({ lost: (e) => seen.push(`lost ${(e as Error).message}`), back: (ms) => seen.push(`back ${ms}`) }, () => now);
    health.reached();
    expect(health.failed(new Error('boom'))).toBe(false);
    expect(health.failed(refused)).toBe(true);
    now += 500;
    expect(health.failed(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(health.down).toBe(true);
    now += 2_500;
    health.reached();
    health.reached();
    expect(health.down).toBe(false);
    expect(seen).toEqual(['lost connect ECONNREFUSED 127.0.0.1:5432', 'back 3000']);
  });
});

describe('Poller after a failed round', () => {
  afterEach(() => vi.useRealTimers());

  it('runs the round again after the delay onError gives, not before, however often it is woken', async () => {
    vi.useFakeTimers();
    let rounds = 0;
    const failures: number[] = [];
    const poller = new Poller({
      cron: '0 0 1 1 *', // never, in this test
      tick: () => {
        rounds += 1;
        return rounds <= 3 ? Promise.reject(refused) : Promise.resolve(false);
      },
      onError: (_, n) => {
        failures.push(n);
        return 1_000 * n;
      },
    });
    poller.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(rounds).toBe(1);
    for (let i = 0; i < 20; i++) poller.wake(); // wake-ups do not cut a backoff short
    await vi.advanceTimersByTimeAsync(999);
    expect(rounds).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(rounds).toBe(2);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(rounds).toBe(3);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(rounds).toBe(4); // the round that succeeds; then the loop waits for a wake
    expect(failures).toEqual([1, 2, 3]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(rounds).toBe(4);
    poller.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(rounds).toBe(5);
    await poller.stop();
  });

  it('is stopped at once during a backoff', async () => {
    const poller = new Poller({ cron: '0 0 1 1 *', tick: () => Promise.reject(refused), onError: () => 3_600_000 });
    poller.start();
    await new Promise((resolve) => setImmediate(resolve));
    const started = Date.now();
    await poller.stop();
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('FinishBatcher while the database is unreachable', () => {
  const claim = (token: string): ClaimedNode => ({
    planId: 'p',
    nodeId: token,
    token,
    type: 'function',
    attributes: {},
    attempts: 1,
    leaseExpiresAt: new Date(),
    params: {},
    planAttributes: {},
  });
  const options: FinishOptions = { owner: 'w', leaseMs: 1000, limit: 0, retryDefaults: { retries: 0, retryDelay: '1s' } };

  it('keeps the results, writes them once the database answers, and reports the loss and the return', async () => {
    let down = 3;
    const writes: string[][] = [];
    const queue = {
      finish(reports: readonly AttemptReport[]): Promise<FinishOutcome> {
        writes.push(reports.map((r) => r.claim.token));
        if (down-- > 0) return Promise.reject(refused);
        return Promise.resolve({ results: reports.map(() => ({ status: 'done' })), claimed: [] });
      },
    } as unknown as WorkQueue;
    const seen: string[] = [];
    const health = new DatabaseHealth({ lost: () => seen.push('lost'), back: () => seen.push('back') });
    let tokensWhileDown: string[] = [];
    const batcher: FinishBatcher = new FinishBatcher(queue, {
      options: () => options,
      launch: () => undefined,
      unreachable: (error) => {
        tokensWhileDown = batcher.tokens;
        return health.failed(error);
      },
      reached: () => health.reached(),
      retryDelay: () => 1,
    });
    const done: AttemptResult = { kind: 'done', output: 'x' };
    const results = await Promise.all([batcher.finish(claim('a'), done), batcher.finish(claim('b'), done)]);
    expect(results).toEqual([{ status: 'done' }, { status: 'done' }]);
    expect(writes).toEqual([
      ['a', 'b'],
      ['a', 'b'],
      ['a', 'b'],
      ['a', 'b'],
    ]);
    expect(tokensWhileDown).toEqual(['a', 'b']); // their leases are renewed while they wait
    expect(seen).toEqual(['lost', 'back']);
    expect(batcher.stalled).toBe(false);
    expect(batcher.tokens).toEqual([]);
  });

  it('still hands back any other error at once', async () => {
    const boom = new Error('boom');
    const queue = { finish: () => Promise.reject(boom) } as unknown as WorkQueue;
    const batcher = new FinishBatcher(queue, {
      options: () => options,
      launch: () => undefined,
      unreachable: () => false,
      reached: () => undefined,
      retryDelay: () => 1,
    });
    expect(await batcher.finish(claim('a'), { kind: 'done', output: 'x' })).toBe(boom);
  });
});

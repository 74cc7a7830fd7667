/**
 * A command returns the plan or node as the command itself left it. A worker its commit wakes may move
 * the plan on at once (a one-node plan approved in `dotplan mcp serve` was often `completed` by the time
 * `approve_review` answered, and CI saw it); so may an operator's next command. Here a command made in the
 * wake-up of the first one's commit stands for both: the first's answer must not show it, and the plan
 * afterwards must. (On SQLite the second command's transaction queues before any read the first makes
 * after its commit, so a read-back after the commit fails these tests every time.)
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { testBackend } from '../support/db.js';
import { openTestDotplan, type TestDotplan } from './open.js';

const TWO_STEPS = `digraph two {
  label="Two steps"
  greet [type=function toolCode=template toolInput="{\\"template\\": \\"hello\\", \\"values\\": {}}"]
  again [type=function toolCode=template toolInput="{\\"template\\": \\"again\\", \\"values\\": {}}"]
  greet -> again
}`;

describe(`a command's answer is what it left, not what followed its commit (${testBackend()})`, () => {
  let t: TestDotplan;
  beforeEach(async () => {
    t = await openTestDotplan();
  });
  afterEach(async () => {
    await t.cleanup();
  });

  /** Runs `command`; at its first wake-up naming a plan, starts `next` on that plan. Once both finished, the command's answer. */
  async function withNext<T>(command: () => Promise<T>, next: (planId: string) => Promise<unknown>): Promise<T> {
    let following: Promise<unknown> | undefined;
    const off = t.dotplan.store.events.onWake((event) => {
      if (event.planId !== undefined) following ??= next(event.planId);
    });
    try {
      const answer = await command();
      expect(following, 'the command woke no one').toBeDefined();
      await following;
      return answer;
    } finally {
      off();
    }
  }

  it('create: the plan as started, though a pause followed its commit', async () => {
    const by = { by: 'carol' };
    const created = await withNext(
      () => t.dotplan.create({ dot: TWO_STEPS }),
      (id) => t.dotplan.pause(id, by),
    );
    expect(created.status).toBe('running');
    expect((await t.dotplan.plan(created.id)).status).toBe('paused');
  });

  it('approve: the plan as approved, though a pause followed its commit', async () => {
    const { id } = await t.dotplan.create({ dot: TWO_STEPS }, { review: true });
    const approved = await withNext(
      () => t.dotplan.approve(id, { by: 'alice' }),
      () => t.dotplan.pause(id, { by: 'carol' }),
    );
    expect(approved).toMatchObject({ id, status: 'running' });
    expect((await t.dotplan.plan(id)).status).toBe('paused');
  });

  it('resume: the plan as resumed, though a cancel followed its commit', async () => {
    const { id } = await t.dotplan.create({ dot: TWO_STEPS });
    await t.dotplan.pause(id, { by: 'carol' });
    const resumed = await withNext(
      () => t.dotplan.resume(id, { by: 'carol' }),
      () => t.dotplan.cancel(id, { by: 'dave' }),
    );
    expect(resumed).toMatchObject({ id, status: 'running' });
    expect((await t.dotplan.plan(id)).status).toBe('cancelled');
  });

  it('resume: a plan that the resume leaves with nothing to run, as it ended', async () => {
    const { id } = await t.dotplan.create({ dot: TWO_STEPS });
    await t.dotplan.pause(id, { by: 'carol' });
    for (const node of ['greet', 'again']) expect(await t.dotplan.skip(id, node, { by: 'carol' })).toMatchObject({ id: node, status: 'skipped' });
    expect((await t.dotplan.plan(id)).status).toBe('paused');
    // It ends in the resume's write (SQLite) or right after its commit (PostgreSQL): ended either way.
    expect(await t.dotplan.resume(id, { by: 'carol' })).toMatchObject({ id, status: 'completed' });
  });
});

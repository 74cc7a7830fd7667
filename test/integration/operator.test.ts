/**
 * Operator and person commands on live plans, through the CLI: retry a failed node (the plan comes
 * back to running and the node runs again), skip a pending node (its dependants go on), cancel a
 * plan (everything unfinished is cancelled, finished work is kept), and the answer command's
 * refusals (not waiting; a different second answer) next to its idempotence (the same answer twice).
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitUntil } from '../support/cli.js';
import { openWorkspace, showPlan, statuses, workflow, json, type Workspace } from './workspace.js';

describe('operator commands', () => {
  let ws: Workspace;
  beforeEach(async () => {
    ws = await openWorkspace();
  });
  afterEach(async () => {
    await ws.cleanup();
  });

  const untilIdle = async () => expect((await ws.dotplan(['worker', '--until-idle'])).code).toBe(0);
  const lines = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : []);

  it('node retry: a failed plan resumes and the node runs again', async () => {
    // The tool fails while its output folder is missing; the operator fixes that and retries.
    const out = join(ws.dir, 'out', 'log.txt');
    const planId = await ws.createPlan(
      workflow('retry', {
        nodes: [
          `write [type=function toolCode=record toolInput=${json({ file: out, line: 'written' })}]`,
          `other [type=function toolCode=echo toolInput=${json({ ok: true })}]`,
        ],
      }),
    );
    await untilIdle();
    expect(await statuses(ws, planId)).toEqual({ plan: 'failed', write: 'failed', other: 'done' });
    expect((await ws.store.plans.node(planId, 'write')).error).toMatch(/ENOENT|no such file/);

    mkdirSync(join(ws.dir, 'out'));
    const retried = await ws.dotplan(['node', 'retry', planId, 'write']);
    expect(retried.code).toBe(0);
    expect(await statuses(ws, planId)).toEqual({ plan: 'running', write: 'ready', other: 'done' });
    await untilIdle();

    expect(await statuses(ws, planId)).toEqual({ plan: 'completed', write: 'done', other: 'done' });
    expect((await ws.store.plans.node(planId, 'write')).attempts).toBe(1); // attempts start afresh
    expect(lines(out)).toEqual(['written']);
    const planEvents = (await ws.store.events.list(planId))
      .filter((e) => e.nodeId === undefined && e.kind === 'status')
      .map((e) => `${e.driver}:${e.from}→${e.to}`);
    expect(planEvents).toEqual(['person:→draft', 'engine:draft→running', 'engine:running→failed', 'operator:failed→running', 'engine:running→completed']);
  });

  // onFailure=stop leaves the failed node's dependants pending, so a retry resumes the plan where it stopped.
  it('node retry: the dependants of the retried node run too', async () => {
    const out = join(ws.dir, 'out', 'log.txt');
    const planId = await ws.createPlan(
      workflow('retry_chain', {
        nodes: [
          `write [type=function toolCode=record toolInput=${json({ file: out, line: 'written' })}]`,
          `after [type=function toolCode=echo toolInput=${json({ ok: true })}]`,
        ],
        edges: ['write -> after'],
      }),
    );
    await untilIdle();
    expect((await statuses(ws, planId)).plan).toBe('failed');
    mkdirSync(join(ws.dir, 'out'));
    expect((await ws.dotplan(['node', 'retry', planId, 'write'])).code).toBe(0);
    await untilIdle();
    expect(await statuses(ws, planId)).toEqual({ plan: 'completed', write: 'done', after: 'done' });
  });

  it('node skip: a pending node is skipped, never runs, and the plan goes on without it', async () => {
    const file = join(ws.dir, 'ran.txt');
    const record = (id: string) => `${id} [type=function toolCode=record toolInput=${json({ file, line: id })}]`;
    const planId = await ws.createPlan(
      workflow('skip', {
        nodes: [`gate [type=confirm question="Go on?"]`, record('middle'), record('last')],
        edges: ['gate -> middle', 'gate -> last', 'middle -> last'],
      }),
    );
    await untilIdle();
    expect(await statuses(ws, planId)).toEqual({ plan: 'running', gate: 'awaiting_input', middle: 'pending', last: 'pending' });

    const skipped = await ws.dotplan(['node', 'skip', planId, 'middle', '--reason', 'not needed this time']);
    expect(skipped.code).toBe(0);
    expect(await statuses(ws, planId)).toEqual({ plan: 'running', gate: 'awaiting_input', middle: 'skipped', last: 'pending' });
    expect((await ws.dotplan(['answer', planId, 'gate', 'yes'])).code).toBe(0);
    await untilIdle();

    expect(await statuses(ws, planId)).toEqual({ plan: 'completed', gate: 'done', middle: 'skipped', last: 'done' });
    expect(lines(file)).toEqual(['last']);
    const skip = (await ws.store.events.list(planId)).find((e) => e.nodeId === 'middle' && e.to === 'skipped');
    expect(skip).toMatchObject({ driver: 'operator', from: 'pending', reason: 'not needed this time' });
  });

  // An operator's skip is not an untaken branch: the plan goes on past the skipped node.
  it('node skip: the dependants of a skipped node run', async () => {
    const file = join(ws.dir, 'ran.txt');
    const record = (id: string) => `${id} [type=function toolCode=record toolInput=${json({ file, line: id })}]`;
    const planId = await ws.createPlan(
      workflow('skip_chain', { nodes: [`gate [type=confirm question="Go on?"]`, record('middle'), record('last')], edges: ['gate -> middle -> last'] }),
    );
    await untilIdle();
    expect((await ws.dotplan(['node', 'skip', planId, 'middle'])).code).toBe(0);
    expect((await ws.dotplan(['answer', planId, 'gate', 'yes'])).code).toBe(0);
    await untilIdle();
    expect(await statuses(ws, planId)).toEqual({ plan: 'completed', gate: 'done', middle: 'skipped', last: 'done' });
  });

  // onFailure=continue skips the failed node's dependants; a retry reopens them, and they run after it.
  it('node retry under onFailure=continue: the nodes its failure skipped run again; the failed plan says which node failed', async () => {
    const out = join(ws.dir, 'out', 'log.txt');
    const record = (id: string) => `${id} [type=function toolCode=record toolInput=${json({ file: out, line: id })}]`;
    const planId = await ws.createPlan(
      workflow('retry_continue', {
        graph: { onFailure: 'continue' },
        nodes: [record('write'), record('after'), record('last'), `other [type=function toolCode=echo toolInput=${json({ ok: true })}]`],
        edges: ['write -> after -> last'],
      }),
    );
    await untilIdle();
    expect(await statuses(ws, planId)).toEqual({ plan: 'failed', write: 'failed', after: 'skipped', last: 'skipped', other: 'done' });
    const failed = await showPlan(ws, planId);
    expect(failed.error).toMatch(/^node "write" failed: .*(ENOENT|no such file)/);
    const listed = JSON.parse(await ws.ok(['plan', 'list', '--json'])) as Array<{ id: string; error?: string }>;
    expect(listed.find((p) => p.id === planId)?.error).toBe(failed.error);

    mkdirSync(join(ws.dir, 'out'));
    expect((await ws.dotplan(['node', 'retry', planId, 'write'])).code).toBe(0);
    expect(await statuses(ws, planId)).toEqual({ plan: 'running', write: 'ready', after: 'pending', last: 'pending', other: 'done' });
    await untilIdle();
    expect(await statuses(ws, planId)).toEqual({ plan: 'completed', write: 'done', after: 'done', last: 'done', other: 'done' });
    expect(lines(out)).toEqual(['write', 'after', 'last']);
    expect((await showPlan(ws, planId)).error).toBeUndefined();
  });

  // "The plan goes on past it as if it had finished with no output": references to it are empty, `when` is decided on empty.
  it('node skip: a later reference to the skipped node is empty, and a `when` from it is decided on an empty value', async () => {
    const file = join(ws.dir, 'ran.txt');
    const record = (id: string) => `${id} [type=function toolCode=record toolInput=${json({ file, line: id })}]`;
    const planId = await ws.createPlan(
      workflow('skip_output', {
        nodes: [
          `gate [type=confirm question="Go on?"]`,
          `ask [type=confirm question="Which?"]`,
          record('middle'),
          `use [type=function toolCode=echo toolInput=${json({ value: '{{nodes.middle.output}}', text: '[{{nodes.middle.output}}|{{nodes.ask.answer}}]' })}]`,
          record('yes'),
          record('notyes'),
        ],
        edges: ['gate -> middle -> use', 'ask -> use', 'middle -> yes [when="yes"]', 'middle -> notyes [when="!yes"]'],
      }),
    );
    await untilIdle();
    expect((await ws.dotplan(['node', 'skip', planId, 'middle'])).code).toBe(0);
    expect((await ws.dotplan(['node', 'skip', planId, 'ask'])).code).toBe(0);
    expect((await ws.dotplan(['answer', planId, 'gate', 'yes'])).code).toBe(0);
    await untilIdle();

    expect(await statuses(ws, planId)).toEqual({
      plan: 'completed',
      gate: 'done',
      ask: 'skipped',
      middle: 'skipped',
      use: 'done',
      yes: 'skipped',
      notyes: 'done',
    });
    expect(JSON.parse((await ws.store.plans.node(planId, 'use')).output!)).toEqual({ value: null, text: '[|]' });
    expect(lines(file)).toEqual(['notyes']);
  });

  it("plan list: a plan's updatedAt moves when its nodes do, not only when its status does", async () => {
    const planId = await ws.createPlan(
      workflow('activity', { nodes: [`gate [type=confirm question="Go on?"]`, `later [type=function toolCode=echo toolInput=${json({ ok: true })}]`] }),
    );
    const updatedAt = async () =>
      (JSON.parse(await ws.ok(['plan', 'list', '--json'])) as Array<{ id: string; updatedAt: string }>).find((p) => p.id === planId)!.updatedAt;
    const created = await updatedAt();
    await waitUntil(() => Date.now() > Date.parse(created) + 1, 'the clock to move on');
    await untilIdle(); // the gate asks its question, `later` runs; the plan is still running
    expect(await statuses(ws, planId)).toEqual({ plan: 'running', gate: 'awaiting_input', later: 'done' });
    const ran = await updatedAt();
    expect(Date.parse(ran)).toBeGreaterThan(Date.parse(created));
    expect(Date.parse(ran)).toBeGreaterThanOrEqual((await ws.store.plans.node(planId, 'gate')).updatedAt.getTime());
  });

  it('plan cancel: every unfinished node is cancelled, finished ones stay done, and nothing runs afterwards', async () => {
    const file = join(ws.dir, 'ran.txt');
    const planId = await ws.createPlan(
      workflow('cancel', {
        nodes: [
          `first [type=function toolCode=record toolInput=${json({ file, line: 'first' })}]`,
          `ask [type=confirm question="Continue?"]`,
          `next [type=function toolCode=record toolInput=${json({ file, line: 'next' })}]`,
        ],
        edges: ['first -> ask -> next'],
      }),
    );
    await untilIdle();
    const cancelled = await ws.dotplan(['plan', 'cancel', planId]);
    expect(cancelled.code).toBe(0);
    expect(cancelled.stdout).toContain('cancelled');
    expect(await statuses(ws, planId)).toEqual({ plan: 'cancelled', first: 'done', ask: 'cancelled', next: 'cancelled' });

    const late = await ws.dotplan(['answer', planId, 'ask', 'yes']);
    expect(late.code).toBe(1);
    await untilIdle();
    expect(lines(file)).toEqual(['first']);
  });

  it('answer: refuses a node that is not waiting and a different second answer; accepts the same answer twice', async () => {
    const planId = await ws.createPlan(
      workflow('answers', {
        nodes: [`ask [type=confirm question="Ship it?"]`, `after [type=function toolCode=echo toolInput=${json({ answer: '{{nodes.ask.answer}}' })}]`],
        edges: ['ask -> after'],
      }),
    );
    // Not waiting yet: the worker has not asked the question.
    const early = await ws.dotplan(['answer', planId, 'ask', 'yes']);
    expect(early.code).toBe(1);
    expect(early.stderr).toMatch(/node "ask" of plan .* is ready, not awaiting_input/);
    expect(early.stderr).not.toMatch(/\n\s+at /); // no stack trace

    const unknown = await ws.dotplan(['answer', planId, 'nope', 'yes']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/node "nope" not found/);

    await untilIdle();
    expect((await ws.dotplan(['answer', planId, 'ask', 'yes'])).code).toBe(0);
    const conflict = await ws.dotplan(['answer', planId, 'ask', 'no']);
    expect(conflict.code).toBe(1);
    expect(conflict.stderr).toMatch(/already answered "yes".*\[CONFLICT\]/);
    const again = await ws.dotplan(['answer', planId, 'ask', 'yes']);
    expect(again.code).toBe(0);

    await untilIdle();
    expect(await statuses(ws, planId)).toEqual({ plan: 'completed', ask: 'done', after: 'done' });
    expect((await ws.store.plans.node(planId, 'after')).output).toBe(JSON.stringify({ answer: 'yes' }));
    expect((await ws.store.events.list(planId)).filter((e) => e.nodeId === 'ask' && e.to === 'done')).toHaveLength(1);
  });
});

/**
 * How a worker ends: `--until-idle` exits 0 once only questions for people remain (they do not keep
 * it alive); SIGTERM to the worker process stops it without waiting for its running tool, the node
 * going back to `ready` with the attempt not counted, so that a later worker runs it from the start.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitUntil } from '../support/cli.js';
import { openWorkspace, statuses, workflow, json, type Workspace } from './workspace.js';

describe('worker shutdown', () => {
  let ws: Workspace;
  beforeEach(async () => {
    ws = await openWorkspace();
  });
  afterEach(async () => {
    await ws.cleanup();
  });

  it('--until-idle exits 0 when only questions for people remain', async () => {
    const planId = await ws.createPlan(
      workflow('questions', {
        nodes: [
          `prepare [type=function toolCode=echo toolInput=${json({ ready: true })}]`,
          `ask [type=confirm question="Deploy?"]`,
          `also [type=confirm question="Tell the team?"]`,
          `deploy [type=function toolCode=echo toolInput=${json({ deployed: true })}]`,
        ],
        edges: ['prepare -> ask -> deploy'],
      }),
    );
    const run = await ws.dotplan(['worker', '--until-idle', '--poll', '0 0 * * * *']);
    expect(run.code).toBe(0);
    expect(run.elapsedMs).toBeLessThan(10_000);
    expect(await statuses(ws, planId)).toEqual({ plan: 'running', prepare: 'done', ask: 'awaiting_input', also: 'awaiting_input', deploy: 'pending' });
    // Its progress told the user what happened.
    expect(run.stderr).toMatch(/node prepare\s+running → done/);
    expect(run.stderr).toMatch(/node ask\s+running → awaiting_input/);
  });

  it('SIGTERM releases the running node (attempt not counted) and exits without waiting for the tool; a later worker finishes it', async () => {
    // The tool runs until the test opens its gate, which it does only after the worker has exited.
    const gate = join(ws.dir, 'gate-open');
    const planId = await ws.createPlan(workflow('long', { nodes: [`long [type=function toolCode=gate toolInput=${json({ file: gate })}]`] }));
    const worker = ws.spawnProcess(['worker', '--poll', '0 0 * * * *']);
    await waitUntil(async () => (await ws.store.plans.node(planId, 'long')).status === 'running', 'the node to start');

    worker.kill('SIGTERM');
    const exit = await worker.exited;
    expect(exit.code, exit.stderr).toBe(0);
    expect(exit.stderr).toMatch(/SIGTERM: stopping/);

    expect(await ws.store.plans.node(planId, 'long')).toMatchObject({ status: 'ready', attempts: 0 });
    const release = (await ws.store.events.list(planId)).filter((e) => e.nodeId === 'long').at(-1);
    expect(release).toMatchObject({ from: 'running', to: 'ready' });
    expect(release!.reason).toMatch(/released.*does not count/);

    writeFileSync(gate, '');
    expect((await ws.dotplan(['worker', '--until-idle'])).code).toBe(0);
    expect(await ws.store.plans.node(planId, 'long')).toMatchObject({ status: 'done', attempts: 1, output: JSON.stringify({ opened: 1 }) });
    expect((await ws.store.plans.get(planId)).status).toBe('completed');
  });
});

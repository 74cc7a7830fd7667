/**
 * External agents across real worker processes, on the suite's backend: the remote task's ids are
 * kept under the node's lease, so a worker SIGKILLed while the task works is succeeded by one that
 * follows the same task (the agent counts exactly one); and a plan cancelled by a process that never
 * talks to the agent (`dotplan plan cancel`) still cancels the remote task — through the outbox row the
 * cancel's transaction wrote, delivered by the next worker.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { waitUntil } from '../support/wait.js';
import { openWorkspace, type Workspace } from '../integration/workspace.js';
import { recorded, startAgent, stats, type FixtureAgent } from './agent-fixture.js';

const WORKER = ['worker', '--concurrency', '1', '--poll', '*/1 * * * * *', '--lease-ms', '1500'];

describe('external agents on worker processes', () => {
  let ws: Workspace;
  let fixture: FixtureAgent;
  let record = '';
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dotplan-a2a-proc-'));
    record = join(dir, 'record.jsonl');
    // A slow task works for 20 s: long enough for a takeover on a loaded machine to find it still working.
    fixture = await startAgent('--port', '0', '--record', record, '--slow-ms', '20000');
  });
  afterAll(async () => {
    await fixture?.stop();
  });
  beforeEach(async () => {
    ws = await openWorkspace();
    ws.write('dotplan.config.json', JSON.stringify({ agents: [{ code: 'helper', kind: 'a2a', description: 'the fixture agent', url: fixture.base }] }));
  });
  afterEach(async () => {
    await ws.cleanup();
  });

  /**
   * The node's remote task as kept in its row, once it has the agent's task id (and, given `state`, once
   * the row says so: the first row written says `submitted`, the agent's next update `working`).
   */
  async function keptTask(planId: string, nodeId: string, state?: string): Promise<{ taskId: string; state?: string }> {
    return waitUntil(
      async () => {
        const { remoteTask } = await ws.store.remote.read(planId, nodeId);
        const task = remoteTask ? (JSON.parse(remoteTask) as { taskId?: string; state?: string }) : undefined;
        if (!task?.taskId || (state !== undefined && task.state !== state)) return undefined;
        return { ...task, taskId: task.taskId };
      },
      `node ${nodeId}'s remote task to be kept${state ? ` as ${state}` : ''}`,
      30_000,
    );
  }

  it('a worker SIGKILLed while the remote task works: the next worker follows the same task, which the agent ran once', { timeout: 120_000 }, async () => {
    const before = (await stats(fixture)).tasks;
    const first = ws.spawnProcess(WORKER);
    const planId = await ws.createPlan(`digraph p { long [type=agent agentCode=helper task="a slow report"] }`);
    const task = await keptTask(planId, 'long', 'working');
    first.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');
    const second = ws.spawnProcess(WORKER);
    await waitUntil(async () => ['completed', 'failed'].includes((await ws.store.plans.get(planId)).status) || undefined, 'the plan to end', 60_000);
    second.kill('SIGTERM');
    const node = await ws.store.plans.node(planId, 'long');
    expect(node).toMatchObject({ status: 'done', output: 'slow done' });
    expect((await stats(fixture)).tasks).toBe(before + 1);
    const mine = recorded(record).filter((e) => e.taskId === task.taskId);
    expect(mine.filter((e) => e.event === 'message')).toHaveLength(1);
    // The successor asked for the task (getTask) and followed it (subscribe), rather than sending it again.
    expect(mine.map((e) => e.event)).toEqual(expect.arrayContaining(['get', 'subscribe']));
    const moves = (await ws.store.events.list(planId)).filter((e) => e.nodeId === 'long' && e.kind === 'status').map((e) => `${e.from}>${e.to}`);
    expect(moves).toEqual(['pending>ready', 'ready>running', 'running>ready', 'ready>running', 'running>done']);
  });

  it('a plan cancelled by a process that never talks to the agent: the cancel reaches it through the outbox, delivered by the next worker', async () => {
    const first = ws.spawnProcess(WORKER);
    const planId = await ws.createPlan(`digraph p { wait [type=agent agentCode=helper task="hold on until cancelled"] }`);
    const task = await keptTask(planId, 'wait');
    first.kill('SIGKILL');
    await first.exited;
    await ws.ok(['plan', 'cancel', planId, '--reason', 'no longer needed']);
    expect((await ws.store.plans.get(planId)).status).toBe('cancelled');
    // Written with the cancel, not sent by it.
    expect((await stats(fixture)).cancels).not.toContain(task.taskId);
    const second = ws.spawnProcess(WORKER);
    await waitUntil(async () => (await stats(fixture)).cancels.includes(task.taskId) || undefined, 'the cancel to reach the agent', 30_000);
    const delivered = await waitUntil(
      async () => (await ws.store.events.list(planId)).find((e) => e.kind === 'remote' && e.detail?.direction === 'cancel'),
      'the delivery in the audit log',
      30_000,
    );
    second.kill('SIGTERM');
    expect(delivered.detail).toMatchObject({ agent: 'helper', taskId: task.taskId, state: 'canceled', text: 'cancelled' });
    // Delivered once: the outbox row went.
    expect(await ws.store.remote.takeCancels(10, 1000)).toEqual([]);
  });
});

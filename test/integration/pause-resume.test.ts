/**
 * Pause and resume, with real workers: a plan of four chains of slow nodes runs under a worker; the
 * operator pauses it (`dotplan plan pause`) while nodes are running. Those finish and keep their
 * results, their dependants wait: no node of the plan is claimed while it is paused — not by the
 * worker that was running it, nor by a worker started during the pause, though both fill every slot
 * they have with another plan's nodes meanwhile. After `dotplan plan resume` the plan completes. Both
 * moves are in `plan events` with kind, driver and who.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitUntil } from '../support/cli.js';
import { openWorkspace, workflow, json, statuses, type Workspace } from './workspace.js';

const CHAINS = 4;
const DEPTH = 3;
const TOOL_MS = 1_500;
/** Slots of the second worker (the default concurrency). */
const SECOND_CONCURRENCY = 4;

interface CliEvent {
  id: number;
  at: string;
  kind: string;
  driver: string;
  actor?: string;
  nodeId?: string;
  from?: string;
  to?: string;
  reason?: string;
}

describe('plan pause and resume', () => {
  let ws: Workspace;
  beforeEach(async () => {
    ws = await openWorkspace();
  });
  afterEach(async () => {
    await ws.cleanup();
  });

  it('pause: running nodes finish and keep their results, nothing new is claimed; resume: the plan completes', async () => {
    const file = join(ws.dir, 'ran.txt');
    const ids = Array.from({ length: CHAINS }, (_, c) => Array.from({ length: DEPTH }, (_, d) => `c${c}_${d}`));
    // Each node records that its tool ran (plan node attempt pid) and takes TOOL_MS.
    const node = (id: string) =>
      `${id} [type=multiFunction toolCalls=${json([
        { toolCode: 'record', toolInput: { file } },
        { toolCode: 'slow', toolInput: { ms: TOOL_MS } },
      ])}]`;
    const planId = await ws.createPlan(workflow('pausable', { nodes: ids.flat().map(node), edges: ids.map((chain) => chain.join(' -> ')) }));
    const ran = () => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : []).map((line) => line.split(' ')[1]!);
    const events = async () => JSON.parse(await ws.ok(['plan', 'events', planId, '--json'])) as CliEvent[];
    const count = async (status: string) => (await ws.store.plans.nodes(planId)).filter((n) => n.status === status).length;

    const worker = ws.spawn(['worker', '--concurrency', String(CHAINS)]);
    await waitUntil(async () => (await count('running')) === CHAINS, 'the worker to run the head of every chain');

    const paused = await ws.dotplan(['plan', 'pause', planId, '--by', 'ops-alice', '--reason', 'maintenance window']);
    expect(paused.code, paused.stderr).toBe(0);
    expect(paused.stdout.trim()).toBe(`${planId}: paused`);
    expect((await ws.store.plans.get(planId)).status).toBe('paused');

    // What was running when the plan paused finishes, and its results are kept.
    const afterPause = await events();
    const pauseEvent = afterPause.find((e) => e.nodeId === undefined && e.to === 'paused')!;
    const runningAtPause = ids.flat().filter((id) => {
      const before = afterPause.filter((e) => e.id < pauseEvent.id && e.nodeId === id);
      return before.at(-1)?.to === 'running';
    });
    expect(runningAtPause.length).toBeGreaterThan(0);
    await waitUntil(async () => (await count('running')) === 0, 'the running nodes to finish', 20_000);
    for (const id of runningAtPause) {
      expect(await ws.store.plans.node(planId, id), id).toMatchObject({ status: 'done', output: expect.stringContaining(`"waited":${TOOL_MS}`) as unknown });
    }

    // Paused: their dependants are ready, yet neither this worker nor a new one claims them.
    const second = ws.spawn(['worker', '--concurrency', String(SECOND_CONCURRENCY)]);
    await second.waitForOutput(/^worker .* on (sqlite|postgres)/);
    const doneWhilePaused = await count('done');
    const ranWhilePaused = ran().length;
    // The dependants of what finished are free to go (their parent is done) but wait for the resume.
    const next = (id: string) => ids.flatMap((chain) => chain.slice(chain.indexOf(id) + 1, chain.indexOf(id) + 2).filter(() => chain.includes(id)));
    const dependants = runningAtPause.flatMap(next);
    expect(dependants.length).toBeGreaterThan(0);
    for (const id of dependants) expect(['pending', 'ready'], id).toContain((await ws.store.plans.node(planId, id)).status);
    // Proof that both workers looked for work while the dependants waited: another plan's nodes, held
    // at a gate, fill every slot of both. Had the paused plan's older ready nodes been claimable, they
    // would have been claimed first and the other plan's nodes could not all be running.
    const gate = join(ws.dir, 'gate-open');
    const slots = CHAINS + SECOND_CONCURRENCY;
    const other = await ws.createPlan(
      workflow('other', { nodes: Array.from({ length: slots }, (_, i) => `o${i} [type=function toolCode=gate toolInput=${json({ file: gate })}]`) }),
    );
    await waitUntil(
      async () => (await ws.store.plans.nodes(other)).filter((n) => n.status === 'running').length === slots,
      "both workers to fill their slots with the other plan's nodes",
    );
    writeFileSync(gate, '');
    await waitUntil(async () => (await ws.store.plans.get(other)).status === 'completed', 'the other plan to complete');
    expect(worker.hasExited()).toBe(false);
    expect(second.hasExited()).toBe(false);
    expect(await count('done')).toBe(doneWhilePaused);
    expect(await count('running')).toBe(0);
    expect(ran()).toHaveLength(ranWhilePaused);
    expect((await ws.store.plans.get(planId)).status).toBe('paused');

    const resumed = await ws.dotplan(['plan', 'resume', planId, '--by', 'ops-bob']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout.trim()).toBe(`${planId}: running`);
    await waitUntil(async () => (await ws.store.plans.get(planId)).status === 'completed', 'the resumed plan to complete', 30_000, 100);

    expect(Object.values(await statuses(ws, planId))).toEqual(['completed', ...Array<string>(CHAINS * DEPTH).fill('done')]);
    expect(ran().sort()).toEqual(ids.flat().sort()); // every tool ran, once

    // The audit log: both moves with kind, driver and who; no claim between pause and resume.
    const all = await events();
    const planMoves = all.filter((e) => e.nodeId === undefined && e.kind === 'status');
    expect(planMoves.map((e) => `${e.from ?? ''}→${e.to ?? ''}`)).toEqual(['→draft', 'draft→running', 'running→paused', 'paused→running', 'running→completed']);
    const pause = planMoves[2]!;
    const resume = planMoves[3]!;
    expect(pause).toMatchObject({ kind: 'status', driver: 'operator', actor: 'ops-alice', reason: 'maintenance window' });
    expect(resume).toMatchObject({ kind: 'status', driver: 'operator', actor: 'ops-bob' });
    const claimsWhilePaused = all.filter((e) => e.id > pause.id && e.id < resume.id && e.from === 'ready' && e.to === 'running');
    expect(claimsWhilePaused).toEqual([]);
    // What finished during the pause was exactly what was running at the pause.
    const finishedWhilePaused = all.filter((e) => e.id > pause.id && e.id < resume.id && e.to === 'done').map((e) => e.nodeId);
    expect(finishedWhilePaused.sort()).toEqual([...runningAtPause].sort());

    const text = await ws.ok(['plan', 'events', planId]);
    expect(text).toMatch(/running → paused|running→paused/);
    expect(text).toContain('ops-alice');
    expect(text).toContain('maintenance window');
    expect(text).toContain('ops-bob');
  });
});

/**
 * Wake-ups: a chain of 20 steps under a worker that polls only once an hour still runs straight
 * through — each step is claimed as soon as the one before it is done, not at the next poll.
 * On PostgreSQL the plan is created by another process (the CLI) after the worker is up, so the
 * worker can only hear of it through LISTEN/NOTIFY. On SQLite wake-ups are in-process only, so the
 * plan is created first and the worker finds it on its first round; the chain's steps then follow
 * one another through the worker's own wake-ups.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitUntil } from '../support/cli.js';
import { openWorkspace, workflow, json, type Workspace } from './workspace.js';

const STEPS = 20;
const HOURLY = '0 0 * * * *';

function chainDot(): string {
  const ids = Array.from({ length: STEPS }, (_, i) => `s${String(i).padStart(2, '0')}`);
  return workflow('chain', {
    nodes: ids.map((id, i) => `${id} [type=function toolCode=echo toolInput=${json({ step: i })}]`),
    edges: [ids.join(' -> ')],
  });
}

describe('wake-ups', () => {
  let ws: Workspace;
  beforeEach(async () => {
    ws = await openWorkspace();
  });
  afterEach(async () => {
    await ws.cleanup();
  });

  it('runs a 20-step chain under an hourly poll in seconds, each step claimed right after the previous one finished', async () => {
    let planId: string;
    const worker = ws.backend === 'postgres' ? ws.spawn(['worker', '--poll', HOURLY]) : undefined;
    if (worker) {
      await worker.waitForOutput(/^worker .* on postgres/);
      planId = await ws.createPlan(chainDot());
    } else {
      planId = await ws.createPlan(chainDot());
      ws.spawn(['worker', '--poll', HOURLY]);
    }
    const created = Date.now();

    await waitUntil(async () => (await ws.store.plans.get(planId)).status === 'completed', 'the chain to complete', 10_000);
    expect(Date.now() - created).toBeLessThan(10_000);

    const nodes = await ws.store.plans.nodes(planId);
    expect(nodes.map((n) => n.status)).toEqual(Array(STEPS).fill('done'));
    expect(nodes.map((n) => JSON.parse(n.output ?? 'null') as unknown)).toEqual(Array.from({ length: STEPS }, (_, i) => ({ step: i })));

    // The gap between a step finishing and the next being claimed is a wake-up, not a poll.
    const events = await ws.store.events.list(planId);
    const at = (node: string, to: string) => events.find((e) => e.nodeId === node && e.to === to)!.at.getTime();
    const gaps = nodes.slice(1).map((n, i) => at(n.id, 'running') - at(nodes[i]!.id, 'done'));
    expect(Math.max(...gaps)).toBeLessThan(1_000);
  });
});

/**
 * A worker writes results as it goes: with instant tools it never holds more nodes `running` in the
 * database than its slots plus the results waiting for the next group commit (4 per slot), so a
 * crash re-runs at most that many finished tools. Before the bound, one SQLite worker with
 * concurrency 4 held 188 of 200 such nodes `running` before it wrote any result.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openWorkspace, workflow, json, type Workspace } from './workspace.js';

const NODES = 200;
const CONCURRENCY = 4;
/** Slots, results waiting (4 per slot), and what one write hands back to the same worker. */
const BOUND = CONCURRENCY + 4 * CONCURRENCY + CONCURRENCY;

describe('results are written as the worker goes', () => {
  let ws: Workspace;
  beforeEach(async () => {
    ws = await openWorkspace();
  });
  afterEach(async () => {
    await ws.cleanup();
  });

  it(`holds at most ${BOUND} of ${NODES} instant nodes running at any point of the event log (concurrency ${CONCURRENCY})`, async () => {
    const ids = Array.from({ length: NODES }, (_, i) => `n${String(i).padStart(3, '0')}`);
    const planId = await ws.createPlan(workflow('instant', { nodes: ids.map((id) => `${id} [type=function toolCode=echo toolInput=${json({ id })}]`) }));
    const run = await ws.dotplan(['worker', '--until-idle', '--quiet', '--concurrency', String(CONCURRENCY)]);
    expect(run.code, run.stderr).toBe(0);
    let running = 0;
    let most = 0;
    for (const event of await ws.store.events.list(planId)) {
      if (event.kind !== 'status' || event.nodeId === undefined) continue;
      if (event.to === 'running') running++;
      if (event.from === 'running') running--;
      most = Math.max(most, running);
    }
    expect(running).toBe(0);
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(BOUND);
  });
});

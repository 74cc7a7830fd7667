/**
 * Retries with backoff and timeouts, as a user sees them in `plan events` and `plan show`: a flaky
 * tool succeeds on its third attempt after two waits that grow; a slow tool is aborted by its
 * timeout (the worker process exits long before the tool would have finished) and, with
 * onFailure=stop, the plan fails.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseDuration } from '../../src/model/duration.js';
import { openWorkspace, showPlan, workflow, json, type Workspace } from './workspace.js';

interface EventJson {
  nodeId?: string;
  from: string;
  to: string;
  reason?: string;
  at: string;
}

describe('retries and timeouts', () => {
  let ws: Workspace;
  beforeEach(async () => {
    ws = await openWorkspace();
  });
  afterEach(async () => {
    await ws.cleanup();
  });

  async function events(planId: string, nodeId?: string): Promise<EventJson[]> {
    const all = JSON.parse(await ws.ok(['plan', 'events', planId, '--json'])) as EventJson[];
    return all.filter((e) => e.nodeId === nodeId);
  }

  it('retries a flaky tool with growing delays until its third attempt succeeds', async () => {
    const planId = await ws.createPlan(
      workflow('flaky', { nodes: [`shaky [type=function toolCode=flaky toolInput=${json({ failures: 2 })} retries=3 retryDelay="200ms"]`] }),
    );
    const run = await ws.dotplan(['worker', '--until-idle']);
    expect(run.code).toBe(0);

    const plan = await showPlan(ws, planId);
    expect(plan.status).toBe('completed');
    expect(plan.nodes[0]).toMatchObject({ id: 'shaky', status: 'done', attempts: 3, output: JSON.stringify({ attempt: 3 }) });

    const moves = await events(planId, 'shaky');
    expect(moves.map((e) => `${e.from}→${e.to}`)).toEqual([
      'pending→ready',
      'ready→running',
      'running→ready',
      'ready→running',
      'running→ready',
      'ready→running',
      'running→done',
    ]);
    expect(moves[2]!.reason).toMatch(/^attempt 1 of 4 failed, retrying in \S+: flaky: attempt 1 fails$/);
    expect(moves[4]!.reason).toMatch(/^attempt 2 of 4 failed, retrying in \S+: flaky: attempt 2 fails$/);
    // Backoff with equal jitter: the first wait is 100–200 ms, the second 200–400 ms (as the reason
    // shows them, in whole ms: a wait of 399.6 ms reads 400ms); each next attempt is claimed once due —
    // not earlier, and not a poll later.
    const at = (i: number) => Date.parse(moves[i]!.at);
    const delay = (i: number) => parseDuration(/retrying in (\S+):/.exec(moves[i]!.reason ?? '')?.[1] ?? '') ?? NaN;
    expect(delay(2)).toBeGreaterThanOrEqual(100);
    expect(delay(2)).toBeLessThanOrEqual(200);
    expect(delay(4)).toBeGreaterThanOrEqual(200);
    expect(delay(4)).toBeLessThanOrEqual(400);
    for (const [failed, claimed] of [
      [2, 3],
      [4, 5],
    ] as const) {
      const due = at(failed) + delay(failed);
      // The failure's event is stamped when its write commits, a little after the delay began (up to
      // tens of ms on a loaded machine): not earlier than that, and far from the 100 ms minimum wait.
      expect(at(claimed)).toBeGreaterThanOrEqual(due - 50);
      expect(at(claimed) - due).toBeLessThan(1_000);
    }
  });

  it('aborts a slow tool at its timeout, fails the node without retrying, and fails the plan (onFailure=stop)', async () => {
    const planId = await ws.createPlan(
      workflow('timeout', {
        graph: { onFailure: 'stop' },
        nodes: [
          `slowpoke [type=function toolCode=slow toolInput=${json({ ms: 20_000 })} timeout="300ms" retries=0]`,
          `later [type=function toolCode=echo toolInput=${json({ never: true })}]`,
        ],
        edges: ['slowpoke -> later'],
      }),
    );
    const run = await ws.dotplanProcess(['worker', '--until-idle']);
    expect(run.code).toBe(0);
    // The tool's timer was cleared by the abort: nothing kept the worker process alive for 20 s (a subprocess, to see it exit).
    expect(run.elapsedMs).toBeLessThan(8_000);

    const plan = await showPlan(ws, planId);
    expect(plan.status).toBe('failed');
    expect(plan.error).toMatch(/slowpoke/);
    const byId = new Map(plan.nodes.map((n) => [n.id, n]));
    expect(byId.get('slowpoke')).toMatchObject({ status: 'failed', attempts: 1 });
    expect(byId.get('slowpoke')!.error).toMatch(/timed out after 0\.3 ?s|timed out after 300 ?ms/);
    expect(byId.get('later')!.status).not.toBe('done');

    const moves = await events(planId, 'slowpoke');
    expect(moves.map((e) => `${e.from}→${e.to}`)).toEqual(['pending→ready', 'ready→running', 'running→failed']);
    const took = Date.parse(moves[2]!.at) - Date.parse(moves[1]!.at);
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(2_000);
  });
});

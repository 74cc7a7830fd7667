/**
 * The step-cost counter (bench/step-costs.mjs) on a private PostgreSQL server: the design's promise,
 * counted — one round trip and one commit per chain step, two node updates and three events.
 */
import { describe, expect, it } from 'vitest';
import { measureStepCosts } from '../../src/bench/step-costs.js';
import { testBackend } from '../support/db.js';

describe.runIf(testBackend() === 'postgres')('what a step costs (a private PostgreSQL server)', () => {
  it('counts one round trip, one commit, two node updates and three events per chain step', async () => {
    const { chain, throughput } = await measureStepCosts({ chain: 200, nodes: 200 });
    const per = (n: number) => n / chain.steps;
    // The worker's first claim and its idle polls come on top of the steps: a few statements in all.
    expect(per(chain.costs.roundTrips)).toBeGreaterThanOrEqual(1);
    expect(per(chain.costs.roundTrips)).toBeLessThan(1.25);
    expect(per(chain.costs.commits)).toBeLessThan(1.25);
    expect(chain.costs.heap.nodes).toMatchObject({ inserted: 0, updated: 2 * chain.steps });
    expect(chain.costs.heap.events?.inserted).toBe(3 * chain.steps);
    expect(chain.costs.walBytes).toBeGreaterThan(0);
    // The most called statement is the step's own, once per step (and once more for the plan's end).
    expect(chain.costs.statements[0]!.calls - chain.steps).toBeGreaterThanOrEqual(0);
    expect(chain.costs.statements[0]!.calls - chain.steps).toBeLessThanOrEqual(2);
    expect(throughput.costs.heap.nodes).toMatchObject({ updated: 2 * throughput.nodes });
    expect(throughput.costs.roundTrips).toBeLessThan(throughput.nodes);
  }, 120_000);
});

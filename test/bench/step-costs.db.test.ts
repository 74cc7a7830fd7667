/**
 * The step-cost counter (bench/step-costs.mjs) on a private PostgreSQL server: the design's promise,
 * counted — one round trip and one commit per chain step, two node updates and three events.
 */
import { describe, expect, it } from 'vitest';
import { measureStepCosts } from '../../src/bench/step-costs.js';
import { testBackend } from '../support/db.js';

/** Round trips an agent step may take, the worker's first claim and polls and the server's own statements (foreign-key checks, the hold trigger) included: 19 over 30 steps when this was written, 29 before 2026-11-26 late. */
const PER_AGENT_STEP = 20;

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
    // Each index is listed with its scans, unused ones too (on tables this small the planner reads some by sequential scan).
    expect(Object.keys(chain.costs.indexScans)).toEqual(
      expect.arrayContaining(['nodes_status_run_after_id_idx', 'nodes_plan_id_status_idx', 'nodes_claimable_idx']),
    );
    expect(throughput.costs.roundTrips).toBeLessThan(throughput.nodes);
  }, 120_000);

  it("counts a join's parents through the one statement: only the end that makes the join ready goes through a transaction", async () => {
    const { join } = await measureStepCosts({ chain: 10, nodes: 10, join: 300 });
    const costs = join!.costs;
    expect(costs.heap.nodes).toMatchObject({ inserted: 0 });
    // Each parent's row twice (its claim, its end); the join's counted down with each write of parents, then claimed and ended.
    expect(costs.heap.nodes!.updated).toBeGreaterThan(2 * join!.parents);
    // A write of parents that the join's count still leaves waiting is one statement (each went through a transaction
    // before the thirtieth session); only the write with the last parent's end goes through one, where the join is read
    // under lock and made ready.
    const begins = costs.statements.find((s) => s.query === 'BEGIN')?.calls ?? 0;
    expect(begins).toBeGreaterThanOrEqual(1);
    expect(begins).toBeLessThanOrEqual(3);
  }, 120_000);

  it('counts an agent step: one plan, revision and node inserted for its child, one transaction, one step statement', async () => {
    const { agents } = await measureStepCosts({ chain: 10, nodes: 10, agents: 30 });
    const costs = agents!.costs;
    expect(costs.heap.plans?.inserted).toBe(agents!.steps);
    expect(costs.heap.revisions?.inserted).toBe(agents!.steps);
    expect(costs.heap.nodes?.inserted).toBe(agents!.steps);
    // One transaction per agent step: the child node's finish, which ends the child and its agent node, hands the
    // next agent node over and starts its child (two until 2026-11-27: the child's start was a transaction of its own).
    const begins = costs.statements.find((s) => s.query === 'BEGIN')?.calls ?? 0;
    expect(begins / agents!.steps).toBeGreaterThanOrEqual(1);
    expect(begins / agents!.steps).toBeLessThan(1.2);
    // The step statement runs once: the child node's finish with the child's end and the agent node's finish. The child's
    // start is not one: its rows are inserted as the start leaves them (four runs until 2026-11-26).
    // (Its variants are statements of their own, each with the parts its step uses: their calls are added up.)
    const stepCalls = costs.statements.filter((s) => s.query.startsWith('WITH v AS')).reduce((n, s) => n + s.calls, 0);
    expect(stepCalls / agents!.steps).toBeGreaterThanOrEqual(1);
    expect(stepCalls / agents!.steps).toBeLessThanOrEqual(1.1);
    // No node row is updated to start the child: the agent node twice (its wait, its end), the child's node once (its end), the next agent node's claim.
    expect(costs.heap.nodes!.updated / agents!.steps).toBeLessThanOrEqual(4.1);
    expect(costs.roundTrips / agents!.steps).toBeLessThanOrEqual(PER_AGENT_STEP);
  }, 120_000);
});

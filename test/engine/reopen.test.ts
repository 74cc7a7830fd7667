/**
 * An engine skip is a conclusion drawn from finished parents ("no taken edge reaches it"). When a
 * parent stops being finished (an operator retries it) or now lets its dependants through (an
 * operator skips it: the plan goes on as if it had finished with no output), the nodes the engine
 * skipped because of it are reopened — `skipped → pending`, then readiness as usual — and so are
 * the nodes skipped because of those. An operator's or the LLM's skip is a decision and stays.
 * `node retry` / `node skip` and a revision's `status="ready"` / `"skipped"` give the same result.
 */
import { describe, expect, it } from 'vitest';
import { answerTimedOut, finishAttempts, pause, resume, retry, revise, settle, skip, start, StepBuilder, type AttemptResult } from '../../src/engine/index.js';
import type { PlanGraph } from '../../src/model/types.js';
import { graph, SimPlan } from './sim.js';

const operator = { driver: 'operator' as const, name: 'ops' };
const worker = { retryDefaults: { retries: 0, retryDelay: '1s' }, owner: 'w1', claim: 0 };

function run(sim: SimPlan, id: string, result: AttemptResult): void {
  const b = new StepBuilder(sim.snapshot());
  b.claim(id, 'w1');
  sim.apply(b.build());
  sim.apply(finishAttempts(sim.snapshot(), [{ node: id, result, jitter: 0 }], worker));
}

const done = (output = 'ok'): AttemptResult => ({ kind: 'done', output });
const broke: AttemptResult = { kind: 'failed', error: 'boom', retryable: false };

/** Runs every ready node (done, output "yes") until none is left, then settles the plan. */
function runAll(sim: SimPlan): void {
  for (let ready = readyNodes(sim); ready.length > 0; ready = readyNodes(sim)) for (const id of ready) run(sim, id, done('yes'));
  sim.apply(settle(sim.plan, sim.facts()));
}
const readyNodes = (sim: SimPlan) => [...sim.nodes.values()].filter((n) => n.status === 'ready').map((n) => n.id);

/**
 * a fails under onFailure=continue: b (after a) and c (after b) are skipped by the engine; d after
 * a was skipped by an operator before; e is reached from x by an untaken `when` and from a; f only
 * by x's untaken `when`.
 */
const shape = (): PlanGraph =>
  graph(
    { a: {}, b: {}, c: {}, d: {}, x: {}, e: {}, f: {} },
    [
      ['a', 'b'],
      ['b', 'c'],
      ['a', 'd'],
      ['x', 'e', 'no'],
      ['a', 'e'],
      ['x', 'f', 'no'],
    ],
    { onFailure: 'continue' },
  );

function failedRun(): SimPlan {
  const sim = new SimPlan(shape());
  sim.apply(start(sim.snapshot(), sim.candidates()));
  sim.apply(skip(sim.snapshot(), 'd', operator, 'not this time'));
  run(sim, 'x', done('yes'));
  run(sim, 'a', broke);
  sim.apply(settle(sim.plan, sim.facts()));
  expect(sim.statuses()).toEqual({ a: 'failed', b: 'skipped', c: 'skipped', d: 'skipped', x: 'done', e: 'skipped', f: 'skipped' });
  expect(sim.plan.status).toBe('failed');
  return sim;
}

/** The plan as `plan show --format dot` gives it: the graph with each node's live status. */
function live(sim: SimPlan, g: PlanGraph): PlanGraph {
  return { ...g, nodes: g.nodes.map((n) => ({ ...n, attributes: { ...n.attributes, status: sim.nodes.get(n.id)!.status } })) };
}

describe('a retried node reopens what the engine skipped because it failed', () => {
  it('node retry: the skipped dependants wait again, cascading; operator skips and untaken branches stay; then they run', () => {
    const sim = failedRun();
    const step = sim.apply(retry(sim.snapshot(), 'a', operator, 'fixed', sim.candidates()))!;

    expect(sim.plan.status).toBe('running');
    expect(sim.statuses()).toEqual({ a: 'ready', b: 'pending', c: 'pending', d: 'skipped', x: 'done', e: 'pending', f: 'skipped' });
    expect(step.events.filter((e) => e.kind === 'status').map((e) => [e.node ?? 'plan', e.from, e.to, e.driver, e.reason])).toEqual([
      ['a', 'failed', 'ready', 'operator', 'fixed'],
      ['plan', 'failed', 'running', 'operator', 'resumed by ops'],
      ['b', 'skipped', 'pending', 'engine', 'reopened: its parent "a" is ready again'],
      ['e', 'skipped', 'pending', 'engine', 'reopened: its parent "a" is ready again'],
      ['c', 'skipped', 'pending', 'engine', 'reopened: its parent "b" is pending again'],
    ]);
    expect(step.changes.find((c) => c.node === 'b')!.set.skippedBy).toBeNull();

    runAll(sim);
    expect(sim.statuses()).toEqual({ a: 'done', b: 'done', c: 'done', d: 'skipped', x: 'done', e: 'done', f: 'skipped' });
    expect(sim.plan.status).toBe('completed');
  });

  it('a revision that sets status="ready" on the failed node gives the same moves as node retry', () => {
    const byRetry = failedRun();
    byRetry.apply(retry(byRetry.snapshot(), 'a', operator, 'fixed', byRetry.candidates()));

    const sim = failedRun();
    const current = live(sim, shape());
    const next = live(sim, shape());
    next.nodes.find((n) => n.id === 'a')!.attributes.status = 'ready';
    const revised = revise(sim.snapshot(), current, next, operator);
    sim.apply(revised.step);

    expect(sim.statuses()).toEqual(byRetry.statuses());
    expect(sim.statuses()).toMatchObject({ a: 'ready', b: 'pending', c: 'pending', d: 'skipped', e: 'pending', f: 'skipped' });
    expect(sim.plan.status).toBe('running');
    const moves = (s: SimPlan) => s.events.filter((e) => e.kind === 'status' && e.driver === 'engine' && e.from === 'skipped').map((e) => [e.node, e.to]);
    expect(moves(sim)).toEqual(moves(byRetry));
  });

  it('in a paused plan the reopened nodes wait, and run once it resumes', () => {
    const sim = new SimPlan(shape());
    sim.apply(start(sim.snapshot(), sim.candidates()));
    run(sim, 'x', done('yes'));
    run(sim, 'a', broke);
    expect(sim.plan.status).toBe('running'); // not settled yet
    sim.apply(pause(sim.snapshot(), operator, 'hold on'));
    sim.apply(retry(sim.snapshot(), 'a', operator, 'fixed', sim.candidates()));
    expect(sim.plan.status).toBe('paused');
    expect(sim.statuses()).toMatchObject({ a: 'ready', b: 'pending', c: 'pending', e: 'pending', f: 'skipped' });
    sim.apply(resume(sim.snapshot(), operator, 'go', sim.candidates()));
    runAll(sim);
    expect(sim.statuses()).toEqual({ a: 'done', b: 'done', c: 'done', d: 'done', x: 'done', e: 'done', f: 'skipped' });
    expect(sim.plan.status).toBe('completed');
  });
});

describe("an operator's skip of a failed node lets the plan go on past it", () => {
  it('the dependants the failure skipped run; a `when` from the skipped node is decided on an empty value', () => {
    const g = graph(
      { a: {}, b: {}, c: {}, yes: {}, notyes: {} },
      [
        ['a', 'b'],
        ['b', 'c'],
        ['a', 'yes', 'yes'],
        ['a', 'notyes', '!yes'],
      ],
      { onFailure: 'continue' },
    );
    const sim = new SimPlan(g);
    sim.apply(start(sim.snapshot(), sim.candidates()));
    run(sim, 'a', broke);
    sim.apply(settle(sim.plan, sim.facts()));
    expect(sim.plan.status).toBe('failed');

    const step = sim.apply(skip(sim.snapshot(), 'a', operator, 'not needed', sim.candidates()))!;
    expect(sim.statuses()).toEqual({ a: 'skipped', b: 'ready', c: 'pending', yes: 'skipped', notyes: 'ready' });
    expect(step.events.find((e) => e.node === 'b' && e.from === 'skipped')!.reason).toBe('reopened: its parent "a" was skipped by an operator');
    runAll(sim);
    expect(sim.statuses()).toEqual({ a: 'skipped', b: 'done', c: 'done', yes: 'skipped', notyes: 'done' });
    expect(sim.plan.status).toBe('completed');
  });
});

describe('the error of a plan failed by its nodes', () => {
  it('onFailure=continue: the plan that settles as failed names the first node that failed, and how many others did', () => {
    const plan = { id: 'p', status: 'running' as const, mode: 'workflow', attributes: {} };
    const one = settle(plan, { active: false, failed: true, failures: { count: 1, first: [{ node: 'x', error: 'boom' }] } })!;
    expect(one.planChange).toEqual({ from: 'running', to: 'failed', error: 'node "x" failed: boom' });
    expect(one.events[0]!.reason).toBe('node "x" failed: boom');
    const many = settle(plan, {
      active: false,
      failed: true,
      failures: {
        count: 4,
        first: [{ node: 'x', error: 'boom' }, { node: 'y', error: 'bang' }, { node: 'z' }],
      },
    })!;
    expect(many.planChange!.error).toBe('node "x" failed: boom (3 more nodes failed: "y", "z" and 1 other)');
  });

  it('onFailure=stop: a question that times out without a default fails the plan at once, as a failed tool does', () => {
    const sim = new SimPlan(graph({ q: { type: 'confirm', question: 'ok?' }, after: {}, other: {} }, [['q', 'after']]));
    sim.apply(start(sim.snapshot(), sim.candidates()));
    const b = new StepBuilder(sim.snapshot());
    b.claim('q', 'w1');
    sim.apply(b.build());
    sim.apply(finishAttempts(sim.snapshot(), [{ node: 'q', result: { kind: 'asked' }, jitter: 0 }], worker));
    const step = sim.apply(answerTimedOut(sim.snapshot(), 'q', 'no answer within 1s'))!;
    expect(sim.plan.status).toBe('failed');
    expect(step.planChange!.error).toBe('node "q" failed: no answer: no answer within 1s, and the node has no default');
    expect(sim.status('after')).toBe('pending'); // kept for a retry, not skipped
  });
});

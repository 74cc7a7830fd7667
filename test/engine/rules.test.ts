import { describe, expect, it } from 'vitest';
import {
  answer,
  answerTimedOut,
  cancel,
  expireLeases,
  finishAttempts,
  NeedsMore,
  pause,
  resume,
  retry,
  settle,
  skip,
  snapshotOf,
  start,
  StepBuilder,
  type AttemptResult,
} from '../../src/engine/index.js';
import { IllegalTransitionError } from '../../src/state/node-moves.js';
import { graph, SimPlan } from './sim.js';

const defaults = { retryDefaults: { retries: 0, retryDelay: '1s' }, owner: 'w1', claim: 0 };
const person = { driver: 'person' as const, name: 'ada' };
const operator = { driver: 'operator' as const, name: 'ops' };

function started(g: ReturnType<typeof graph>): SimPlan {
  const sim = new SimPlan(g);
  sim.apply(start(sim.snapshot(), sim.candidates()));
  return sim;
}

function claim(sim: SimPlan, id: string, owner = 'w1'): void {
  const b = new StepBuilder(sim.snapshot());
  b.claim(id, owner);
  sim.apply(b.build());
}

function end(sim: SimPlan, id: string, result: AttemptResult, options: Partial<typeof defaults> = {}) {
  return sim.apply(finishAttempts(sim.snapshot(), [{ node: id, result, jitter: 0.5 }], { ...defaults, ...options }))!;
}

const done = (output = 'ok'): AttemptResult => ({ kind: 'done', output });

describe('starting a plan', () => {
  it('makes the roots ready and leaves the rest pending, counting what each waits for', () => {
    const sim = started(
      graph({ a: {}, b: {}, c: {} }, [
        ['a', 'c'],
        ['b', 'c'],
      ]),
    );
    expect(sim.statuses()).toEqual({ a: 'ready', b: 'ready', c: 'pending' });
    expect(sim.nodes.get('c')!.waiting).toBe(2);
    expect(sim.plan.status).toBe('running');
  });

  it('waits for a reviewer when review="required", with nothing ready', () => {
    const sim = started(graph({ a: {} }, [], { review: 'required' }));
    expect(sim.plan.status).toBe('awaiting_review');
    expect(sim.status('a')).toBe('pending');
  });

  it('takes authored finished nodes into account: a node after a done one starts ready', () => {
    const sim = started(
      graph({ a: { status: 'done', toolOutput: 'yes' }, b: {}, c: {} }, [
        ['a', 'b', 'yes'],
        ['a', 'c', 'no'],
      ]),
    );
    expect(sim.statuses()).toEqual({ a: 'done', b: 'ready', c: 'skipped' });
  });
});

describe('finishing attempts', () => {
  it('moves a chain on: done, the next node ready, and with a free slot claimed by the same worker', () => {
    const sim = started(
      graph({ a: {}, b: {}, c: {} }, [
        ['a', 'b'],
        ['b', 'c'],
      ]),
    );
    claim(sim, 'a');
    const step = end(sim, 'a', done('A'), { claim: 1 });
    expect(sim.statuses()).toEqual({ a: 'done', b: 'running', c: 'pending' });
    expect(step.events.map((e) => [e.node, e.from, e.to, e.actor])).toEqual([
      ['a', 'running', 'done', 'w1'],
      ['b', 'pending', 'ready', undefined],
      ['b', 'ready', 'running', 'w1'],
    ]);
    expect(step.changes.find((c) => c.node === 'b')).toMatchObject({ expect: { status: 'pending', waiting: 1 }, status: 'running', waiting: 0, claim: true });
    expect(sim.nodes.get('b')!.attempts).toBe(1);
    expect(step.readyLeft).toBe(false);
  });

  it('leaves ready work to any worker when it has no free slot', () => {
    const sim = started(graph({ a: {}, b: {} }, [['a', 'b']]));
    claim(sim, 'a');
    const step = end(sim, 'a', done());
    expect(sim.status('b')).toBe('ready');
    expect(step.readyLeft).toBe(true);
    expect(step.settle).toBe(false);
  });

  it('runs a join once every source has finished, decrementing one counter per finished source', () => {
    const sim = started(
      graph({ a: {}, b: {}, j: {} }, [
        ['a', 'j'],
        ['b', 'j'],
      ]),
    );
    claim(sim, 'a');
    claim(sim, 'b');
    const first = end(sim, 'a', done());
    expect(first.changes.map((c) => c.node)).toEqual(['a', 'j']); // the other source is not read
    expect(sim.nodes.get('j')).toMatchObject({ status: 'pending', waiting: 1, taken: 1 });
    end(sim, 'b', done());
    expect(sim.status('j')).toBe('ready');
  });

  it('follows `when` branches, skips the untaken one with everything only it reaches, and runs the join', () => {
    const sim = started(
      graph({ q: { type: 'confirm', question: 'go?' }, yes: {}, no: {}, after_no: {}, join: {} }, [
        ['q', 'yes', 'yes|y'],
        ['q', 'no', '!yes|y'],
        ['no', 'after_no'],
        ['yes', 'join'],
        ['after_no', 'join'],
      ]),
    );
    claim(sim, 'q');
    end(sim, 'q', { kind: 'asked', question: 'go now?' });
    expect(sim.status('q')).toBe('awaiting_input');
    expect(sim.nodes.get('q')!.attributes!.question).toBe('go now?');
    sim.apply(answer(sim.snapshot(), 'q', 'Y', person));
    expect(sim.statuses()).toMatchObject({ q: 'done', yes: 'ready', no: 'skipped', after_no: 'skipped', join: 'pending' });
    claim(sim, 'yes');
    end(sim, 'yes', done());
    expect(sim.status('join')).toBe('ready');
    expect(sim.events.find((e) => e.kind === 'answer')).toMatchObject({ node: 'q', driver: 'person', actor: 'ada', detail: { answer: 'Y' } });
  });

  it('retries a retryable failure after a backoff while retries allow, then fails the node and (onFailure=stop) the plan', () => {
    const sim = started(graph({ a: { retries: '1', retryDelay: '1s' }, b: {} }, [['a', 'b']]));
    claim(sim, 'a');
    const first = end(sim, 'a', { kind: 'failed', error: 'flaky', retryable: true });
    expect(sim.status('a')).toBe('ready');
    const change = first.changes[0]!;
    expect(change.set.runAfterDelayMs).toBe(750); // 1s base, equal jitter at 0.5
    expect(first.events[0]!.reason).toBe('attempt 1 of 2 failed, retrying in 750ms: flaky');
    claim(sim, 'a');
    end(sim, 'a', { kind: 'failed', error: 'flaky again', retryable: true });
    expect(sim.status('a')).toBe('failed');
    expect(sim.plan.status).toBe('failed');
    expect(sim.status('b')).toBe('pending'); // kept for a retry
    expect(sim.nodes.get('b')!.waiting).toBe(0);
  });

  it('does not retry an error marked not retryable', () => {
    const sim = started(graph({ a: { retries: '3' } }));
    claim(sim, 'a');
    end(sim, 'a', { kind: 'failed', error: 'bad input', retryable: false });
    expect(sim.status('a')).toBe('failed');
  });

  it("with onFailure=continue skips the failed node's dependants, runs the other branches, and settles as failed", () => {
    const sim = started(
      graph(
        { a: {}, b: {}, after_a: {}, join: {} },
        [
          ['a', 'after_a'],
          ['after_a', 'join'],
          ['b', 'join'],
        ],
        { onFailure: 'continue' },
      ),
    );
    claim(sim, 'a');
    claim(sim, 'b');
    end(sim, 'a', { kind: 'failed', error: 'x', retryable: false });
    expect(sim.plan.status).toBe('running');
    expect(sim.status('after_a')).toBe('skipped');
    const last = end(sim, 'b', done());
    expect(sim.status('join')).toBe('ready');
    claim(sim, 'join');
    const final = end(sim, 'join', done());
    expect(last.settle).toBe(false);
    expect(final.settle).toBe(true);
    sim.apply(settle(sim.plan, sim.facts()));
    expect(sim.plan.status).toBe('failed');
  });

  it('releases a node at shutdown without counting the attempt', () => {
    const sim = started(graph({ a: {} }));
    claim(sim, 'a');
    end(sim, 'a', { kind: 'released' });
    expect(sim.nodes.get('a')).toMatchObject({ status: 'ready', attempts: 0 });
  });

  it('asks for the dependents it was not given, rather than guessing', () => {
    const sim = started(graph({ a: {}, b: {} }, [['a', 'b']]));
    claim(sim, 'a');
    const partial = { ...sim.snapshot(), edges: new Map() };
    expect(() => finishAttempts(partial, [{ node: 'a', result: done(), jitter: 0 }], defaults)).toThrow(NeedsMore);
  });
});

describe('lease expiry', () => {
  it('puts the node back to ready, and fails it once its attempts are used up (at least two retries by default)', () => {
    const sim = started(graph({ a: {} }));
    for (let attempt = 1; attempt <= 3; attempt++) {
      claim(sim, 'a');
      sim.apply(expireLeases(sim.snapshot(), [{ node: 'a', owner: 'dead' }], defaults.retryDefaults, 2));
    }
    expect(sim.status('a')).toBe('failed');
    expect(sim.nodes.get('a')!.error).toBe('lease expired (worker dead stopped renewing it) on attempt 3 of 3');
    expect(sim.plan.status).toBe('failed');
  });
});

describe('people and operators', () => {
  it('answers once: the same text again changes nothing, another is a conflict, a node not waiting is refused', () => {
    const sim = started(graph({ q: { type: 'confirm', question: 'ok?' }, x: {} }));
    expect(() => answer(sim.snapshot(), 'x', 'yes', person)).toThrow(/is ready, not awaiting_input/);
    claim(sim, 'q');
    end(sim, 'q', { kind: 'asked' });
    sim.apply(answer(sim.snapshot(), 'q', 'yes', person));
    expect(answer(sim.snapshot(), 'q', ' yes ', person)).toBeUndefined();
    expect(() => answer(sim.snapshot(), 'q', 'no', person)).toThrow(/already answered "yes"/);
  });

  it("an agent node's question is its agent's: the answer sends it back to ready (the attempt not counted), not done; a second question clears nothing of the plan", () => {
    const sim = started(graph({ ext: { type: 'agent', agentCode: 'remote' }, after: {} }, [['ext', 'after']]));
    claim(sim, 'ext');
    end(sim, 'ext', { kind: 'asked', question: 'Which colour?', options: ['red', 'green, or blue'] });
    expect(sim.status('ext')).toBe('awaiting_input');
    // The agent's options, each one item (a comma inside one would split it).
    expect(sim.nodes.get('ext')!.attributes).toMatchObject({ question: 'Which colour?', options: 'red,green or blue' });
    expect(() => answer(sim.snapshot(), 'ext', 'blue', person)).toThrow(/takes one of "red", "green or blue"/);
    sim.apply(answer(sim.snapshot(), 'ext', 'RED', person));
    expect(sim.statuses()).toMatchObject({ ext: 'ready', after: 'pending' });
    expect(sim.nodes.get('ext')).toMatchObject({ answer: 'red', attempts: 0 });
    // The same answer again (before its agent took it) changes nothing; another is a conflict.
    expect(answer(sim.snapshot(), 'ext', 'red', person)).toBeUndefined();
    expect(() => answer(sim.snapshot(), 'ext', 'green or blue', person)).toThrow(/already answered "red"/);
    claim(sim, 'ext');
    expect(sim.nodes.get('ext')!.attempts).toBe(1);
    // The agent asks again, with no options this time: the earlier ones are dropped.
    end(sim, 'ext', { kind: 'asked', question: 'Why?', options: [] });
    expect(sim.nodes.get('ext')!.attributes!.options).toBeUndefined();
    sim.apply(answer(sim.snapshot(), 'ext', 'because', person));
    claim(sim, 'ext');
    end(sim, 'ext', done());
    expect(sim.statuses()).toMatchObject({ ext: 'done', after: 'ready' });
  });

  it("an agent node's question timed out: its default goes back to the agent (ready), a confirm node's finishes it", () => {
    const sim = started(graph({ ext: { type: 'agent', agentCode: 'remote', default: 'green' }, q: { type: 'confirm', question: 'ok?', default: 'yes' } }));
    for (const id of ['ext', 'q']) {
      claim(sim, id);
      end(sim, id, { kind: 'asked' });
      sim.apply(answerTimedOut(sim.snapshot(), id, 'answerTimeout 1h passed'));
    }
    expect(sim.statuses()).toMatchObject({ ext: 'ready', q: 'done' });
    expect(sim.nodes.get('ext')!.answer).toBe('green');
  });

  it('retries a failed node: the plan resumes, the attempts start afresh, its dependants wait for it again', () => {
    const sim = started(graph({ a: {}, b: {} }, [['a', 'b']]));
    claim(sim, 'a');
    end(sim, 'a', { kind: 'failed', error: 'x', retryable: false });
    expect(sim.nodes.get('b')!.waiting).toBe(0);
    sim.apply(retry(sim.snapshot(), 'a', operator, 'retried', sim.candidates()));
    expect(sim.plan.status).toBe('running');
    expect(sim.nodes.get('a')).toMatchObject({ status: 'ready', attempts: 0, error: undefined });
    expect(sim.nodes.get('b')).toMatchObject({ status: 'pending', waiting: 1 });
    claim(sim, 'a');
    end(sim, 'a', done());
    expect(sim.status('b')).toBe('ready');
  });

  it("lets the plan go on past an operator's skip, but not past an untaken branch", () => {
    const sim = started(
      graph({ a: {}, b: {}, c: {} }, [
        ['a', 'b'],
        ['a', 'c', 'yes'],
      ]),
    );
    sim.apply(skip(sim.snapshot(), 'a', operator, 'not needed'));
    expect(sim.statuses()).toEqual({ a: 'skipped', b: 'ready', c: 'skipped' });
    expect(sim.nodes.get('a')!.skippedBy).toBe('operator');
  });

  it('refuses a move the operator may not make, naming node, from, to and driver, and changes nothing', () => {
    const sim = started(graph({ a: {} }));
    claim(sim, 'a');
    end(sim, 'a', done());
    expect(() => skip(sim.snapshot(), 'a', operator, 'x')).toThrow(IllegalTransitionError);
    expect(() => retry(sim.snapshot(), 'a', operator, 'x')).toThrow(/node "a": operator may not move it from done to ready/);
  });

  it('pauses: finished nodes make nothing ready until the plan resumes', () => {
    const sim = started(graph({ a: {}, b: {} }, [['a', 'b']]));
    claim(sim, 'a');
    sim.apply(pause(sim.snapshot(), operator, 'paused'));
    end(sim, 'a', done(), { claim: 1 });
    expect(sim.statuses()).toEqual({ a: 'done', b: 'pending' });
    sim.apply(resume(sim.snapshot(), operator, 'resumed', sim.candidates()));
    expect(sim.statuses()).toEqual({ a: 'done', b: 'ready' });
  });

  it('cancels the plan and every node that has not finished; finished ones stay as they are', () => {
    const sim = started(
      graph({ a: {}, b: {}, c: {} }, [
        ['a', 'b'],
        ['b', 'c'],
      ]),
    );
    claim(sim, 'a');
    end(sim, 'a', done());
    claim(sim, 'b');
    const step = sim.apply(cancel(sim.snapshot(), operator, 'no longer needed'))!;
    expect(sim.statuses()).toEqual({ a: 'done', b: 'cancelled', c: 'cancelled' });
    expect(sim.plan.status).toBe('cancelled');
    expect(step.events[0]).toMatchObject({ driver: 'operator', actor: 'ops', to: 'cancelled', reason: 'no longer needed' });
    expect(step.events[1]).toMatchObject({ node: 'b', driver: 'engine', from: 'running', reason: 'the plan was cancelled by ops' });
  });
});

describe('settling', () => {
  it('completes a running workflow plan with nothing active, fails it when a node failed, and leaves others alone', () => {
    const plan = { id: 'p', status: 'running' as const, mode: 'workflow', attributes: {} };
    expect(settle(plan, { active: false, failed: false })!.planChange).toEqual({ from: 'running', to: 'completed' });
    expect(settle(plan, { active: false, failed: true })!.planChange).toEqual({
      from: 'running',
      to: 'failed',
      error: 'a node failed and nothing is left to run',
    });
    expect(settle(plan, { active: true, failed: false })).toBeUndefined();
    expect(settle({ ...plan, status: 'paused' }, { active: false, failed: false })).toBeUndefined();
  });
});

describe('the cost of a join', () => {
  it("finishing one parent of a 10,000-wide join needs only that parent and the join: the join's counters say the rest", () => {
    const width = 10_000;
    const nodes: Record<string, Record<string, string>> = { join: {} };
    const edges: Array<[string, string]> = [];
    for (let i = 0; i < width; i++) {
      nodes[`s${i}`] = {};
      edges.push([`s${i}`, 'join']);
    }
    const sim = started(graph(nodes, edges));
    const claims = new StepBuilder(sim.snapshot());
    for (let i = 0; i < width; i++) claims.claim(`s${i}`, 'w1');
    sim.apply(claims.build());
    const only = (id: string) => snapshotOf(sim.plan, [{ ...sim.nodes.get(id)! }, { ...sim.nodes.get('join')! }], new Map([[id, sim.edges.get(id)!]]));
    for (let i = 0; i < width - 1; i++) {
      // No other parent is in the snapshot: a rule that read them would throw NeedsMore.
      sim.apply(finishAttempts(only(`s${i}`), [{ node: `s${i}`, result: done(), jitter: 0 }], defaults));
    }
    expect(sim.nodes.get('join')).toMatchObject({ status: 'pending', waiting: 1, taken: width - 1 });
    const last = sim.apply(finishAttempts(only(`s${width - 1}`), [{ node: `s${width - 1}`, result: done(), jitter: 0 }], defaults))!;
    expect(sim.status('join')).toBe('ready');
    expect(last.changes.map((c) => c.node)).toEqual([`s${width - 1}`, 'join']);
  });
});

describe('reflection plans: the LLM makes nodes ready, the engine asks it after each step (SPEC §6)', () => {
  const reflection = () => graph({ a: { status: 'ready' }, b: {} }, [['a', 'b']], { mode: 'reflection', goal: 'g' });

  it('asks for a plan when the plan starts, and never makes a pending node ready by itself', () => {
    const sim = new SimPlan(reflection());
    const step = sim.apply(start(sim.snapshot(), sim.candidates()))!;
    expect(step.askLlm).toBe(true);
    claim(sim, 'a');
    const finished = end(sim, 'a', done());
    expect(finished.askLlm).toBe(true);
    expect(sim.statuses()).toEqual({ a: 'done', b: 'pending' }); // b waits for the LLM
  });

  it('asks after a failure, a skip and an answer, not after a retryable failure going back to ready, nor after the LLM’s own moves', () => {
    const sim = new SimPlan(
      graph({ a: { status: 'ready', retries: '1' }, q: { type: 'confirm', question: 'ok?', status: 'ready' }, c: {} }, [], { mode: 'reflection' }),
    );
    sim.apply(start(sim.snapshot(), []));
    claim(sim, 'a');
    expect(end(sim, 'a', { kind: 'failed', error: 'x', retryable: true }).askLlm).toBeUndefined(); // back to ready for its retry
    claim(sim, 'a');
    expect(end(sim, 'a', { kind: 'failed', error: 'x', retryable: true }).askLlm).toBe(true);
    claim(sim, 'q');
    expect(end(sim, 'q', { kind: 'asked' }).askLlm).toBeUndefined(); // waiting for a person is not a result yet
    expect(sim.apply(answer(sim.snapshot(), 'q', 'yes', person))!.askLlm).toBe(true);
    const llm = new StepBuilder(sim.snapshot());
    llm.move('c', 'skipped', { driver: 'llm' }, 'not needed');
    expect(llm.build().askLlm).toBeUndefined();
    expect(sim.apply(skip(sim.snapshot(), 'c', operator, 'no', []))!.askLlm).toBe(true);
  });

  it('does not ask in workflow mode', () => {
    const sim = started(graph({ a: {} }));
    claim(sim, 'a');
    expect(end(sim, 'a', done()).askLlm).toBeUndefined();
  });
});

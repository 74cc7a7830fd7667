import { describe, expect, it } from 'vitest';
import { finishAttempts, revise, start, StepBuilder, type AttemptResult } from '../../src/engine/index.js';
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

/** The plan as `plan show --format dot` gives it: the graph with each node's live status and fields. */
function live(sim: SimPlan, g: PlanGraph): PlanGraph {
  return {
    ...g,
    nodes: g.nodes.map((n) => {
      const s = sim.nodes.get(n.id);
      if (!s) return n;
      return {
        ...n,
        attributes: {
          ...n.attributes,
          status: s.status,
          ...(s.output !== undefined ? { toolOutput: s.output } : {}),
          ...(s.error !== undefined ? { error: s.error } : {}),
        },
      };
    }),
  };
}

describe('a revision of a running plan', () => {
  it('inserts a node between two pending ones, changes an input and retries the failed node in one step; the failed plan resumes', () => {
    const g = graph({ a: {}, b: {}, c: { toolInput: 'old' } }, [
      ['a', 'b'],
      ['b', 'c'],
    ]);
    const sim = new SimPlan(g);
    sim.apply(start(sim.snapshot(), sim.candidates()));
    run(sim, 'a', { kind: 'done', output: 'A' });
    run(sim, 'b', { kind: 'failed', error: 'boom', retryable: false });
    expect(sim.plan.status).toBe('failed');

    const current = live(sim, g);
    const next = live(
      sim,
      graph({ a: {}, b: {}, n: { toolInput: 'new node' }, c: { toolInput: 'new' } }, [
        ['a', 'b'],
        ['b', 'n'],
        ['n', 'c'],
      ]),
    );
    next.nodes.find((n) => n.id === 'b')!.attributes.status = 'ready';
    const revised = revise(sim.snapshot(), current, next, operator);

    expect(revised.deletes).toEqual([]);
    expect(revised.inserts).toMatchObject([{ id: 'n', status: 'pending', waiting: 1, taken: 0 }]);
    expect(revised.step.planChange).toEqual({ from: 'failed', to: 'running', error: null });
    const byNode = new Map(revised.step.changes.map((c) => [c.node, c]));
    expect(byNode.get('b')).toMatchObject({ expect: { status: 'failed' }, status: 'ready', set: { attempts: 0, error: null } });
    expect(byNode.get('c')).toMatchObject({ status: 'pending', waiting: 1, set: { attributes: { toolInput: 'new' } } });
    expect([...revised.edges.entries()].filter(([, out]) => out.length > 0)).toEqual([
      ['a', [{ to: 'b' }]],
      ['b', [{ to: 'n' }]],
      ['n', [{ to: 'c' }]],
    ]);
    const moves = revised.step.events.filter((e) => e.kind === 'status').map((e) => [e.node ?? 'plan', e.from, e.to, e.driver]);
    expect(moves).toEqual([
      ['b', 'failed', 'ready', 'operator'],
      ['plan', 'failed', 'running', 'operator'],
    ]);
    expect(revised.step.events.filter((e) => e.kind === 'revision').map((e) => e.reason)).toEqual([
      'node b: status changed',
      'node n added',
      'node c: toolInput changed',
      'edge b -> n added',
      'edge n -> c added',
      'edge b -> c removed',
    ]);
  });

  it('decides the readiness of what the revision makes reachable: a new node after a done one is ready at once', () => {
    const g = graph({ a: {}, b: {} }, [['a', 'b']]);
    const sim = new SimPlan(g);
    sim.apply(start(sim.snapshot(), sim.candidates()));
    run(sim, 'a', { kind: 'done', output: 'yes' });
    const current = live(sim, g);
    const next = live(
      sim,
      graph({ a: {}, b: {}, yes: {}, no: {} }, [
        ['a', 'b'],
        ['a', 'yes', 'yes'],
        ['a', 'no', 'no'],
      ]),
    );
    const revised = revise(sim.snapshot(), current, next, operator);
    expect(revised.inserts.map((n) => [n.id, n.status])).toEqual([
      ['yes', 'ready'],
      ['no', 'skipped'],
    ]);
  });
});

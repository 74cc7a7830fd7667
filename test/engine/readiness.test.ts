import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { finishAttempts, isTaken, readinessOf, retry, skip, start, StepBuilder, type NodeState } from '../../src/engine/index.js';
import { TERMINAL_NODE_STATUSES } from '../../src/model/status.js';
import type { Attributes } from '../../src/model/types.js';
import { InvalidInputError } from '../../src/errors/errors.js';
import { graph, SimPlan } from './sim.js';

const source = (status: NodeState['status'], extra: Partial<NodeState> = {}) => ({ status, ...extra });

describe('workflow readiness', () => {
  it('takes an edge from a done source unless its `when` does not match the answer, else the output', () => {
    expect(isTaken(source('done'))).toBe(true);
    expect(isTaken(source('done', { answer: ' Yes ' }), 'yes|y')).toBe(true);
    expect(isTaken(source('done', { answer: 'yes' }), '!yes|y')).toBe(false);
    expect(isTaken(source('done', { output: 'Approved by Ada' }), '/^appr/i')).toBe(true);
    expect(isTaken(source('done', { output: 'yes', answer: 'no' }), 'no')).toBe(true);
  });

  it('takes no edge from failed, cancelled or untaken-branch sources, and the edges of an operator-skipped one', () => {
    for (const status of ['failed', 'cancelled', 'skipped', 'running', 'pending'] as const) expect(isTaken(source(status))).toBe(false);
    expect(isTaken(source('skipped', { skippedBy: 'operator' }))).toBe(true);
    expect(isTaken(source('skipped', { skippedBy: 'engine' }))).toBe(false);
    expect(isTaken(source('skipped', { skippedBy: 'operator' }), 'yes')).toBe(false); // no answer or output to match
  });

  it('makes a node ready when nothing is left to wait for and an edge was taken (or it has none), skipped otherwise', () => {
    expect(readinessOf({ waiting: 1, taken: 3 })).toBe('wait');
    expect(readinessOf({ waiting: 0, taken: 1 })).toBe('ready');
    expect(readinessOf({ waiting: 0, taken: 0, root: true })).toBe('ready');
    expect(readinessOf({ waiting: 0, taken: 0 })).toBe('skipped');
  });
});

/**
 * The definition of readiness over a node's incoming edges, computed from scratch; the engine keeps
 * it incrementally in counters, and this property holds the two together.
 */
function fromScratch(sim: SimPlan, id: string): { waiting: number; taken: number } {
  let waiting = 0;
  let taken = 0;
  for (const [from, edges] of sim.edges) {
    for (const edge of edges) {
      if (edge.to !== id) continue;
      const s = sim.nodes.get(from)!;
      if (!TERMINAL_NODE_STATUSES.has(s.status)) waiting++;
      else if (isTaken(s, edge.when)) taken++;
    }
  }
  return { waiting, taken };
}

const planArb = fc.integer({ min: 2, max: 12 }).chain((n) =>
  fc.record({
    n: fc.constant(n),
    edges: fc.uniqueArray(
      fc.tuple(fc.nat(n - 1), fc.nat(n - 1)).filter(([a, b]) => a < b),
      { selector: ([a, b]) => `${a}-${b}`, maxLength: n * 2 },
    ),
    whens: fc.array(fc.constantFrom(undefined, 'yes', '!yes', '/^n/'), { minLength: 30, maxLength: 30 }),
    outcomes: fc.array(fc.constantFrom('yes', 'no', 'fail', 'retry'), { minLength: n, maxLength: n }),
    onFailure: fc.constantFrom('stop', 'continue'),
    picks: fc.array(fc.nat(), { minLength: 40, maxLength: 40 }),
    operator: fc.array(fc.constantFrom('none', 'none', 'retry', 'skip'), { minLength: 40, maxLength: 40 }),
  }),
);

describe('incremental readiness', () => {
  it("keeps every node's counters equal to the definition, and decides each pending node as the definition does", () => {
    fc.assert(
      fc.property(planArb, ({ n, edges, whens, outcomes, onFailure, picks, operator }) => {
        const nodes = Object.fromEntries(Array.from({ length: n }, (_, i) => [`n${i}`, (outcomes[i] === 'retry' ? { retries: '1' } : {}) as Attributes]));
        const sim = new SimPlan(
          graph(
            nodes,
            edges.map(([a, b], i) => [`n${a}`, `n${b}`, whens[i % whens.length]]),
            { onFailure },
          ),
        );
        const isRoot = (id: string) => ![...sim.edges.values()].some((list) => list.some((e) => e.to === id));
        /** Applies a step and checks each readiness decision in it against the definition. */
        const apply = (step: Parameters<SimPlan['apply']>[0]) => {
          sim.apply(step);
          for (const event of step?.events ?? []) {
            if (event.driver !== 'engine' || event.from !== 'pending' || event.node === undefined) continue;
            const { waiting, taken } = fromScratch(sim, event.node);
            expect(waiting).toBe(0);
            expect(event.to === 'ready' ? taken > 0 || isRoot(event.node) : taken === 0 && !isRoot(event.node)).toBe(true);
          }
          for (const id of sim.nodes.keys())
            expect({ id, ...fromScratch(sim, id) }).toEqual({ id, waiting: sim.nodes.get(id)!.waiting, taken: sim.nodes.get(id)!.taken });
          // An engine skip holds only while its reason does: every source finished and none let it through.
          for (const node of sim.nodes.values())
            if (node.status === 'skipped' && node.skippedBy === 'engine')
              expect({ id: node.id, readiness: readinessOf(node) }).toEqual({ id: node.id, readiness: 'skipped' });
        };
        apply(start(sim.snapshot(), sim.candidates()));
        const attempts = new Map<string, number>();
        for (let round = 0; round < 40; round++) {
          // Now and then an operator retries a failed node or skips one that has not run.
          const action = operator[round]!;
          const movable = [...sim.nodes.values()].filter((x) =>
            action === 'retry' ? x.status === 'failed' : ['pending', 'ready', 'failed'].includes(x.status),
          );
          if (action !== 'none' && movable.length > 0 && sim.plan.status !== 'completed') {
            const target = movable[picks[round]! % movable.length]!.id;
            let step;
            try {
              step = (action === 'retry' ? retry : skip)(sim.snapshot(), target, { driver: 'operator' }, action, sim.candidates());
            } catch (error) {
              // A retry is refused, and only then, while a node it waits for has not finished (retried itself, say).
              expect(error).toBeInstanceOf(InvalidInputError);
              const sources = [...sim.edges].filter(([, out]) => out.some((e) => e.to === target)).map(([from]) => sim.nodes.get(from)!);
              expect(action === 'retry' && sources.some((s) => !TERMINAL_NODE_STATUSES.has(s.status))).toBe(true);
              continue;
            }
            apply(step);
            continue;
          }
          const ready = [...sim.nodes.values()].filter((x) => x.status === 'ready');
          if (ready.length === 0 || sim.plan.status !== 'running') break;
          const node = ready[picks[round]! % ready.length]!;
          const b = new StepBuilder(sim.snapshot());
          b.claim(node.id, 'w');
          apply(b.build());
          const outcome = outcomes[Number(node.id.slice(1))]!;
          const tries = (attempts.get(node.id) ?? 0) + 1;
          attempts.set(node.id, tries);
          const result =
            outcome === 'fail' || (outcome === 'retry' && tries === 1)
              ? { kind: 'failed' as const, error: 'x', retryable: true }
              : { kind: 'done' as const, output: outcome === 'retry' ? 'yes' : outcome };
          apply(
            finishAttempts(sim.snapshot(), [{ node: node.id, result, jitter: 0 }], {
              retryDefaults: { retries: 0, retryDelay: '0ms' },
              owner: 'w',
              claim: picks[round]! % 3,
            }),
          );
        }
        // In a running plan nothing is left undecided: every pending node still waits for a source.
        if (sim.plan.status === 'running') for (const node of sim.nodes.values()) if (node.status === 'pending') expect(node.waiting).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });
});

/**
 * What a plan waits for, as one pure function of its state (issue 13, item 7): each case a user
 * meets — the LLM (and its last failure), a person, an operator, a retry, a worker — in words and
 * with the command that acts on it.
 */
import { describe, expect, it } from 'vitest';
import { waitLine, waitsFor, type PlanState } from '../../src/plans/waits-for.js';

const at = (iso: string) => new Date(iso);
const now = Date.parse('2026-11-23T12:00:00Z');
const plan = (status: PlanState['plan']['status'], mode = 'workflow') => ({ id: 'p_1', status, mode });
const none: PlanState['llm'] = { due: 0 };

describe('what a plan waits for', () => {
  it('says who writes a reflection plan, and why the last call did not', () => {
    expect(waitsFor({ plan: plan('running', 'reflection'), nodes: [], people: [], llm: { due: 1 }, now })).toEqual([
      { for: 'llm', text: 'a worker with an LLM endpoint to write its first plan' },
    ]);
    const failing = { due: 1, servedBy: 'host:1:ab', lastProblem: { at: at('2026-11-23T11:59:00Z'), outcome: 'error' as const, message: 'status 503' } };
    expect(
      waitsFor({ plan: plan('awaiting_review', 'reflection'), nodes: [{ id: 'a', status: 'pending' }], people: [], llm: failing, now }).map(waitLine),
    ).toEqual([
      "waiting for the LLM (served by worker host:1:ab) to act on the reviewer's suggestion; its last call failed at 2026-11-23T11:59:00.000Z: status 503",
    ]);
  });

  it('names a person, an operator, a retry, a worker and running nodes, with the commands', () => {
    const since = at('2026-11-23T11:00:00Z');
    const waits = waitsFor({
      plan: plan('running'),
      nodes: [
        { id: 'ask', status: 'awaiting_input' },
        { id: 'later', status: 'ready', runAfter: at('2026-11-23T12:05:00Z') },
        ...['r1', 'r2', 'r3', 'r4', 'r5', 'r6'].map((id) => ({ id, status: 'ready' as const })),
        { id: 'busy', status: 'running', leaseOwner: 'w9' },
        { id: 'over', status: 'done' },
      ],
      people: [{ kind: 'question', planId: 'p_1', planTitle: 't', nodeId: 'ask', attributes: { question: 'Ship?', options: 'yes,no' }, since }],
      llm: none,
      now,
    });
    expect(waits.map(waitLine)).toEqual([
      'waiting for an answer to node ask since 2026-11-23T11:00:00.000Z: dotplan answer p_1 ask yes',
      "waiting for node later's retry at 2026-11-23T12:05:00.000Z",
      'waiting for a worker to run 6 ready nodes (r1, r2, r3, r4, r5, …)',
      'waiting for node busy to finish (running on w9)',
    ]);
    expect(waits[2]!.nodes).toEqual(['r1', 'r2', 'r3', 'r4', 'r5', 'r6']);

    const paused = waitsFor({ plan: plan('paused'), nodes: [{ id: 'r1', status: 'ready' }], people: [], llm: none, now });
    expect(paused).toEqual([{ for: 'resume', text: 'an operator to resume it', command: 'dotplan plan resume p_1' }]);
    const review = waitsFor({ plan: plan('awaiting_review'), nodes: [], people: [{ kind: 'review', planId: 'p_1', planTitle: 't', since }], llm: none, now });
    expect(review.map(waitLine)).toEqual([
      'waiting for review since 2026-11-23T11:00:00.000Z: dotplan plan approve p_1 (or plan reject --reason, plan modify)',
    ]);
  });

  it('waits for nothing once the plan is over', () => {
    for (const status of ['completed', 'failed', 'cancelled', 'rejected'] as const) {
      expect(waitsFor({ plan: plan(status, 'reflection'), nodes: [{ id: 'a', status: 'ready' }], people: [], llm: { due: 2 }, now })).toEqual([]);
    }
  });
});

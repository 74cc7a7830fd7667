import { describe, expect, it } from 'vitest';
import { NODE_STATUSES, type Driver, type NodeStatus } from '../../src/model/types.js';
import { allowedTargets, assertNodeMove, canMoveNode, IllegalTransitionError } from '../../src/state/node-moves.js';
import { assertPlanMove, canMovePlan } from '../../src/state/plan-moves.js';

describe('node state machine', () => {
  it('lets each driver make only its own moves (SPEC §3)', () => {
    expect(canMoveNode('pending', 'ready', 'engine')).toBe(true);
    expect(canMoveNode('ready', 'running', 'engine')).toBe(true);
    expect(canMoveNode('ready', 'awaiting_input', 'engine')).toBe(true);
    expect(canMoveNode('running', 'ready', 'engine')).toBe(true); // retry, lease expiry
    expect(canMoveNode('pending', 'awaiting_input', 'llm')).toBe(true);
    expect(canMoveNode('awaiting_input', 'done', 'person')).toBe(true);
    expect(canMoveNode('failed', 'ready', 'operator')).toBe(true);

    expect(canMoveNode('ready', 'running', 'llm')).toBe(false); // only workers claim
    expect(canMoveNode('running', 'done', 'llm')).toBe(false); // the LLM never touches running nodes
    expect(canMoveNode('done', 'pending', 'llm')).toBe(false);
    expect(canMoveNode('failed', 'ready', 'person')).toBe(false);
    expect(canMoveNode('running', 'skipped', 'operator')).toBe(false);
    expect(canMoveNode('done', 'ready', 'operator')).toBe(false);
  });

  it('never lets the LLM touch a running, done or failed node', () => {
    for (const from of ['running', 'done', 'failed'] as NodeStatus[]) {
      expect(allowedTargets(from, 'llm')).toEqual([]);
    }
  });

  it('cancels from any live status, but a cancelled node stays cancelled', () => {
    for (const from of NODE_STATUSES.filter((s) => s !== 'cancelled')) expect(canMoveNode(from, 'cancelled', 'engine')).toBe(true);
    for (const driver of ['engine', 'llm', 'person', 'operator'] as Driver[]) {
      for (const to of NODE_STATUSES) expect(canMoveNode('cancelled', to, driver)).toBe(false);
    }
  });

  it('names node, from, to and driver in a refusal', () => {
    expect(() => assertNodeMove({ node: 'fetch', from: 'done', to: 'ready', driver: 'llm' })).toThrow(IllegalTransitionError);
    expect(() => assertNodeMove({ node: 'fetch', from: 'done', to: 'ready', driver: 'llm' })).toThrow(/node "fetch": llm may not move it from done to ready/);
    // What the operator may do instead is part of the refusal.
    expect(() => assertNodeMove({ node: 'x', from: 'failed', to: 'done', driver: 'operator' })).toThrow(
      expect.objectContaining({ code: 'ILLEGAL_TRANSITION', message: expect.stringContaining('ready, skipped') as string }),
    );
  });
});

describe('plan state machine', () => {
  it('goes draft → (awaiting_review) → running → completed/failed, paused only by an operator', () => {
    expect(canMovePlan('draft', 'running', 'engine')).toBe(true);
    expect(canMovePlan('awaiting_review', 'running', 'person')).toBe(true);
    expect(canMovePlan('awaiting_review', 'rejected', 'person')).toBe(true);
    expect(canMovePlan('awaiting_review', 'failed', 'engine')).toBe(true); // the LLM could not write a reflection plan's draft
    expect(canMovePlan('awaiting_review', 'failed', 'person')).toBe(false);
    expect(canMovePlan('running', 'completed', 'engine')).toBe(true);
    expect(canMovePlan('running', 'paused', 'operator')).toBe(true);
    expect(canMovePlan('running', 'paused', 'engine')).toBe(false);
    expect(canMovePlan('completed', 'running', 'operator')).toBe(true); // reopened by an operator's revision
    expect(canMovePlan('completed', 'running', 'engine')).toBe(false);
    expect(canMovePlan('cancelled', 'running', 'operator')).toBe(false);
    expect(canMovePlan('rejected', 'running', 'operator')).toBe(false);
    expect(() => assertPlanMove('p_1', 'cancelled', 'running', 'operator')).toThrow(/plan p_1: operator may not move it from cancelled to running/);
  });
});

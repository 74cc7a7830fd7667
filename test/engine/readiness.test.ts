import { describe, expect, it } from 'vitest';
import { decideReadiness, isEdgeTaken, type IncomingEdge } from '../../src/engine/readiness.js';

const from = (status: IncomingEdge['sourceStatus'], extra: Partial<IncomingEdge> = {}): IncomingEdge => ({ from: 'x', sourceStatus: status, ...extra });

describe('workflow readiness', () => {
  it('makes a root ready and waits while any upstream node is unfinished', () => {
    expect(decideReadiness([])).toBe('ready');
    expect(decideReadiness([from('done'), from('running')])).toBe('wait');
    expect(decideReadiness([from('done'), from('awaiting_input')])).toBe('wait');
    expect(decideReadiness([from('done'), from('done')])).toBe('ready');
  });

  it('follows `when` against the answer, else the output', () => {
    expect(isEdgeTaken(from('done', { when: 'yes|y', sourceAnswer: ' Yes ' }))).toBe(true);
    expect(isEdgeTaken(from('done', { when: '!yes|y', sourceAnswer: 'yes' }))).toBe(false);
    expect(isEdgeTaken(from('done', { when: '/^appr/i', sourceOutput: 'Approved by Ada' }))).toBe(true);
    expect(isEdgeTaken(from('done', { when: 'no', sourceOutput: 'yes', sourceAnswer: 'no' }))).toBe(true);
  });

  it('skips a node no taken edge reaches, and runs a join if any taken edge reaches it', () => {
    expect(decideReadiness([from('done', { when: 'no', sourceAnswer: 'yes' })])).toBe('skipped');
    expect(decideReadiness([from('skipped'), from('done')])).toBe('ready'); // join after one branch ran
    expect(decideReadiness([from('skipped'), from('skipped')])).toBe('skipped'); // the skip cascades
    expect(decideReadiness([from('failed')])).toBe('skipped');
    expect(decideReadiness([from('cancelled')])).toBe('skipped');
  });

  it('lets the plan go on past a node an operator skipped, but not past an untaken branch', () => {
    expect(decideReadiness([from('skipped', { sourceSkippedBy: 'operator' })])).toBe('ready');
    expect(decideReadiness([from('skipped', { sourceSkippedBy: 'engine' })])).toBe('skipped');
    // a `when` on the edge still has to match: an operator-skipped node has no answer or output
    expect(decideReadiness([from('skipped', { sourceSkippedBy: 'operator', when: 'yes' })])).toBe('skipped');
  });
});

/**
 * Issue 14, as pure rules: the attributes a model may not set or change (fixed-attributes.ts), and
 * edges that hold for every driver (no revision starts a node before its parents have finished).
 */
import { describe, expect, it } from 'vitest';
import { readDot } from '../../src/dot/index.js';
import type { NodeStatus, PlanGraph } from '../../src/model/types.js';
import { diffPlans } from '../../src/revisions/diff.js';
import { MODEL_FIXED_GRAPH_ATTRIBUTES, MODEL_FIXED_NODE_ATTRIBUTES } from '../../src/revisions/fixed-attributes.js';
import { checkRights, type RevisionDriver } from '../../src/revisions/rights.js';

const graph = (body: string): PlanGraph => readDot(`digraph p { node [type=function toolCode=echo] ${body} }`);
const statuses = (g: PlanGraph) => new Map(g.nodes.map((n) => [n.id, (n.attributes.status ?? 'pending') as NodeStatus]));
const problems = (before: PlanGraph, after: PlanGraph, driver: RevisionDriver) =>
  checkRights(diffPlans(before, after), statuses(before), driver, after).map((p) => [p.code, p.node ?? '', p.attribute ?? '']);

describe('what the model may not change', () => {
  const current = graph(`maxTokens="100" a [status=done] q [type=confirm question="Go?" default="no" status=pending] a -> q`);

  it('refuses every limit and governance attribute of the graph for the llm, naming it; a person and an operator may', () => {
    for (const attribute of MODEL_FIXED_GRAPH_ATTRIBUTES.keys()) {
      if (attribute === 'mode') continue;
      const next = { ...current, attributes: { ...current.attributes, [attribute]: '7' } };
      expect(problems(current, next, 'llm'), attribute).toEqual([['NOT_ALLOWED', '', attribute]]);
      expect(problems(current, next, 'operator'), attribute).toEqual([]);
      expect(problems(current, next, 'person'), attribute).toEqual([]);
    }
    const lifted = { ...current, attributes: { ...current.attributes, maxTokens: '999999999' } };
    const [problem] = checkRights(diffPlans(current, lifted), statuses(current), 'llm', lifted);
    expect(problem!.message).toBe("graph attribute maxTokens is one of the plan's limits (the plan's token budget): the llm may not set or change it");
    expect(problem!.fix).toBe('leave maxTokens out of the plan (it stays "100"); the people who run the plan set it');
  });

  it('refuses them on a node the llm adds or on a pending one, but not for an operator', () => {
    for (const attribute of MODEL_FIXED_NODE_ATTRIBUTES.keys()) {
      const added = graph(`maxTokens="100" a [status=done] q [type=confirm question="Go?" default="no" status=pending] n [${attribute}="1s"] a -> q`);
      expect(problems(current, added, 'llm'), attribute).toEqual([['NOT_ALLOWED', 'n', attribute]]);
      expect(problems(current, added, 'operator'), attribute).toEqual([]);
    }
    const changed = graph(`maxTokens="100" a [status=done] q [type=confirm question="Go?" default="yes" status=pending] a -> q`);
    expect(problems(current, changed, 'llm')).toEqual([['NOT_ALLOWED', 'q', 'default']]);
    expect(problems(current, changed, 'person')).toEqual([]);
  });
});

describe('edges hold for every driver', () => {
  const current = graph(`d [status=pending] c [status=done] e [status=pending] d -> e c -> e`);

  it('refuses a node made ready or asking while a parent has not finished, naming it, for every driver', () => {
    const ready = graph(`d [status=pending] c [status=done] e [status=ready] d -> e c -> e`);
    const asking = graph(`d [status=pending] c [status=done] e [status=awaiting_input question="ok?"] d -> e c -> e`);
    const added = graph(`d [status=pending] c [status=done] e [status=pending] f [status=ready] d -> e c -> e d -> f`);
    for (const driver of ['llm', 'person', 'operator'] as const) {
      expect(problems(current, ready, driver), driver).toContainEqual(['PARENTS_UNFINISHED', 'e', 'status']); // a person's move is refused besides
      expect(problems(current, added, driver), driver).toEqual([['PARENTS_UNFINISHED', 'f', 'status']]);
    }
    expect(problems(current, asking, 'llm')).toEqual([['PARENTS_UNFINISHED', 'e', 'status']]);
  });

  it('takes the parents as the revision leaves them: a parent skipped in the same revision has finished', () => {
    const next = graph(`d [status=skipped] c [status=done] e [status=ready] d -> e c -> e`);
    expect(problems(current, next, 'llm')).toEqual([]);
    const both = graph(`d [status=ready] c [status=done] e [status=ready] d -> e c -> e`);
    expect(problems(current, both, 'llm')).toEqual([['PARENTS_UNFINISHED', 'e', 'status']]);
  });
});

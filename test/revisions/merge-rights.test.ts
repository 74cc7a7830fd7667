import { describe, expect, it } from 'vitest';
import { readDot } from '../../src/dot/index.js';
import type { NodeStatus, PlanGraph } from '../../src/model/types.js';
import { diffPlans } from '../../src/revisions/diff.js';
import { keepLiveFields } from '../../src/revisions/live-fields.js';
import { mergeEdit } from '../../src/revisions/merge.js';
import { checkRights } from '../../src/revisions/rights.js';

const graph = (body: string): PlanGraph => readDot(`digraph p { node [type=function toolCode=echo] ${body} }`);
const statuses = (g: PlanGraph) => new Map(g.nodes.map((n) => [n.id, (n.attributes.status ?? 'pending') as NodeStatus]));

describe('rights of a revision (SPEC §9)', () => {
  const current = graph(`a [status=done toolOutput="A"] b [status=failed error="boom"] c [status=pending toolInput="1"] r [status=running] a -> b -> c`);

  it("lets an operator insert a node, change a pending node's input and retry a failed node", () => {
    const edited = graph(
      `a [status=done toolOutput="A"] b [status=ready error="boom"] n [status=pending] c [status=pending toolInput="2"] r [status=running] a -> b -> n -> c`,
    );
    expect(checkRights(diffPlans(current, edited), statuses(current), 'operator', edited)).toEqual([]);
  });

  it("refuses a done node's output, a running node's input and removing a node that has run, naming node and attribute", () => {
    const edited = graph(`b [status=failed error="boom"] c [status=pending toolInput="1"] r [status=running toolInput="x"] a [status=done toolOutput="B"]`);
    const problems = checkRights(
      diffPlans(current, edited).filter((c) => c.kind !== 'edge-removed'),
      statuses(current),
      'operator',
      edited,
    );
    expect(problems.map((p) => [p.code, p.node, p.attribute])).toEqual([
      ['NODE_RUNNING', 'r', 'toolInput'],
      ['NODE_HISTORY', 'a', 'toolOutput'],
    ]);
    const removal = checkRights([{ kind: 'node-removed', node: 'a' }], statuses(current), 'operator', current);
    expect(removal).toMatchObject([{ code: 'NODE_REMOVE_RUN', node: 'a' }]);
  });

  it('gives the llm fewer rights: no retry, no edit of a failed node, no goal', () => {
    const edited = graph(
      `a [status=done toolOutput="A"] b [status=ready error="boom" toolInput="x"] c [status=ready toolInput="1"] r [status=running] a -> b -> c`,
    );
    const problems = checkRights(
      [...diffPlans(current, edited), { kind: 'graph-attribute', attribute: 'goal', from: 'g', to: 'h' }],
      statuses(current),
      'llm',
      edited,
    );
    expect(problems.map((p) => [p.code, p.node ?? p.attribute])).toEqual([
      ['MOVE_REFUSED', 'b'],
      ['NOT_ALLOWED', 'b'],
      ['NOT_ALLOWED', 'goal'],
      ['PARENTS_UNFINISHED', 'c'], // c waits for b, which is not finished
    ]);
    expect(problems[0]!.message).toBe('node "b": the llm may not move it from failed to ready');
  });

  it('refuses an edge into a node that has started', () => {
    const problems = checkRights([{ kind: 'edge-added', edge: { from: 'c', to: 'b', nth: 1 }, attributes: {} }], statuses(current), 'operator', current);
    expect(problems).toMatchObject([{ code: 'EDGE_INTO_STARTED', edge: 'c -> b', node: 'b' }]);
  });
});

describe('three-way merge of an edit', () => {
  const base = graph(`a [status=pending toolInput="1"] b [status=pending toolInput="2"] c [status=pending] a -> b -> c`);

  it('applies an edit of what did not change since, on top of what did', () => {
    const current = graph(`a [status=done toolInput="1" toolOutput="A"] b [status=pending toolInput="2"] c [status=pending] a -> b -> c`);
    const edited = graph(`a [status=pending toolInput="1"] b [status=pending toolInput="22"] c [status=pending] a -> b -> c`);
    const merged = mergeEdit(base, current, edited);
    expect(merged.conflicts).toEqual([]);
    expect(merged.applied).toEqual([{ kind: 'node-attribute', node: 'b', attribute: 'toolInput', from: '2', to: '22' }]);
    expect(merged.graph.nodes.find((n) => n.id === 'a')!.attributes).toMatchObject({ status: 'done', toolOutput: 'A' });
    expect(merged.graph.nodes.find((n) => n.id === 'b')!.attributes.toolInput).toBe('22');
  });

  it('names each conflict: the same attribute changed on both sides, an edit of a node that has since run', () => {
    const current = graph(`a [status=running toolInput="1"] b [status=pending toolInput="3"] c [status=pending] a -> b -> c`);
    const edited = graph(`a [status=pending toolInput="9"] b [status=pending toolInput="22"] c [status=pending] a -> b -> c`);
    const merged = mergeEdit(base, current, edited);
    expect(merged.conflicts.map((c) => [c.node, c.attribute])).toEqual([
      ['a', 'toolInput'],
      ['b', 'toolInput'],
    ]);
    expect(merged.conflicts[0]!.message).toMatch(/moved from pending to running/);
    expect(merged.conflicts[1]!.message).toBe('node "b": toolInput was changed on both sides — it is now "3", the edit says "22"');
    expect(merged.graph).toBe(current);
  });

  it('refuses an edge to a node removed since; a live field the edit left out is no change', () => {
    const current = graph(`a [status=pending toolInput="1"] b [status=pending toolInput="2"] a -> b`);
    const edited = graph(`a [toolInput="1"] b [status=pending toolInput="2"] c [status=pending] a -> b -> c b -> c`);
    const merged = mergeEdit(base, current, edited);
    expect(merged.conflicts.map((c) => [c.node, c.edge])).toEqual([['c', 'b -> c #2']]);
  });
});

describe('live fields left out of a revision', () => {
  it('are kept as the plan has them; a new node without a status is pending; a node without attributes is left for the validator', () => {
    const current = graph(`a [status=done toolOutput="A"] b [status=failed error="boom"] c [status=awaiting_input question="ok?"] a -> b`);
    const read = graph(`a [label="A"] b [status=ready] c [question="ok?"] n [toolInput="new"] a -> b`);
    const edited = { ...read, nodes: [...read.nodes, { id: 'm', attributes: {} }] };
    const kept = keepLiveFields(current, edited);
    const attributes = Object.fromEntries(kept.nodes.map((n) => [n.id, n.attributes]));
    expect(attributes.a).toMatchObject({ status: 'done', toolOutput: 'A', label: 'A' });
    expect(attributes.b).toMatchObject({ status: 'ready', error: 'boom' }); // a status it gives is a move asked
    expect(attributes.c).toMatchObject({ status: 'awaiting_input' });
    expect(attributes.n).toMatchObject({ status: 'pending' });
    expect(attributes.m).toEqual({});
    expect(
      checkRights(
        diffPlans(current, kept).filter((c) => c.kind !== 'node-added'),
        statuses(current),
        'operator',
        kept,
      ),
    ).toEqual([]);
  });
});

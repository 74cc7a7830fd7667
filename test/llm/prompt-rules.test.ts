/**
 * What the model is told and what is asked of its plans beyond validity: the prompt carries the goal,
 * the tools with their input schemas, the plan with its live state and the results (cut); a plan that
 * would leave nothing to run, or reuses a removed node's id, is refused; the verifier's rule checks.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkOutput, verifyMode } from '../../src/execute/verify.js';
import { answerMessages, planMessages, refusalMessages } from '../../src/llm/prompt.js';
import { nothingToRun, reusedIds } from '../../src/llm/reply-rules.js';
import type { PlanGraph } from '../../src/model/types.js';
import { MODEL_FIXED_GRAPH_ATTRIBUTES, MODEL_FIXED_NODE_ATTRIBUTES } from '../../src/revisions/fixed-attributes.js';

const plan = (nodes: Record<string, Record<string, string>>): PlanGraph => ({
  strict: false,
  attributes: { mode: 'reflection', goal: 'g' },
  nodes: Object.entries(nodes).map(([id, attributes]) => ({ id, attributes: { type: 'function', ...attributes } })),
  edges: [],
  clusters: [],
});

describe('the prompt', () => {
  const tools = [
    { code: 'search', description: 'Searches the web', inputSchema: z.object({ query: z.string() }), run: () => '' },
    { code: 'echo', run: () => '' },
  ];

  it('tells the model every attribute it may not set (the rights list) and that a node is ready only after its parents', () => {
    const [system] = planMessages({ planId: 'p1', goal: 'Find X', tools, graph: plan({}), resultChars: 100 });
    for (const name of [...MODEL_FIXED_GRAPH_ATTRIBUTES.keys(), ...MODEL_FIXED_NODE_ATTRIBUTES.keys()]) expect(system!.content).toContain(`\`${name}\``);
    expect(system!.content).not.toMatch(/\{\{fixed/);
    expect(system!.content).toMatch(/only when every node it waits for/);
  });

  it('asks for a first plan without *id, with the goal and each tool, its description and its input schema', () => {
    const [system, user] = planMessages({ planId: 'p1', goal: 'Find X', tools, graph: plan({}), resultChars: 100 });
    expect(system!.content).toMatch(/@EP@/);
    expect(system!.content).toMatch(/status="ready"/);
    expect(user!.content).toMatch(/## Goal\nFind X/);
    expect(user!.content).toContain('`search`: Searches the web\n  input schema: {');
    expect(user!.content).toContain('"query":{"type":"string"}');
    expect(user!.content).toContain('`echo`: (no description)');
    expect(user!.content).toMatch(/no plan yet.*leave out the \*id line/);
  });

  it('shows the plan with its live state and the results so far, each output cut to resultChars', () => {
    const graph = plan({ a: { status: 'done', toolOutput: 'x'.repeat(50), label: 'Fetch' }, b: { status: 'failed', error: 'boom' }, c: { status: 'pending' } });
    const [, user] = planMessages({ planId: 'p1', goal: 'g', tools, graph, resultChars: 10 });
    expect(user!.content).toContain('## The plan (id p1) as it stands');
    expect(user!.content).toContain('c [type="function", status="pending"]');
    expect(user!.content).toContain(`- a (Fetch): done; output: xxxxxxxxxx… (40 more characters)`);
    expect(user!.content).toContain('- b: failed; error: boom');
    expect(user!.content).toContain('*id=p1');
    expect(answerMessages('g', graph, 10)[1]!.content).toContain('- b: failed; error: boom');
  });

  it('answers a refused reply with each problem and asks for the whole reply again', () => {
    const [assistant, user] = refusalMessages('bad reply', [{ code: 'CYCLE', severity: 'error', message: 'a -> b -> a', fix: 'remove an edge' }]);
    expect(assistant).toEqual({ role: 'assistant', content: 'bad reply' });
    expect(user!.content).toMatch(/refused.*\n- error CYCLE: a -> b -> a\. Fix: remove an edge/);
  });
});

describe("what a reply's plan must also do", () => {
  it('leaves something to run when nodes are pending', () => {
    expect(nothingToRun(plan({ a: { status: 'done' }, b: { status: 'pending' } }))).toEqual([expect.objectContaining({ code: 'REPLY_NOTHING_TO_RUN' })]);
    expect(nothingToRun(plan({ a: { status: 'done' }, b: { status: 'ready' }, c: { status: 'pending' } }))).toEqual([]);
    expect(nothingToRun(plan({ a: { status: '待初始化' }, b: { status: '待用户输入中' } }))).toEqual([]); // Chinese names: pending, awaiting_input
    expect(nothingToRun(plan({ a: { status: 'done' } }))).toEqual([]); // nothing pending: the final answer comes next
  });

  it('does not reuse the id of a node removed earlier', () => {
    expect(reusedIds(plan({ a: {}, b: {} }), new Set(['a']), new Set(['b']))).toEqual([expect.objectContaining({ code: 'REPLY_ID_REUSED', node: 'b' })]);
    expect(reusedIds(plan({ a: {} }), new Set(['a']), new Set(['a']))).toEqual([]); // still in the plan: not a new node
  });
});

describe('the verifier’s rule checks', () => {
  it('takes the node’s verify, else the plan’s, else none', () => {
    expect(verifyMode({ verify: 'json' }, { verify: 'llm' })).toBe('json');
    expect(verifyMode({}, { verify: 'nonEmpty' })).toBe('nonEmpty');
    expect(verifyMode({}, {})).toBe('none');
  });

  it('fails blank output for nonEmpty and non-JSON output for json; llm is left to the judge', () => {
    expect(checkOutput('nonEmpty', ' \n')).toEqual({ ok: false, reasoning: 'the output is empty' });
    expect(checkOutput('nonEmpty', 'x')?.ok).toBe(true);
    expect(checkOutput('json', '{"a":1}')?.ok).toBe(true);
    expect(checkOutput('json', 'not json')).toMatchObject({ ok: false, reasoning: expect.stringMatching(/^the output is not JSON/) });
    expect(checkOutput('llm', 'x')).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { AgentRegistry } from '../../src/agents/registry.js';
import { ValidationError } from '../../src/model/diagnostics.js';
import type { PlanGraph } from '../../src/model/types.js';
import { assertValidDot, assertValidGraph, validateDot, validateGraph, type ValidateOptions } from '../../src/validate/index.js';

const CODES = ['echo', 'sleep', 'template', 'json', 'http'];
const options: ValidateOptions = { tools: { has: (c) => CODES.includes(c), list: () => CODES.map((code) => ({ code })) } };

/** Validates a plan whose node statements are given, wrapped in a digraph. */
function check(body: string, extra: Partial<ValidateOptions> = {}) {
  return validateDot(`digraph G {\n${body}\n}`, { ...options, ...extra });
}
const codes = (body: string, extra?: Partial<ValidateOptions>) => check(body, extra).diagnostics.map((d) => `${d.severity}:${d.code}`);
const F = 'type=function, toolCode=echo';

describe('types and statuses', () => {
  it('accepts the Chinese status names and returns canonical ones; a missing status is pending, and no problem', () => {
    const result = check(`a [${F}, status="已完成"]; b [${F}]; a -> b`);
    expect(result.valid).toBe(true);
    expect(result.graph?.nodes.map((n) => n.attributes['status'])).toEqual(['done', 'pending']);
    expect(result.diagnostics).toEqual([]);
  });

  it('suggests the closest type and status for typos', () => {
    const result = check(`a [type=confrim, status=pending]; b [${F}, status=redy]`);
    expect(result.diagnostics.map((d) => [d.code, d.node, d.fix])).toEqual([
      ['TYPE_UNKNOWN', 'a', expect.stringContaining('did you mean "confirm"?')],
      ['STATUS_UNKNOWN', 'b', expect.stringContaining('did you mean "ready"?')],
    ]);
  });

  it('requires a type', () => {
    expect(codes('a [status=pending, toolCode=echo]')).toEqual(['error:TYPE_MISSING']);
  });

  it('refuses agent nodes when agents are not allowed', () => {
    const body = 'a [type=agent, status=pending, agentCode=searcher, task="find things"]';
    expect(codes(body)).toEqual([]);
    expect(codes(body, { allowAgent: false })).toEqual(['error:NODE_TYPE_NOT_SUPPORTED']);
  });
});

describe('per-type attributes', () => {
  it('needs a toolCode to run a function node: an error when ready or running, a warning when pending', () => {
    expect(codes('a [type=function, status=ready]')).toEqual(['error:TOOL_CODE_MISSING']);
    expect(codes('a [type=function, status=running, toolCode=""]')).toEqual(['error:TOOL_CODE_MISSING']);
    expect(codes('a [type=function, status=pending]')).toEqual(['warning:TOOL_CODE_MISSING']);
    expect(codes('a [type=function, status=done]')).toEqual([]);
  });

  it('checks toolCalls of multiFunction nodes: a JSON array of calls to known tools', () => {
    const ok = String.raw`a [type=multiFunction, status=ready, toolCalls="[{\"toolCode\": \"echo\", \"toolInput\": {\"x\": 1}}, {\"toolCode\": \"sleep\"}]"]`;
    expect(codes(ok)).toEqual([]);
    const bad = (json: string) => check(`a [type=multiFunction, status=pending, toolCalls="${json.replace(/"/g, '\\"')}"]`).diagnostics;
    expect(bad('{"toolCode": "echo"}')).toMatchObject([{ code: 'TOOL_CALLS_INVALID', node: 'a', message: expect.stringContaining('not a JSON array') }]);
    expect(bad('[{"toolCode": "echo"}, {"tool": "x"}]')).toMatchObject([
      { code: 'TOOL_CALLS_INVALID', message: expect.stringContaining('call 2 has no "toolCode"') },
    ]);
    expect(bad('[]')).toMatchObject([{ code: 'TOOL_CALLS_INVALID' }]);
    expect(bad('[{"toolCode": "eco"}]')).toMatchObject([{ code: 'TOOL_UNKNOWN', attribute: 'toolCalls', message: expect.stringContaining('echo') }]);
    expect(codes('a [type=multiFunction, status=ready]')).toEqual(['error:TOOL_CALLS_MISSING']);
  });

  it('lists known tools nearest first for an unknown toolCode, and works without a list', () => {
    const [d] = check('a [type=function, status=pending, toolCode=jsno]').diagnostics;
    expect(d!.message).toContain('known tools, nearest first: json,');
    const bare = validateDot('digraph { a [type=function, status=pending, toolCode=x] }', { tools: { has: () => false } });
    expect(bare.diagnostics).toMatchObject([{ code: 'TOOL_UNKNOWN', message: 'tool "x" of node "a" is not registered' }]);
  });

  it('needs a question where a person is asked', () => {
    expect(codes('a [type=confirm, status=ready]')).toEqual(['error:QUESTION_MISSING']);
    expect(codes(`a [${F}, status=awaiting_input]`)).toEqual(['error:QUESTION_MISSING']);
    expect(codes(`a [${F}, status=awaiting_input, question=""]`)).toEqual(['error:QUESTION_EMPTY']);
    expect(codes('a [type=confirm, status=pending]')).toEqual(['warning:QUESTION_MISSING']);
    expect(codes('a [type=confirm, status=awaiting_input, question="Ship?"]')).toEqual([]);
  });

  it('needs agentCode and task on agent nodes', () => {
    expect(codes('a [type=agent, status=ready]')).toEqual(['error:AGENT_CODE_MISSING', 'error:AGENT_TASK_MISSING']);
  });

  it("names registered agents only, and in a child plan only those its plan's agent may call", () => {
    const agents = new AgentRegistry();
    agents.register({ code: 'research', kind: 'workflow', description: 'researches', template: 'r', agents: ['searcher'] }, 'the test');
    agents.register({ code: 'searcher', kind: 'react', description: 'searches' }, 'the test');
    agents.register({ code: 'writer', kind: 'reflection', description: 'writes' }, 'the test');
    const body = 'a [type=agent, status=pending, agentCode=searcher, task="find"]; b [type=agent, status=pending, agentCode=writer, task="write"]';
    // A root plan may call any registered agent; a child of `research` only `searcher`.
    expect(codes(body, { agents })).toEqual([]);
    const child = check(body, { agents, planAgent: 'research' });
    expect(child.diagnostics.map((d) => [d.code, d.node, d.attribute, d.message, d.fix])).toEqual([
      [
        'AGENT_NOT_ALLOWED',
        'b',
        'agentCode',
        'node "b" calls agent "writer", which agent "research" (this plan\'s agent) may not call',
        'add "writer" to the "agents" of agent research, or use one it may call',
      ],
    ]);
    expect(check('a [type=agent, status=pending, agentCode=serher, task="find"]', { agents }).diagnostics.map((d) => [d.code, d.fix])).toEqual([
      ['AGENT_UNKNOWN', 'use a registered agent such as "searcher" (dotplan agent list)'],
    ]);
  });

  it('checks retries and durations on nodes and on the graph', () => {
    expect(codes(`a [${F}, status=pending, retries=3, retryDelay="1.5s", timeout=250]`)).toEqual([]);
    const result = check(`retries="-1"; timeout="soon"\na [${F}, status=pending, retries="2.5", retryDelay="10 minutes"]`);
    expect(result.diagnostics.map((d) => [d.code, d.node, d.attribute])).toEqual([
      ['RETRIES_INVALID', 'a', 'retries'],
      ['DURATION_INVALID', 'a', 'retryDelay'],
      ['RETRIES_INVALID', undefined, 'retries'],
      ['DURATION_INVALID', undefined, 'timeout'],
    ]);
  });
});

describe('references', () => {
  it('accepts references to ancestors (direct or not) and declared params', () => {
    const body = [
      'params="topic,lang=en"',
      `a [${F}, status=pending, toolInput="{{params.topic}}"]`,
      `b [${F}, status=pending]`,
      `c [${F}, status=pending, toolInput="{{nodes.a.output.items[0]}} {{ nodes.b.answer }} {{params.lang}}"]`,
      'a -> b -> c',
    ].join('\n');
    expect(check(body).diagnostics).toEqual([]);
  });

  it('tells a missing node from one that exists but is not upstream, and suggests the edge', () => {
    const body = [
      `a [${F}, status=pending, toolInput="{{nodes.c.output}}"]`,
      `b [${F}, status=pending, question="{{nodes.aa.answer}}"]`,
      `c [${F}, status=pending]`,
      'a -> b',
    ].join('\n');
    const result = check(body);
    expect(result.diagnostics.map((d) => [d.code, d.node, d.attribute, d.line])).toEqual([
      ['REFERENCE_NOT_UPSTREAM', 'a', 'toolInput', 2],
      ['REFERENCE_UNKNOWN_NODE', 'b', 'question', 3],
    ]);
    expect(result.diagnostics[0]!.fix).toContain('add an edge c -> a');
    expect(result.diagnostics[1]!.fix).toContain('did you mean "a"?');
  });

  it('rejects a node referring to itself, undeclared params and malformed references', () => {
    const body = `params="x"\na [${F}, status=pending, toolInput="{{nodes.a.output}} {{params.y}} {{nodes.a.input}} {{nodes.}} {{params}} {{ nodes }} {{params.x.y}}"]`;
    expect(check(body).diagnostics.map((d) => d.code)).toEqual([
      'REFERENCE_NOT_UPSTREAM',
      'PARAM_UNDECLARED',
      'REFERENCE_INVALID',
      'REFERENCE_INVALID',
      'REFERENCE_INVALID',
      'REFERENCE_INVALID',
      'REFERENCE_INVALID',
    ]);
  });

  it('leaves any other {{...}} for the tool: only params.… and nodes.… are references', () => {
    const input = String.raw`{\"template\": \"Hello {{name}} from {{ env.HOME }}, {{items[0]}} {{nodesX}} {{params_list}} {{#each x}} {{}}\", \"values\": {\"name\": \"Ada\"}}`;
    expect(check(`a [type=function, toolCode=template, status=pending, toolInput="${input}"]`).diagnostics).toEqual([]);
  });

  it('looks into toolCalls, task and payload too', () => {
    const body = String.raw`a [type=multiFunction, status=pending, toolCalls="[{\"toolCode\": \"echo\", \"toolInput\": \"{{nodes.zz.output}}\"}]"]
      b [type=confirm, status=pending, question="ok?", payload="{{nodes.zz.output}}"]
      c [type=agent, status=pending, agentCode=x, task="{{nodes.zz.output}}"]`;
    expect(check(body).diagnostics.map((d) => `${d.code}:${d.attribute}`)).toEqual([
      'REFERENCE_UNKNOWN_NODE:toolCalls',
      'REFERENCE_UNKNOWN_NODE:payload',
      'REFERENCE_UNKNOWN_NODE:task',
    ]);
  });
});

describe('graph structure', () => {
  it('names every node of a cycle in order, apart from acyclic parts', () => {
    const body = [`s [${F}]`, `x [${F}]`, `y [${F}]`, `z [${F}]`, `t [${F}]`, 's -> x -> y -> z -> x', 'z -> t'].join('\n');
    const cycles = check(body).diagnostics.filter((d) => d.code === 'CYCLE');
    expect(cycles).toHaveLength(1);
    expect(cycles[0]!.message).toContain('"x" -> "y" -> "z" -> "x"');
    expect(cycles[0]!.node).toBe('x');
  });

  it('checks edge conditions', () => {
    const result = check(`a [${F}, status=pending]; b [${F}, status=pending]; a -> b [when="yes||no"]; a -> b [when="/(/"]`);
    expect(result.diagnostics.map((d) => [d.code, d.edge])).toEqual([
      ['WHEN_INVALID', { from: 'a', to: 'b' }],
      ['WHEN_INVALID', { from: 'a', to: 'b' }],
    ]);
  });

  it('checks plan settings', () => {
    const result = check('mode=workflw; onFailure=ignore; review=required; params="a,a"');
    expect(result.diagnostics.filter((d) => d.severity === 'error').map((d) => [d.code, d.attribute])).toEqual([
      ['GRAPH_ATTRIBUTE_INVALID', 'mode'],
      ['GRAPH_ATTRIBUTE_INVALID', 'onFailure'],
      ['PARAMS_INVALID', 'params'],
    ]);
    expect(result.diagnostics[0]!.fix).toContain('did you mean "workflow"?');
  });

  it('checks the review timeout policy, the reflection limits, and the choices of a node', () => {
    const result = check(
      `onReviewTimeout=approved; maxTokens="10k"; maxRewriteAttempts=0; maxReplans=2; a [${F}, verify=jsno, status=pending]; q [type=confirm, question="ok?", multiple=yes, status=pending]`,
    );
    expect(result.diagnostics.filter((d) => d.severity === 'error').map((d) => [d.code, d.node ?? '', d.attribute])).toEqual([
      ['ATTRIBUTE_INVALID', 'a', 'verify'],
      ['ATTRIBUTE_INVALID', 'q', 'multiple'],
      ['GRAPH_ATTRIBUTE_INVALID', '', 'onReviewTimeout'],
      ['GRAPH_ATTRIBUTE_INVALID', '', 'maxRewriteAttempts'],
      ['GRAPH_ATTRIBUTE_INVALID', '', 'maxTokens'],
    ]);
    expect(result.diagnostics.find((d) => d.attribute === 'maxTokens')!.message).toBe('graph attribute maxTokens="10k" is not a whole number of at least 0');
  });

  it('checks a hand-built graph: duplicate ids and edges to nodes that are not there', () => {
    const graph: PlanGraph = {
      strict: false,
      attributes: {},
      nodes: [
        { id: 'a', attributes: { type: 'function', status: 'pending', toolCode: 'echo' } },
        { id: 'a', attributes: { type: 'function', status: 'pending', toolCode: 'echo' } },
      ],
      edges: [{ from: 'a', to: 'ghost', attributes: {} }],
      clusters: [],
    };
    expect(validateGraph(graph, options).diagnostics.map((d) => d.code)).toEqual(['NODE_DUPLICATE', 'EDGE_UNKNOWN_NODE']);
  });

  it('does not change the graph it is given', () => {
    const graph: PlanGraph = {
      strict: false,
      attributes: {},
      nodes: [{ id: 'a', attributes: { type: 'function', status: '待运行', toolCode: 'echo' } }],
      edges: [],
      clusters: [],
    };
    const result = validateGraph(graph, options);
    expect(result.graph?.nodes[0]!.attributes['status']).toBe('ready');
    expect(graph.nodes[0]!.attributes['status']).toBe('待运行');
  });
});

describe('assertValidDot / assertValidGraph', () => {
  it('returns the normalised graph when there are only warnings', () => {
    const graph = assertValidDot('digraph { a [type=function, toolCode=echo] }', options);
    expect(graph.nodes[0]!.attributes['status']).toBe('pending');
  });

  it('throws a ValidationError carrying every diagnostic, the first error in its message', () => {
    let thrown: unknown;
    try {
      assertValidDot('digraph {\n a [type=function, status=ready]\n b [type=nope, status=pending]\n}', { ...options, source: 'plan.dot' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ValidationError);
    const error = thrown as ValidationError;
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.diagnostics.map((d) => d.code)).toEqual(['TOOL_CODE_MISSING', 'TYPE_UNKNOWN']);
    expect(error.message).toMatch(/^plan\.dot:2: error TOOL_CODE_MISSING: .*\(and 1 more error\)$/);
    expect(() => assertValidGraph({ strict: false, attributes: {}, nodes: [{ id: 'x', attributes: {} }], edges: [], clusters: [] }, options)).toThrow(
      /NODE_UNDECLARED/,
    );
  });

  it('reports a DOT that cannot be read with its DOT_* code and no graph', () => {
    expect(validateDot('digraph {', options)).toMatchObject({ valid: false, diagnostics: [{ code: 'DOT_SYNTAX' }] });
    expect(validateDot('digraph {', options).graph).toBeUndefined();
  });
});

describe('diagnostic codes', () => {
  it('every code produced by the fixtures and rules is documented', async () => {
    const { DIAGNOSTIC_CODES } = await import('../../src/validate/index.js');
    const { readFileSync } = await import('node:fs');
    const sources = ['structure', 'cycles', 'requirements', 'tools', 'policy', 'references', 'edges', 'graph-attributes']
      .map((m) => readFileSync(new URL(`../../src/validate/${m}.ts`, import.meta.url), 'utf8'))
      .concat(['read', 'parse-errors'].map((m) => readFileSync(new URL(`../../src/dot/${m}.ts`, import.meta.url), 'utf8')))
      .concat(['reply', 'reply-rules'].map((m) => readFileSync(new URL(`../../src/llm/${m}.ts`, import.meta.url), 'utf8')))
      .join('\n');
    const used = new Set([...sources.matchAll(/'([A-Z][A-Z_]+_[A-Z_]+|DOT_[A-Z_]+|CYCLE)'/g)].map((m) => m[1]!));
    expect([...used].filter((c) => !(c in DIAGNOSTIC_CODES))).toEqual([]);
  });
});

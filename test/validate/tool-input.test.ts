/**
 * A literal tool input is checked against the tool's input schema at validation (TOOL_INPUT_INVALID),
 * naming the node, the attribute (the call of a multiFunction node) and the field; an input with a
 * reference, and a missing one, are left to run time.
 */
import { describe, expect, it } from 'vitest';
import { createRegistry } from '../../src/tools/registry.js';
import { validateDot } from '../../src/validate/index.js';

async function inputProblems(dot: string) {
  const tools = await createRegistry();
  return validateDot(dot, { tools }).diagnostics.filter((d) => d.code === 'TOOL_INPUT_INVALID');
}

describe('literal tool inputs against the tool’s schema', () => {
  it('names the field a function node’s toolInput gets wrong', async () => {
    const [problem, ...rest] = await inputProblems(`digraph p {\n  s [type=function toolCode=template toolInput="{\\"template\\": 7}"]\n}`);
    expect(rest).toEqual([]);
    expect(problem).toMatchObject({ severity: 'error', node: 's', attribute: 'toolInput', line: 2 });
    expect(problem!.message).toMatch(/^toolInput of node "s" does not fit the input of tool "template": template: /);
  });

  it('names the call of a multiFunction node', async () => {
    const problems = await inputProblems(
      `digraph p { m [type=multiFunction toolCalls="[{\\"toolCode\\": \\"echo\\", \\"toolInput\\": 1}, {\\"toolCode\\": \\"template\\", \\"toolInput\\": {\\"values\\": {}}}]"] }`,
    );
    expect(problems.map((p) => [p.node, p.attribute, p.message.split(':')[0]])).toEqual([
      ['m', 'toolCalls', 'toolCalls[1] (template) of node "m" does not fit the input of tool "template"'],
    ]);
  });

  it('leaves inputs with references, and missing ones, to run time; a fitting literal passes', async () => {
    expect(
      await inputProblems(`digraph p {
        a [type=function toolCode=template toolInput="{\\"template\\": \\"{{params.x}}\\", \\"values\\": {}}"]
        b [type=function toolCode=template toolInput="{{nodes.a.output}}"]
        c [type=function toolCode=template toolInput="{\\"template\\": \\"hi {{name}}\\", \\"values\\": {\\"name\\": \\"x\\"}}"]
        d [type=multiFunction toolCalls="[{\\"toolCode\\": \\"json\\"}]"]
        a -> b
      }`),
    ).toEqual([]);
  });
});

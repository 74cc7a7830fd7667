/**
 * The README's promise about references (issue 13, item 2): only `{{params.…}}` and `{{nodes.…}}`
 * are plan references; any other `{{name}}` — such as the `template` tool's own placeholders — is
 * left for the tool. A plan using the template tool with `values` validates, and the worker runs it
 * to the rendered text, plan references resolved first.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { json, openWorkspace, showPlan, workflow, type Workspace } from './workspace.js';

describe('placeholders that are not references', () => {
  let ws: Workspace;
  beforeEach(async () => {
    ws = await openWorkspace();
  });
  afterEach(async () => {
    await ws.cleanup();
  });

  it('a template tool node with its own {{name}} placeholders validates and runs to the rendered text', async () => {
    const dot = workflow('greet', {
      graph: { params: 'greeting=Hello' },
      nodes: [
        `who [type=function toolCode=echo toolInput="Ada"]`,
        `greet [type=function toolCode=template toolInput=${json({
          template: '{{params.greeting}} {{name}}, from {{place.city}}',
          values: { name: '{{nodes.who.output}}', place: { city: 'Lyon' } },
        })}]`,
      ],
      edges: ['who -> greet'],
    });
    const file = ws.write('greet.dot', dot);
    const validated = await ws.dotplan(['validate', file]);
    expect(validated.stderr).toBe('');
    expect(validated.code).toBe(0);

    const id = await ws.createPlan(dot);
    expect((await ws.dotplan(['worker', '--until-idle'])).code).toBe(0);
    const shown = await showPlan(ws, id);
    expect(shown.status).toBe('completed');
    expect(shown.nodes.find((n) => n.id === 'greet')).toMatchObject({ status: 'done', output: 'Hello Ada, from Lyon' });
  });

  it('a malformed plan reference is still refused, naming node and attribute', async () => {
    const file = ws.write('bad.dot', workflow('bad', { nodes: [`a [type=function toolCode=echo toolInput="{{nodes.}} and {{params}}"]`] }));
    const validated = await ws.dotplan(['validate', file, '--json']);
    expect(validated.code).toBe(1);
    const { diagnostics } = JSON.parse(validated.stdout) as { diagnostics: Array<{ code: string; node: string; attribute: string }> };
    expect(diagnostics.map((d) => [d.code, d.node, d.attribute])).toEqual([
      ['REFERENCE_INVALID', 'a', 'toolInput'],
      ['REFERENCE_INVALID', 'a', 'toolInput'],
    ]);
  });
});

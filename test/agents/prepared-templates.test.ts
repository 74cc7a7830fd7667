/**
 * A worker makes each workflow child of a template and values once (PreparedTemplates), then copies
 * it: the copy must be what making it afresh gives, each child must get its own graph, and an edited
 * template must be made afresh — for the children started once the worker looks at the file again,
 * at most TEMPLATE_FRESH_MS after it last did.
 */
import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PreparedTemplates, TEMPLATE_FRESH_MS } from '../../src/agents/child-plans.js';
import { fromTemplate } from '../../src/plans/prepare-plan.js';
import { loadTemplate } from '../../src/templates/index.js';
import { createRegistry } from '../../src/tools/registry.js';

const tools = await createRegistry();
const validation = { allowAgent: true };
const ctx = { tools, validation };
const TEXT = `digraph steps {
  params="topic, audience=everyone"
  label="Notes on {{params.topic}}"
  a [type=function toolCode=template toolInput="{{params.topic}} for {{params.audience}}"]
  b [type=function toolCode=template toolInput="{{nodes.a.output}}"]
  a -> b
}`;

describe('workflow children made once per template and values', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  async function template(text: string) {
    const folder = (dir = await mkdtemp(path.join(os.tmpdir(), 'dotplan-prepared-')));
    const file = path.join(folder, 'steps.dot');
    await writeFile(file, text);
    return { file, load: () => loadTemplate(file, [folder], folder) };
  }

  it('gives what making the child afresh gives, for each set of values, whatever their order', async () => {
    const { load } = await template(TEXT);
    const made = new PreparedTemplates();
    const sets: Array<Record<string, string>> = [{ topic: 'DOT' }, { topic: 'DOT', audience: 'ops' }, { audience: 'ops', topic: 'DOT' }, { topic: 'DOT' }];
    for (const values of sets) {
      expect(made.get(load(), values, ctx)).toEqual(fromTemplate(tools, load(), values, validation));
    }
  });

  it("gives each child its own graph: changing one child's does not change the next", async () => {
    const { load } = await template(TEXT);
    const made = new PreparedTemplates();
    const first = made.get(load(), { topic: 'DOT' }, ctx);
    first.graph.nodes[0]!.attributes.toolInput = 'changed';
    first.graph.attributes.label = 'changed';
    first.graph.edges[0]!.attributes.when = 'changed';
    const second = made.get(load(), { topic: 'DOT' }, ctx);
    expect(second.graph.nodes[0]!.attributes.toolInput).toBe('{{params.topic}} for {{params.audience}}');
    expect(second.graph.attributes.label).toBe('Notes on DOT');
    expect(second.graph.edges[0]!.attributes.when).toBeUndefined();
    expect(second).toEqual(fromTemplate(tools, load(), { topic: 'DOT' }, validation));
  });

  it('makes an edited template afresh, and refuses bad values every time', async () => {
    const { file, load } = await template(TEXT);
    const made = new PreparedTemplates();
    expect(made.get(load(), { topic: 'DOT' }, ctx).graph.nodes.map((n) => n.id)).toEqual(['a', 'b']);
    await writeFile(file, TEXT.replace('a -> b', 'c [type=function toolCode=template toolInput="x"]\n  a -> b -> c'));
    await utimes(file, new Date(), new Date(Date.now() + 5_000)); // a different mtime even within the file system's resolution
    expect(made.get(load(), { topic: 'DOT' }, ctx).graph.nodes.map((n) => n.id)).toEqual(['a', 'b', 'c']);
    for (let i = 0; i < 2; i++) expect(() => made.get(load(), { audience: 'ops' }, ctx)).toThrow(/topic/);
  });

  it('looks a template up once per TEMPLATE_FRESH_MS: an edit reaches the children started after the next look', async () => {
    const { file, load } = await template(TEXT);
    let now = 0;
    let looks = 0;
    const made = new PreparedTemplates(() => now);
    const look = () => made.template('steps', () => (looks++, load()));
    const ids = () => made.get(look(), { topic: 'DOT' }, ctx).graph.nodes.map((n) => n.id);
    expect(ids()).toEqual(['a', 'b']);
    await writeFile(file, TEXT.replace('a -> b', 'c [type=function toolCode=template toolInput="x"]\n  a -> b -> c'));
    await utimes(file, new Date(), new Date(Date.now() + 5_000));
    now = TEMPLATE_FRESH_MS - 1;
    expect(ids()).toEqual(['a', 'b']);
    expect(looks).toBe(1);
    now = TEMPLATE_FRESH_MS;
    expect(ids()).toEqual(['a', 'b', 'c']);
    expect(looks).toBe(2);
    // Another key (another name, or the same name looked up elsewhere) is looked up on its own.
    made.template('elsewhere', () => (looks++, load()));
    expect(looks).toBe(3);
  });
});

import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readDot } from '../../src/dot/index.js';
import { DotplanError, NotFoundError } from '../../src/errors/errors.js';
import {
  defaultTemplateDirs,
  firstParagraph,
  instantiateTemplate,
  listTemplates,
  loadTemplate,
  packageTemplatesDir,
  readHeaderComment,
} from '../../src/templates/index.js';
import { parseSetFlags } from '../../src/cli/set-flags.js';

const root = mkdtempSync(join(tmpdir(), 'dotplan-templates-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function write(dir: string, name: string, text: string): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const GREETING = `/*
 * Greets someone.
 * Second line of the first paragraph.
 *
 * Parameters: who (required), greeting (default hello).
 */
digraph greet {
  label="Greeting for {{params.who}}"
  params="who,greeting=hello"
  say [type=function status=pending toolCode=echo toolInput="{{params.greeting}}, {{params.who}}! {{nodes.x.output}}"]
}
`;

describe('listTemplates', () => {
  const mine = join(root, 'mine');
  write(mine, 'greet.dot', GREETING);
  write(mine, 'broken.dot', '// A broken one.\ndigraph { a -> }');
  write(mine, 'notes.txt', 'not a template');

  it('lists the .dot files of the given directories with title, description, params and path', () => {
    const list = listTemplates([mine]);
    expect(list.map((t) => t.name)).toEqual(['broken', 'greet']);
    expect(list[1]).toEqual({
      name: 'greet',
      title: 'Greeting for {{params.who}}',
      description: 'Greets someone. Second line of the first paragraph.',
      params: [{ name: 'who' }, { name: 'greeting', default: 'hello' }],
      path: join(mine, 'greet.dot'),
    });
  });

  it('still lists a template that does not parse, with the reason', () => {
    const broken = listTemplates([mine]).find((t) => t.name === 'broken');
    expect(broken?.description).toBe('A broken one.');
    expect(broken?.error).toMatch(/\S/);
  });

  it('lets the first directory win when two hold the same name', () => {
    const other = join(root, 'other');
    write(other, 'greet.dot', '// Another greeting.\ndigraph { a [type=function status=pending toolCode=echo] }');
    expect(listTemplates([other, mine]).find((t) => t.name === 'greet')?.description).toBe('Another greeting.');
    expect(listTemplates([mine, other]).find((t) => t.name === 'greet')?.description).toMatch(/^Greets someone/);
  });

  it('by default reads the package templates and ./templates under the working directory', () => {
    const project = join(root, 'project');
    write(join(project, 'templates'), 'local.dot', '// Local.\ndigraph { a [type=function status=pending toolCode=echo] }');
    const dirs = defaultTemplateDirs(project);
    expect(dirs).toEqual([packageTemplatesDir(), join(project, 'templates')]);
    expect(listTemplates(dirs).map((t) => t.name)).toEqual(expect.arrayContaining(['local', 'approval', 'seed-004']));
    expect(defaultTemplateDirs(join(packageTemplatesDir(), '..'))).toEqual([packageTemplatesDir()]);
  });
});

describe('loadTemplate', () => {
  const mine = join(root, 'load');
  const path = write(mine, 'greet.dot', GREETING);

  it('loads by name or by path, with the text, the header and the graph', () => {
    const byName = loadTemplate('greet', [mine]);
    expect(byName.path).toBe(path);
    expect(byName.dot).toBe(GREETING);
    expect(byName.header[0]).toBe('Greets someone.');
    expect(byName.graph.nodes.map((n) => n.id)).toEqual(['say']);
    expect(loadTemplate('greet.dot', [mine]).path).toBe(path);
    expect(loadTemplate(path, []).name).toBe('greet');
  });

  it('loads a name from where it was found, an edited file afresh, and looks the name up again once its file is gone', () => {
    const first = join(root, 'moving-a');
    const second = join(root, 'moving-b');
    const a = write(first, 'moving.dot', 'digraph moving { one [type=function toolCode=echo] }');
    write(second, 'moving.dot', 'digraph moving { two [type=function toolCode=echo] }');
    expect(loadTemplate('moving', [first, second]).path).toBe(a);
    write(first, 'moving.dot', 'digraph moving { edited [type=function toolCode=echo toolInput="longer than before"] }');
    expect(loadTemplate('moving', [first, second]).graph.nodes.map((n) => n.id)).toEqual(['edited']);
    rmSync(a);
    const again = loadTemplate('moving', [first, second]);
    expect(again.path).toBe(join(second, 'moving.dot'));
    expect(again.graph.nodes.map((n) => n.id)).toEqual(['two']);
    rmSync(join(second, 'moving.dot'));
    expect(() => loadTemplate('moving', [first, second])).toThrow('no template named "moving"');
  });

  it('a name found in a later directory is looked up again once an earlier directory holds it too: the first directory wins', () => {
    const first = join(root, 'shadow-a');
    const second = join(root, 'shadow-b');
    mkdirSync(first, { recursive: true });
    const b = write(second, 'shadow.dot', 'digraph shadow { later [type=function toolCode=echo] }');
    expect(loadTemplate('shadow', [first, second]).path).toBe(b);
    const a = write(first, 'shadow.dot', 'digraph shadow { earlier [type=function toolCode=echo] }');
    expect(loadTemplate('shadow', [first, second]).path).toBe(a);
    expect(loadTemplate('shadow', [first, second]).graph.nodes.map((n) => n.id)).toEqual(['earlier']);
  });

  it('names the available templates when the name is unknown', () => {
    expect(() => loadTemplate('nope', [mine])).toThrow(NotFoundError);
    expect(() => loadTemplate('nope', [mine])).toThrow('no template named "nope"; available: greet');
    expect(() => loadTemplate('./missing.dot', [mine])).toThrow(/missing\.dot does not exist/);
  });

  it('refuses a template whose params attribute is malformed', () => {
    const bad = write(mine, 'bad-params.dot', 'digraph { params="ok,2bad" a [type=function status=pending toolCode=echo] }');
    expect(() => loadTemplate(bad)).toThrow(/params attribute is not valid: "2bad" is not a parameter name/);
  });
});

describe('instantiateTemplate', () => {
  const template = loadTemplate(write(join(root, 'inst'), 'greet.dot', GREETING));

  it('fills defaults, renders the title and keeps {{params.x}} in node inputs for run time', () => {
    const plan = instantiateTemplate(template, { who: 'Ada "the Countess" \\ 世界' });
    expect(plan.params).toEqual({ who: 'Ada "the Countess" \\ 世界', greeting: 'hello' });
    expect(plan.title).toBe('Greeting for Ada "the Countess" \\ 世界');
    expect(plan.graph.attributes.label).toBe(plan.title);
    expect(plan.graph.nodes[0]?.attributes.toolInput).toBe('{{params.greeting}}, {{params.who}}! {{nodes.x.output}}');
    const reread = readDot(plan.dot, { source: 'instantiated' });
    expect(reread.attributes.label).toBe(plan.title);
    expect(reread.nodes[0]?.attributes.toolInput).toBe('{{params.greeting}}, {{params.who}}! {{nodes.x.output}}');
    expect(template.graph.attributes.label).toBe('Greeting for {{params.who}}');
  });

  it('uses a given value over the default', () => {
    expect(instantiateTemplate(template, { who: 'Bo', greeting: 'hi' }).params).toEqual({ who: 'Bo', greeting: 'hi' });
  });

  it('names a missing required parameter', () => {
    expect(() => instantiateTemplate(template, {})).toThrow('values.who is required: template "greet" declares it without a default');
    expect(() => instantiateTemplate(template, { greeting: 'hi' })).toThrow(DotplanError);
  });

  it('names unknown parameters and the declared ones', () => {
    expect(() => instantiateTemplate(template, { who: 'x', colour: 'red' })).toThrow(
      'values.colour is not a parameter of template "greet"; its parameters: who, greeting',
    );
  });
});

describe('parseSetFlags', () => {
  it('reads key=value pairs; the value may hold "=", commas, spaces or be empty', () => {
    expect(parseSetFlags(['topic=a=b, c', 'audience=', 'x_y-z=1'])).toEqual({ topic: 'a=b, c', audience: '', 'x_y-z': '1' });
    expect(parseSetFlags([])).toEqual({});
  });

  it('refuses malformed entries and repeated keys with a clear message', () => {
    expect(() => parseSetFlags(['topic'])).toThrow('--set expects key=value (a parameter name, "=", then the value), got "topic"');
    expect(() => parseSetFlags(['=x'])).toThrow(/got "=x"/);
    expect(() => parseSetFlags(['1a=x'])).toThrow(/got "1a=x"/);
    expect(() => parseSetFlags(['a=1', 'a=2'])).toThrow('--set a is given twice');
  });

  it('keeps a key named __proto__ as a plain entry', () => {
    const parsed = parseSetFlags(['__proto__=x']);
    expect(Object.keys(parsed)).toEqual(['__proto__']);
  });
});

describe('header comments', () => {
  it('reads // and # line comments and one /* */ block; the first paragraph is the description', () => {
    expect(readHeaderComment('\n// One\n//   two\n//\n// three\ndigraph {}')).toEqual(['One', '  two', '', 'three']);
    expect(readHeaderComment('# a\n# b\ndigraph {}')).toEqual(['a', 'b']);
    expect(readHeaderComment('/* only line */ digraph {}')).toEqual(['only line']);
    expect(readHeaderComment('digraph { // not a header\n}')).toEqual([]);
    expect(firstParagraph(['', 'One', '  two', '', 'three'])).toBe('One two');
    expect(firstParagraph([])).toBe('');
  });
});

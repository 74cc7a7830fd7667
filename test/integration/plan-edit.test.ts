/**
 * `dotplan plan edit` with a scripted $EDITOR (a small Node script standing in for the person at
 * the keyboard): the first save introduces a cycle, the file comes back with the error as a `//`
 * comment at the top, the second save fixes it and the edit applies; `plan revisions` and
 * `plan diff` then show it. When the person gives up (saves the refused file unchanged), nothing
 * is applied, the command exits 1 and prints where the edit is kept.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runDotplan } from '../support/cli.js';
import { openWorkspace, workflow, type Workspace } from './workspace.js';

/** An editor that, on its n-th run, keeps a copy of what it was shown (seen-n.dot) and makes the n-th of `saves`. */
const EDITOR_SCRIPT = `
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
const file = process.argv[2];
const here = dirname(new URL(import.meta.url).pathname);
const counter = join(here, 'editor-runs');
const run = existsSync(counter) ? Number(readFileSync(counter, 'utf8')) + 1 : 1;
writeFileSync(counter, String(run));
const text = readFileSync(file, 'utf8');
writeFileSync(join(here, 'seen-' + run + '.dot'), text);
const saves = JSON.parse(readFileSync(join(here, 'saves.json'), 'utf8'));
const save = saves[run - 1];
if (save === 'cycle') writeFileSync(file, text.replace('toolInput="old c"', 'toolInput="new c"').replace(/\\n}\\s*$/, '\\n  c -> a;\\n}\\n'));
else if (save === 'fix') writeFileSync(file, text.replace(/\\n\\s*c -> a;/, ''));
// 'unchanged': save as it is
`;

describe('plan edit', () => {
  let ws: Workspace;
  let planId: string;
  beforeEach(async () => {
    ws = await openWorkspace();
    ws.write('editor.mjs', EDITOR_SCRIPT);
    planId = await ws.createPlan(
      `// Three steps; edited by hand in this test\n${workflow('edit', {
        nodes: [
          `a [type=function toolCode=echo toolInput="a"]`,
          `b [type=function toolCode=echo toolInput="b"]`,
          `c [type=function toolCode=echo toolInput="old c"]`,
        ],
        edges: ['a -> b', 'b -> c'],
      })}`,
    );
  });
  afterEach(async () => {
    await ws.cleanup();
  });

  const edit = (saves: string[]) => {
    ws.write('saves.json', JSON.stringify(saves));
    return runDotplan(['plan', 'edit', planId, '--by', 'ops'], { cwd: ws.dir, env: { ...ws.env, EDITOR: `node ${join(ws.dir, 'editor.mjs')}`, VISUAL: '' } });
  };

  it('reopens a refused edit with the problem as a comment; the fixed save applies, and history shows it', async () => {
    const result = await edit(['cycle', 'fix']);
    expect(result.code).toBe(0);

    const first = readFileSync(join(ws.dir, 'seen-1.dot'), 'utf8');
    expect(first).toMatch(/^\/\/ Three steps; edited by hand in this test$/m); // the authored comment is shown
    expect(first).toMatch(/revision="1"/);
    const second = readFileSync(join(ws.dir, 'seen-2.dot'), 'utf8');
    expect(second).toMatch(/^\/\/ dotplan: this edit was NOT applied/);
    expect(second).toMatch(/^\/\/ dotplan: .*CYCLE/m);
    expect(second).toMatch(/c -> a/); // the person's work is still there to fix
    expect(existsSync(join(ws.dir, 'seen-3.dot'))).toBe(false);
    expect(result.stdout).toMatch(/revision 2 applied \(1 change, made from revision 1/);

    expect((await ws.store.plans.node(planId, 'c')).attributes.toolInput).toBe('new c');
    expect((await ws.store.plans.edges(planId)).map((e) => `${e.from}->${e.to}`)).toEqual(['a->b', 'b->c']);

    const revisions = JSON.parse(await ws.ok(['plan', 'revisions', planId, '--json'])) as Array<Record<string, unknown>>;
    expect(revisions).toEqual([
      expect.objectContaining({ number: 1, parent: null, author: 'person' }),
      expect.objectContaining({ number: 2, parent: 1, author: 'operator', driver: 'operator', by: 'ops', changes: 1 }),
    ]);
    expect(await ws.ok(['plan', 'revisions', planId])).toMatch(/^2\s+1\s+operator\s+operator:ops\s+1\s/m);
    expect(await ws.ok(['plan', 'diff', planId, '1'])).toBe('revision 1 → 2\n~ node c toolInput: "old c" → "new c"\n');
    expect((await ws.store.plans.revision(planId)).dot).toMatch(/^\/\/ Three steps; edited by hand in this test\n/);
  });

  it('gives up when the refused file is saved unchanged: nothing applied, exit 1, the file kept and named', async () => {
    const result = await edit(['cycle', 'unchanged']);
    expect(result.code).toBe(1);
    const kept = /Your edit is kept in (\S+)/.exec(result.stderr)?.[1];
    expect(kept).toBeDefined();
    expect(readFileSync(kept!, 'utf8')).toMatch(/c -> a/);
    expect((await ws.store.plans.revisions(planId)).length).toBe(1);
    expect((await ws.store.plans.node(planId, 'c')).attributes.toolInput).toBe('old c');
  });
});

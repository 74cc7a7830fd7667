/**
 * A hand edit of a running plan with real worker processes (issue 7's first acceptance point): a
 * plan runs until a node fails; the operator, in one `plan apply`, inserts a node between two
 * pending nodes, changes a pending node's input and retries the failed node; the worker runs the
 * new node, the changed input is used, and the plan completes.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openWorkspace, statuses, workflow, json, type Workspace } from './workspace.js';

describe('hand edits with a real worker', () => {
  let ws: Workspace;
  beforeEach(async () => {
    ws = await openWorkspace();
  });
  afterEach(async () => {
    await ws.cleanup();
  });

  it('one plan apply inserts a node, changes an input and retries the failed node; the worker runs them and the plan completes', async () => {
    const out = join(ws.dir, 'out', 'log.txt');
    const record = (line: string) => `type=function toolCode=record toolInput=${json({ file: out, line })}`;
    const lines = () => (existsSync(out) ? readFileSync(out, 'utf8').trim().split('\n') : []);
    const planId = await ws.createPlan(
      workflow('edit', {
        // `b` fails while the output folder is missing, so the plan stops before `c`.
        nodes: [`a [type=function toolCode=echo toolInput="ok"]`, `b [${record('b')}]`, `c [${record('old c')}]`],
        edges: ['a -> b', 'b -> c'],
      }),
    );
    expect((await ws.dotplan(['worker', '--until-idle'])).code).toBe(0);
    expect(await statuses(ws, planId)).toEqual({ plan: 'failed', a: 'done', b: 'failed', c: 'pending' });

    mkdirSync(join(ws.dir, 'out'));
    const shown = await ws.ok(['plan', 'show', planId, '--format', 'dot']);
    const edited = shown
      .replace(/(\n\s*b \[[^\n]*)status="failed"/, '$1status="ready"')
      .replace('old c', 'new c')
      .replace(/\n\s*b -> c;?/, `\n  n [${record('n')}]\n  b -> n\n  n -> c`);
    const applied = JSON.parse(await ws.ok(['plan', 'apply', planId, ws.write('edited.dot', edited), '--json', '--by', 'ops'])) as {
      applied: boolean;
      revision: number;
    };
    expect(applied).toMatchObject({ applied: true, revision: 2 });
    expect(await statuses(ws, planId)).toEqual({ plan: 'running', a: 'done', b: 'ready', c: 'pending', n: 'pending' });

    expect((await ws.dotplan(['worker', '--until-idle'])).code).toBe(0);
    expect(await statuses(ws, planId)).toEqual({ plan: 'completed', a: 'done', b: 'done', c: 'done', n: 'done' });
    expect(lines()).toEqual(['b', 'n', 'new c']);
    const events = await ws.store.events.list(planId);
    expect(events.find((e) => e.kind === 'revision' && e.detail?.revision === 2)).toMatchObject({ driver: 'operator', actor: 'ops' });
  });
});

/**
 * Edits over HTTP, as the editor makes them: the DOT of `GET …/dot` (which names its revision and
 * event), changed and posted back. A cycle is a 422 naming its line; a good edit is revision N+1; an
 * edit made from an older revision that clashes is a 409 MERGE_CONFLICT; a dry run changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApi, problemOf, type ApiUnderTest } from './client.js';

const PLAN = `digraph g {
  a [type=confirm status=pending question="First?" label="first"]
  b [type=confirm status=pending question="Second?" label="second"]
  a -> b
}`;

let s: ApiUnderTest;
let op: string;
let planId: string;
beforeAll(async () => {
  s = await openApi({ rateLimit: 0 });
  op = await s.token('operate');
  planId = (await s.t.dotplan.create({ dot: PLAN, title: 'edited' })).id;
});
afterAll(() => s?.close());

const post = (path: string, body: unknown) => s.call('POST', path, { token: op, body });
const get = (path: string) => s.call('GET', path, { token: op });

describe('editing a plan over HTTP', () => {
  let original: string;
  beforeAll(async () => (original = await (await get(`/v1/plans/${planId}/dot`)).text()));

  it('refuses an edit with a cycle, naming the line, and changes nothing', async () => {
    const cyclic = original.replace(/(\n\s*a -> b;)/, '$1\n  b -> a;');
    expect(cyclic).not.toBe(original);
    const refused = await problemOf(await post(`/v1/plans/${planId}/revisions`, { dot: cyclic }));
    expect(refused).toMatchObject({ status: 422, code: 'VALIDATION_FAILED' });
    const cycle = refused.diagnostics?.find((d) => d.code === 'CYCLE');
    expect(cycle?.line).toBeTypeOf('number');
    expect((await s.t.dotplan.plan(planId)).revision).toBe(1);
  });

  it('says what a dry run would change without applying it', async () => {
    const report = (await (
      await post(`/v1/plans/${planId}/revisions`, { dot: original.replace('label="first"', 'label="first, renamed"'), dryRun: true })
    ).json()) as {
      applied: boolean;
      changes: unknown[];
    };
    expect(report.applied).toBe(false);
    expect(report.changes.length).toBeGreaterThan(0);
    expect((await s.t.dotplan.plan(planId)).revision).toBe(1);
  });

  it('applies a good edit as revision 2, lists it, and diffs it', async () => {
    const response = await post(`/v1/plans/${planId}/revisions`, { dot: original.replace('label="first"', 'label="first, renamed"'), reason: 'clearer' });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { revision: number }).revision).toBe(2);
    const revisions = (await (await get(`/v1/plans/${planId}/revisions`)).json()) as Array<{ number: number; by?: string; dot?: string }>;
    expect(revisions.map((r) => r.number)).toEqual([1, 2]);
    expect(revisions[1]?.by).toBe('operate');
    expect(revisions.every((r) => r.dot === undefined)).toBe(true);
    const one = (await (await get(`/v1/plans/${planId}/revisions/2`)).json()) as { dot: string };
    expect(one.dot).toContain('first, renamed');
    const diff = (await (await get(`/v1/plans/${planId}/diff?from=1`)).json()) as { from: number; to: number; changes: unknown[] };
    expect(diff).toMatchObject({ from: 1, to: 2 });
    expect(diff.changes.length).toBeGreaterThan(0);
  });

  it('refuses an edit made from revision 1 that changes the same attribute otherwise: 409 MERGE_CONFLICT', async () => {
    const clash = await problemOf(await post(`/v1/plans/${planId}/revisions`, { dot: original.replace('label="first"', 'label="first, otherwise"') }));
    expect(clash).toMatchObject({ status: 409, code: 'MERGE_CONFLICT' });
    expect((await s.t.dotplan.plan(planId)).revision).toBe(2);
  });

  it('reverts to revision 1 as revision 3', async () => {
    const response = await post(`/v1/plans/${planId}/revert`, { revision: 1 });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { revision: number }).revision).toBe(3);
    expect((await problemOf(await post(`/v1/plans/${planId}/revert`, { revision: 99 }))).status).toBe(404);
  });
});

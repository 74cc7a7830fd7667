/**
 * The plan resources over HTTP, in-process: create (template, DOT, goal refused without an LLM, bad
 * DOT with its diagnostics), idempotent create, summary, DOT, drawing with its ETag, report, nodes,
 * commands with a refused move as 409, the inbox, events by page, validate, render, templates.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApi, problemOf, runUntilIdle, type ApiUnderTest } from './client.js';

const ASK = 'digraph g { ask [type=confirm status=pending question="Go?" options="yes,no"] }';

let s: ApiUnderTest;
let op: string;
beforeAll(async () => {
  s = await openApi({ rateLimit: 0 });
  op = await s.token('operate');
});
afterAll(() => s?.close());

const post = (path: string, body: unknown, headers: Record<string, string> = {}) => s.call('POST', path, { token: op, body, headers });
const get = (path: string, headers: Record<string, string> = {}) => s.call('GET', path, { token: op, headers });
async function created(body: unknown): Promise<{ id: string; status: string; title: string }> {
  const response = await post('/v1/plans', body);
  expect(response.status, await response.clone().text()).toBe(201);
  return (await response.json()) as never;
}

describe('creating plans', () => {
  it('makes one from a shipped template and its values, with the token as creator', async () => {
    const plan = await created({ template: 'approval', values: { item: 'a laptop' } });
    expect(plan.title).toContain('a laptop');
    const stored = await s.t.dotplan.plan(plan.id);
    expect(stored.template).toBe('approval');
    const [first] = await s.t.dotplan.events.list({ planId: plan.id, limit: 1 });
    expect(first?.actor).toBe('operate');
  });

  it('refuses a template given as a path, and bad DOT with diagnostics naming the line', async () => {
    const path = await problemOf(await post('/v1/plans', { template: '../../etc/passwd' }));
    expect(path.status).toBe(422);
    expect(path.argument).toBe('template');
    const bad = await problemOf(await post('/v1/plans', { dot: 'digraph g {\n a -> b\n b -> a\n}' }));
    expect(bad).toMatchObject({ status: 422, code: 'VALIDATION_FAILED' });
    expect(bad.diagnostics?.some((d) => d.code === 'CYCLE' && typeof d.line === 'number')).toBe(true);
    const two = await problemOf(await post('/v1/plans', { dot: ASK, goal: 'x' }));
    expect(two.detail).toContain('exactly one of template, dot or goal');
  });

  it('makes a plan once per Idempotency-Key: a retry gets the same plan, another body is refused', async () => {
    const key = { 'idempotency-key': 'create-42' };
    const first = await post('/v1/plans', { dot: ASK, title: 'once' }, key);
    const again = await post('/v1/plans', { dot: ASK, title: 'once' }, key);
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const [a, b] = (await Promise.all([first.json(), again.json()])) as Array<{ id: string }>;
    expect(b?.id).toBe(a?.id);
    expect((await s.t.dotplan.plans()).filter((p) => p.title === 'once')).toHaveLength(1);
    const other = await problemOf(await post('/v1/plans', { dot: ASK, title: 'twice' }, key));
    expect(other).toMatchObject({ status: 422, argument: 'Idempotency-Key' });
  });

  it('makes one plan when the same key arrives twice at once', async () => {
    const key = { 'idempotency-key': 'race-1' };
    const responses = await Promise.all([post('/v1/plans', { dot: ASK, title: 'race' }, key), post('/v1/plans', { dot: ASK, title: 'race' }, key)]);
    expect(responses.map((r) => r.status).sort()).toEqual(expect.arrayContaining([201]));
    expect((await s.t.dotplan.plans()).filter((p) => p.title === 'race')).toHaveLength(1);
  });
});

describe('one plan', () => {
  let id: string;
  beforeAll(async () => {
    id = (await created({ dot: ASK, title: 'one' })).id;
    await runUntilIdle(s.t.dotplan);
  });

  it('summarises it: record, nodes per status, what it waits for', async () => {
    const summary = (await (await get(`/v1/plans/${id}`)).json()) as { plan: { id: string }; nodes: Record<string, number>; children: unknown[] };
    expect(summary.plan.id).toBe(id);
    expect(Object.values(summary.nodes).reduce((a, b) => a + b, 0)).toBe(1);
    expect(summary.children).toEqual([]);
    expect((await problemOf(await get('/v1/plans/p_nope'))).status).toBe(404);
  });

  it('gives its DOT with revision and asOfEvent, and its drawing with an ETag that answers 304', async () => {
    const dot = await get(`/v1/plans/${id}/dot`);
    expect(dot.headers.get('content-type')).toMatch(/^text\/vnd\.graphviz/);
    expect(await dot.text()).toMatch(/revision="1";\s+asOfEvent="\d+"/);
    const svg = await get(`/v1/plans/${id}/graph.svg`);
    expect(svg.headers.get('content-type')).toBe('image/svg+xml');
    expect(await svg.text()).toContain('<svg');
    const etag = svg.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"r1-/);
    expect((await get(`/v1/plans/${id}/graph.svg`, { 'if-none-match': etag })).status).toBe(304);
  });

  it('gives the report as Markdown, HTML and JSON', async () => {
    expect(await (await get(`/v1/plans/${id}/report`)).text()).toContain('one');
    const html = await get(`/v1/plans/${id}/report?format=html`);
    expect(html.headers.get('content-type')).toMatch(/^text\/html/);
    // The self-contained page may use its inline styles, and nothing else; every other answer gets the strict policy.
    expect(html.headers.get('content-security-policy')).toBe("default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'");
    expect((await get(`/v1/plans/${id}`)).headers.get('content-security-policy')).toMatch(/^default-src 'self'; object-src 'none'/);
    expect(JSON.parse(await (await get(`/v1/plans/${id}/report?format=json`)).text())).toBeTypeOf('object');
  });

  it('lists its nodes and one node with its events', async () => {
    const nodes = (await (await get(`/v1/plans/${id}/nodes`)).json()) as Array<{ id: string }>;
    expect(nodes.map((n) => n.id)).toEqual(['ask']);
    const node = (await (await get(`/v1/plans/${id}/nodes/ask`)).json()) as { id: string; events: Array<{ nodeId: string }> };
    expect(node.events.length).toBeGreaterThan(0);
    expect(node.events.every((e) => e.nodeId === 'ask')).toBe(true);
    expect((await get(`/v1/plans/${id}/nodes/nope`)).status).toBe(404);
  });

  it('pauses and resumes it; a move the state machine refuses is a 409 saying why', async () => {
    expect(((await (await post(`/v1/plans/${id}/pause`, { reason: 'lunch' })).json()) as { status: string }).status).toBe('paused');
    const twice = await problemOf(await post(`/v1/plans/${id}/pause`, {}));
    expect(twice).toMatchObject({ status: 409 });
    expect(((await (await post(`/v1/plans/${id}/resume`, {})).json()) as { status: string }).status).toBe('running');
    const paused = await s.t.dotplan.events.list({ planId: id });
    expect(paused.some((e) => e.reason === 'lunch' && e.actor === 'operate')).toBe(true);
  });

  it('pages the audit log with after and limit', async () => {
    const all = (await (await get(`/v1/plans/${id}/events`)).json()) as Array<{ id: number }>;
    expect(all.length).toBeGreaterThan(2);
    const page = (await (await get(`/v1/plans/${id}/events?after=${all[0]!.id}&limit=1`)).json()) as Array<{ id: number }>;
    expect(page).toEqual([all[1]]);
    const everything = (await (await get(`/v1/events?after=${all[0]!.id - 1}&limit=2`)).json()) as Array<{ id: number }>;
    expect(everything[0]?.id).toBe(all[0]!.id);
  });

  it('answers its question from the inbox, and the inbox empties', async () => {
    const inbox = (await (await get('/v1/inbox')).json()) as Array<{ planId: string; nodeId?: string }>;
    expect(inbox.some((e) => e.planId === id && e.nodeId === 'ask')).toBe(true);
    const refused = await problemOf(await post(`/v1/plans/${id}/nodes/ask/answer`, { text: 'maybe' }));
    expect(refused.status).toBe(422);
    expect((await post(`/v1/plans/${id}/nodes/ask/answer`, { text: 'yes' })).status).toBe(200);
    const after = (await (await get(`/v1/inbox?planId=${id}`)).json()) as unknown[];
    expect(after).toEqual([]);
    expect((await problemOf(await post(`/v1/plans/${id}/nodes/ask/answer`, { text: 'no' }))).status).toBe(409);
  });

  it('refuses to cancel it once it has completed (409), and cancels a running one', async () => {
    await runUntilIdle(s.t.dotplan);
    expect((await s.t.dotplan.plan(id)).status).toBe('completed');
    const refused = await problemOf(await post(`/v1/plans/${id}/cancel`, {}));
    expect(refused.status).toBe(409);
    const running = (await created({ dot: ASK, title: 'to cancel' })).id;
    expect(((await (await post(`/v1/plans/${running}/cancel`, { reason: 'not needed' })).json()) as { status: string }).status).toBe('cancelled');
  });
});

describe('lists, the editor and templates', () => {
  it('pages the plan list newest first with a cursor, and filters by status', async () => {
    for (const title of ['l1', 'l2', 'l3']) await created({ dot: ASK, title });
    const first = (await (await get('/v1/plans?limit=2')).json()) as { plans: Array<{ id: string }>; next: string | null };
    expect(first.plans).toHaveLength(2);
    expect(first.next).toBe(first.plans[1]?.id);
    const second = (await (await get(`/v1/plans?limit=2&cursor=${first.next}`)).json()) as { plans: Array<{ id: string }> };
    expect(second.plans.map((p) => p.id)).not.toContain(first.plans[0]?.id);
    const running = (await (await get('/v1/plans?status=running')).json()) as { plans: Array<{ status: string }> };
    expect(running.plans.every((p) => p.status === 'running')).toBe(true);
    expect((await problemOf(await get('/v1/plans?status=nope'))).status).toBe(422);
  });

  it('validates and draws a DOT text without storing it', async () => {
    const before = (await s.t.dotplan.plans()).length;
    const result = (await (await post('/v1/validate', { dot: 'digraph g {\n a -> b\n b -> a\n}' })).json()) as {
      valid: boolean;
      diagnostics: Array<{ code: string }>;
    };
    expect(result.valid).toBe(false);
    expect(result.diagnostics.map((d) => d.code)).toContain('CYCLE');
    expect(await (await post('/v1/render', { dot: ASK })).text()).toContain('<svg');
    expect((await s.t.dotplan.plans()).length).toBe(before);
  });

  it('lists the templates with their parameters, not their paths', async () => {
    const templates = (await (await get('/v1/templates')).json()) as Array<{ name: string; path?: string; params: unknown[] }>;
    expect(templates.map((t) => t.name)).toContain('approval');
    expect(templates.every((t) => t.path === undefined)).toBe(true);
  });

  it('answers an unknown route with a problem document', async () => {
    expect((await problemOf(await get('/v1/nope'))).status).toBe(404);
  });
});

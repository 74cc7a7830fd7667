import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliDatabase, testBackend } from '../support/db.js';
import { runCli } from './run-cli.js';

const VALUES: Record<string, string[]> = {
  'seed-004': [],
  'research-report': ['--set', 'topic=DOT plans'],
  approval: ['--set', 'item=a laptop', '--set', 'amount=1,200 EUR'],
  'fan-out-fan-in': [],
};

describe(`dotplan plan (${testBackend()})`, () => {
  let cwd: string;
  let db: string[] = [];
  let drop: (() => Promise<void>) | undefined;
  const cli = (args: string[], input?: string) => runCli([...args, ...db], { cwd, ...(input !== undefined ? { input } : {}) });

  beforeAll(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'dotplan-cli-'));
    ({ args: db, drop } = await cliDatabase());
  });
  afterAll(async () => {
    await drop?.();
    rmSync(cwd, { recursive: true, force: true });
  });

  it.each(Object.keys(VALUES))('creates a plan from template %s; its shown DOT validates', async (name) => {
    const created = await cli(['plan', 'create', '--template', name, ...VALUES[name]!, '--json']);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const { id } = JSON.parse(created.stdout) as { id: string };
    expect(id).toMatch(/^p_/);
    const shown = await cli(['plan', 'show', id, '--format', 'dot']);
    expect(shown.code).toBe(0);
    const validated = await cli(['validate', '-'], shown.stdout);
    expect(validated.stderr).toBe('');
    expect(validated.code).toBe(0);
    const json = JSON.parse((await cli(['plan', 'show', id, '--format', 'json'])).stdout) as {
      id: string;
      status: string;
      nodes: Array<{ id: string; type: string; status: string; label: string }>;
      edges: Array<{ from: string; to: string }>;
    };
    expect(json.id).toBe(id);
    expect(json.status).toBe('running');
    expect(json.nodes.length).toBeGreaterThan(2);
    expect(json.nodes.some((n) => n.status === 'ready')).toBe(true);
    expect(json.edges.length).toBeGreaterThan(0);
  });

  it('renders a stored plan with its live status (render --plan)', async () => {
    const { id } = JSON.parse((await cli(['plan', 'create', '--template', 'approval', ...VALUES.approval!, '--json'])).stdout) as { id: string };
    const svg = await cli(['render', '--plan', id]);
    expect(svg.code).toBe(0);
    expect(svg.stdout).toContain('<svg');
    expect(svg.stdout).toMatch(/class="node status(-|&#45;)ready type(-|&#45;)function"/); // the live status, not the authored one
    const dot = await cli(['render', '--plan', id, '--format', 'dot']);
    expect(dot.stdout).toMatch(/request \[[^\]]*status="ready"/);
    const missing = await cli(['render', '--plan', 'p_nope']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/p_nope/);
    const both = await cli(['render', 'x.dot', '--plan', id]);
    expect(both.code).toBe(2);
  });

  it('lists revisions, prints one as written, diffs two, and names the revisions that exist', async () => {
    const { id } = JSON.parse((await cli(['plan', 'create', '--template', 'approval', ...VALUES.approval!, '--json'])).stdout) as { id: string };
    const revisions = JSON.parse((await cli(['plan', 'revisions', id, '--json'])).stdout) as Array<Record<string, unknown>>;
    expect(revisions).toMatchObject([{ number: 1, parent: null, author: 'template', updateLog: 'Created from template approval' }]);
    expect((await cli(['plan', 'revisions', id])).stdout).toMatch(
      /^REVISION\s+PARENT\s+AUTHOR\s+WHO\s+CHANGES\s+AT\s+UPDATE LOG\n1\s+-\s+template\s+\S+\s+-\s+/,
    );
    const shown = await cli(['plan', 'show', id, '--revision', '1']);
    expect(shown.stdout).toContain('digraph approval');
    expect(shown.stdout).not.toContain('status="ready"'); // as written, not live
    expect(JSON.parse((await cli(['plan', 'diff', id, '1', '--json'])).stdout)).toEqual({ from: 1, to: 1, changes: [] });
    expect((await cli(['plan', 'diff', id, '1'])).stdout).toBe('revision 1 → 1\nno change\n');
    const missing = await cli(['plan', 'diff', id, '1', '4']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`plan ${id} has no revision 4; its revisions are 1`);
    expect((await cli(['plan', 'show', id, '--revision', 'two'])).code).toBe(2);
  });

  it('applies a hand edit as a new revision, or refuses it whole naming node and attribute (plan apply)', async () => {
    const { id } = JSON.parse((await cli(['plan', 'create', '--template', 'approval', ...VALUES.approval!, '--json'])).stdout) as { id: string };
    const shown = (await cli(['plan', 'show', id])).stdout;
    const edited = shown.replace(/(\n\s*request \[[^\n]*)label="Write the request"/, '$1label="Write the request, politely"');
    expect(edited).not.toBe(shown);
    const dry = await cli(['plan', 'apply', id, '-', '--dry-run'], edited);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(
      /^dry run: would apply 1 change \(made from revision 1, as of event \d+\); nothing changed\n~ node request label: "Write the request" → "Write the request, politely"/,
    );
    const applied = JSON.parse((await cli(['plan', 'apply', id, '-', '--json', '--by', 'ops'], edited)).stdout) as { applied: boolean; revision: number };
    expect(applied).toMatchObject({ applied: true, revision: 2 });
    expect((await cli(['plan', 'revisions', id, '--json'])).stdout).toContain('"number": 2');
    const forged = (await cli(['plan', 'show', id])).stdout.replace(/(\n\s*request \[[^\n]*)status="ready"/, '$1status="done"');
    const refused = await cli(['plan', 'apply', id, '-'], forged);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/refused MOVE_REFUSED: node "request": the operator may not move it from ready to done/);
    expect(refused.stderr).toMatch(/not applied .*the plan is unchanged/);
    expect((await cli(['plan', 'apply', id, '-'], 'digraph { a -> }')).code).toBe(1);

    // Back to revision 1's structure: the label edit is undone, as revision 3.
    const reverted = JSON.parse((await cli(['plan', 'revert', id, '1', '--json'])).stdout) as {
      applied: boolean;
      revision: number;
      changes: Array<{ node?: string; attribute?: string; to?: string }>;
    };
    expect(reverted).toMatchObject({ applied: true, revision: 3, changes: [{ node: 'request', attribute: 'label', to: 'Write the request' }] });
    expect((await cli(['plan', 'revert', id, '3'])).stdout).toBe('no change (taken against the latest revision)\n');
  });

  it('creates from a DOT file, lists it, and records its events', async () => {
    const dot = join(import.meta.dirname, '../fixtures/dot/valid/seed-004-example-1.dot');
    const created = await cli(['plan', 'create', '--dot', dot, '--title', 'Seed example']);
    expect(created.code).toBe(0);
    const id = created.stdout.trim();
    const list = JSON.parse((await cli(['plan', 'list', '--json'])).stdout) as Array<{ id: string; title: string }>;
    expect(list.find((p) => p.id === id)?.title).toBe('Seed example');
    const running = JSON.parse((await cli(['plan', 'list', '--status', 'running', '--json'])).stdout) as Array<{ id: string }>;
    expect(running.map((p) => p.id)).toContain(id);
    const events = JSON.parse((await cli(['plan', 'events', id, '--json'])).stdout) as Array<{ nodeId?: string; from: string; to: string; driver: string }>;
    expect(events).toEqual(expect.arrayContaining([expect.objectContaining({ nodeId: '1', from: 'pending', to: 'ready', driver: 'engine' })]));
  });

  it('refuses a template parameter that is missing or unknown, naming it', async () => {
    const missing = await cli(['plan', 'create', '--template', 'approval']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('item');
    const unknown = await cli(['plan', 'create', '--template', 'seed-004', '--set', 'colour=red']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('colour');
  });

  it('refuses a plan with an agent node until agents exist', async () => {
    const dot = 'digraph { a [type=agent status=pending agentCode=searcher task="find things"] }';
    const result = await cli(['plan', 'create', '--dot', '-'], dot);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/agent/i);
  });

  it('a refused state move leaves the stored plan exactly as it was', async () => {
    const id = (await cli(['plan', 'create', '--template', 'seed-004'])).stdout.trim();
    const before = [(await cli(['plan', 'show', id, '--format', 'json'])).stdout, (await cli(['plan', 'events', id, '--json'])).stdout];
    // node 1 is ready: an operator may not retry it (only failed nodes), and nobody may answer it
    const retry = await cli(['node', 'retry', id, '1']);
    expect(retry.code).toBe(1);
    expect(retry.stderr).toMatch(/node "1": operator may not move it from ready to ready|ready/);
    const answer = await cli(['answer', id, '1', 'yes']);
    expect(answer.code).toBe(1);
    const after = [(await cli(['plan', 'show', id, '--format', 'json'])).stdout, (await cli(['plan', 'events', id, '--json'])).stdout];
    expect(after).toEqual(before);
  });

  it('names the plan in a not-found error, without a stack trace', async () => {
    const result = await cli(['plan', 'show', 'p_nope']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/p_nope/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});

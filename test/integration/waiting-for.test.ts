/**
 * Nothing waits silently (issue 13, item 7): a reflection plan that no worker can serve says so at
 * `plan create`, in the worker's banner and in `plan show`; `plan show` (text and JSON) says what any
 * plan waits for — the LLM, an answer, a review, a retry — computed in one place from its state.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitUntil } from '../support/cli.js';
import { openWorkspace, workflow, type Workspace } from './workspace.js';

interface Wait {
  for: string;
  text: string;
  node?: string;
  since?: string;
  at?: string;
  command?: string;
}

describe('what a plan waits for', () => {
  let ws: Workspace;
  beforeEach(async () => {
    ws = await openWorkspace();
  });
  afterEach(async () => {
    await ws.cleanup();
  });

  const waitingFor = async (id: string) => (JSON.parse(await ws.ok(['plan', 'show', id, '--json'])) as { waitingFor: Wait[] }).waitingFor;

  it('warns at create, in the worker banner and in plan show when no LLM endpoint can write a goal plan', async () => {
    const created = await ws.dotplan(['plan', 'create', '--goal', 'Where does ACME sell?']);
    expect(created.code).toBe(0);
    const id = created.stdout.trim();
    expect(id).toMatch(/^p_/); // stdout stays the id alone
    expect(created.stderr).toMatch(/no LLM endpoint is configured here \(OPENAI_BASE_URL or OPENAI_API_KEY\); a worker with one must serve this plan/);

    const worker = await ws.dotplan(['worker', '--until-idle']);
    expect(worker.code).toBe(0);
    expect(worker.stderr).toMatch(/does not serve LLM work \(reflection plans, verify="llm"\): no LLM endpoint is configured/);

    const shown = await ws.ok(['plan', 'show', id]);
    expect(shown.split('\n')[0]).toBe('// dotplan: waiting for a worker with an LLM endpoint to write its first plan');
    expect(await waitingFor(id)).toEqual([{ for: 'llm', text: 'a worker with an LLM endpoint to write its first plan' }]);
  });

  it('names the answer, the review and the retry a workflow plan waits for, and nothing once it is over', async () => {
    const asks = await ws.createPlan(
      workflow('asks', {
        nodes: ['ask [type=confirm question="Ship it?"]', 'flaky [type=function toolCode=flaky toolInput="{\\"failures\\": 5}" retries=3 retryDelay="1h"]'],
      }),
    );
    const worker = ws.spawn(['worker', '--quiet']); // not --until-idle: a retry due in an hour keeps that one alive
    await waitUntil(async () => {
      const nodes = await ws.nodes(asks);
      return nodes.get('ask')?.status === 'awaiting_input' && nodes.get('flaky')?.status === 'ready' && nodes.get('flaky')?.attempts === 1;
    }, 'the question to wait and the flaky node to wait for its retry');
    worker.stop();
    await worker.exited;
    const waits = await waitingFor(asks);
    expect(waits.map((w) => [w.for, w.node])).toEqual([
      ['answer', 'ask'],
      ['retry', 'flaky'],
    ]);
    expect(waits[0]).toMatchObject({ text: 'an answer to node ask', command: `dotplan answer ${asks} ask "<your answer>"` });
    expect(Date.parse(waits[0]!.since!)).toBeGreaterThan(Date.now() - 60_000);
    expect(waits[1]!.text).toMatch(/^node flaky's retry at \d{4}-\d\d-\d\dT/);
    expect(Date.parse(waits[1]!.at!)).toBeGreaterThan(Date.now() + 5 * 60_000); // retryDelay 1h, capped at 10 min
    expect((await ws.ok(['plan', 'show', asks])).split('\n').slice(0, 2)).toEqual([
      expect.stringMatching(new RegExp(`^// dotplan: waiting for an answer to node ask since .+: dotplan answer ${asks} ask "<your answer>"$`)),
      expect.stringMatching(/^\/\/ dotplan: waiting for node flaky's retry at /),
    ]);

    const reviewed = await ws.createPlan(workflow('reviewed', { graph: { review: 'required' }, nodes: ['a [type=function toolCode=echo toolInput="A"]'] }));
    expect(await waitingFor(reviewed)).toEqual([expect.objectContaining({ for: 'review', text: 'review', command: `dotplan plan approve ${reviewed}` })]);
    await ws.ok(['plan', 'reject', reviewed, '--reason', 'not now']);
    expect(await waitingFor(reviewed)).toEqual([]);
  });
});

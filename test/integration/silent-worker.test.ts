/**
 * A worker nobody listens to for notices (an embedded worker, `dotplan demo`) must not swallow
 * them: it claims none, so the question is still announced by a worker that sends notices. It still
 * applies answer timeouts, in the order they fall due, however many questions wait.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDotplan } from '../../src/operations/open.js';
import { startReceiver, type Receiver } from '../notify/receivers.js';
import { waitUntil } from '../support/cli.js';
import { openWorkspace, workflow, type Workspace } from './workspace.js';

describe('a worker without a notice listener', () => {
  let ws: Workspace;
  let hook: Receiver;
  beforeEach(async () => {
    ws = await openWorkspace();
    hook = await startReceiver();
  });
  afterEach(async () => {
    await ws.cleanup();
    await hook.close();
  });

  it('leaves the notice due for a worker that sends it', async () => {
    const planId = await ws.createPlan(workflow('asks', { nodes: ['ask [type=confirm question="Ship it?"]'] }));
    // Polling every second: without a notice listener, what waits for people is looked at on polls.
    const embedded = await openDotplan({ config: { databaseUrl: ws.url, worker: { poll: '* * * * * *' } }, cwd: ws.dir });
    const worker = embedded.worker().start();
    await waitUntil(async () => (await ws.store.plans.node(planId, 'ask')).status === 'awaiting_input', 'the question to be asked');
    // Proof that the worker swept what waits for people after the question's notice fell due: it
    // applies another question's answerTimeout, due a moment later, in the same sweeps.
    const later = await ws.createPlan(workflow('times_out', { nodes: ['wait [type=confirm question="Still there?" answerTimeout="1s" default="no"]'] }));
    await waitUntil(async () => (await ws.store.plans.get(later)).status === 'completed', 'the other question to time out');
    await worker.stop();
    await embedded.close();
    expect((await ws.store.events.list(planId)).filter((e) => e.kind === 'notice')).toEqual([]);

    ws.write('dotplan.config.json', JSON.stringify({ notify: [{ type: 'webhook', url: hook.url }] }));
    expect((await ws.dotplan(['worker', '--until-idle', '--quiet'])).code).toBe(0);
    expect(hook.received.map((r) => r.json)).toEqual([expect.objectContaining({ planId, nodeId: 'ask', question: 'Ship it?', reminder: 0 })]);
  });

  it('applies the one short answerTimeout among 60 waiting questions, in due order, without sending notices', async () => {
    const questions = Array.from(
      { length: 60 },
      (_, i) => `q${i + 1} [type=confirm question="Question ${i + 1}?"${i === 59 ? ' answerTimeout="2s" default="late"' : ''}]`,
    );
    const planId = await ws.createPlan(workflow('many', { nodes: questions }));
    const embedded = await openDotplan({ config: { databaseUrl: ws.url }, cwd: ws.dir });
    const worker = embedded.worker().start();
    try {
      await waitUntil(async () => (await ws.store.plans.node(planId, 'q60')).status === 'done', "q60's timeout to answer it", 30_000);
    } finally {
      await worker.stop();
      await embedded.close();
    }
    expect(await ws.store.plans.node(planId, 'q60')).toMatchObject({ status: 'done', answer: 'late' });
    const nodes = await ws.store.plans.nodes(planId);
    expect(nodes.filter((n) => n.status === 'awaiting_input')).toHaveLength(59); // the others have no timeout: still waiting
    expect((await ws.store.events.list(planId)).filter((e) => e.kind === 'notice')).toEqual([]); // nobody was told: they stay due
  });
});

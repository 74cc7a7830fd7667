/**
 * A worker nobody listens to for notices (an embedded worker, `dotplan demo`) must not swallow
 * them: it claims none, so the question is still announced by a worker that sends notices.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDotplan } from '../../src/operations/open.js';
import { startReceiver, type Receiver } from '../notify/receivers.js';
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
    const embedded = await openDotplan({ config: { databaseUrl: ws.url }, cwd: ws.dir });
    const worker = embedded.worker().start();
    await new Promise((resolve) => setTimeout(resolve, 2_500)); // a few sweeps, with the question waiting all along
    await worker.stop();
    await embedded.close();
    expect((await ws.store.events.list(planId)).filter((e) => e.kind === 'notice')).toEqual([]);

    ws.write('dotplan.config.json', JSON.stringify({ notify: [{ type: 'webhook', url: hook.url }] }));
    expect((await ws.dotplan(['worker', '--until-idle', '--quiet'])).code).toBe(0);
    expect(hook.received.map((r) => r.json)).toEqual([expect.objectContaining({ planId, nodeId: 'ask', question: 'Ship it?', reminder: 0 })]);
  });
});

/**
 * Questions reach people: when a confirm node starts waiting, the worker prints the question (with
 * its references resolved) and how to answer, and POSTs it as JSON to the configured webhook.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openWorkspace, workflow, json, type Workspace } from './workspace.js';

describe('question notices', () => {
  let ws: Workspace;
  beforeEach(async () => {
    ws = await openWorkspace();
  });
  afterEach(async () => {
    await ws.cleanup();
  });

  it('prints the question and POSTs it to the webhook', async () => {
    const received: Array<Record<string, unknown>> = [];
    const server = createServer(async (req: IncomingMessage, res) => {
      let body = '';
      for await (const chunk of req) body += chunk;
      received.push({ method: req.method, type: req.headers['content-type'], ...(JSON.parse(body) as Record<string, unknown>) });
      res.writeHead(200).end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      const planId = await ws.createPlan(
        workflow('notify', {
          nodes: [`draft [type=function toolCode=echo toolInput=${json('release 1.2')}]`, `ask [type=confirm question="Ship {{nodes.draft.output}}?"]`],
          edges: ['draft -> ask'],
        }),
      );
      ws.write('dotplan.config.json', JSON.stringify({ notify: { webhookUrl: url } }));
      const run = await ws.dotplan(['worker', '--until-idle', '--poll', '0 0 * * * *']);
      expect(run.code).toBe(0);
      expect(run.stderr).toContain(`plan ${planId} asks: Ship release 1.2?`);
      expect(run.stderr).toContain(`dotplan answer ${planId} ask`);
      expect(received).toHaveLength(1);
      expect(received[0]).toMatchObject({ method: 'POST', type: 'application/json', planId, nodeId: 'ask', question: 'Ship release 1.2?' });
      expect(String(received[0]!.text)).toContain('Ship release 1.2?');
    } finally {
      server.close();
    }
  });
});

import type { Command } from 'commander';
import { Announcer } from '../../notify/announcer.js';
import { sendPolicy } from '../../notify/send.js';
import { assertNotifiersReady } from '../../notify/targets.js';
import type { GetContext } from './index.js';

/** `dotplan serve`: the HTTP API (and with `--worker` a worker) in this process, until SIGINT/SIGTERM. */
export function registerServeCommand(program: Command, getContext: GetContext): void {
  program
    .command('serve')
    .description('serve the HTTP API (OpenAPI at /openapi.json, live events over SSE) until stopped')
    .option('--host <address>', 'address to listen on (setting serve.host; default 127.0.0.1; another needs a token to exist)')
    .option('--port <n>', 'port to listen on, 0 for any free one (setting serve.port; default 8370)')
    .option('--worker', 'also run a worker in this process (one command runs everything on one machine)')
    .option('--no-ui', 'do not serve the web UI at / (the API only)')
    .action(async (opts: { worker?: boolean; ui: boolean }, command: Command) => {
      const ctx = await getContext(command);
      if (opts.worker) assertNotifiersReady(ctx.config.notify.targets);
      const dotplan = await ctx.dotplan({ create: true });
      const { listen } = await import('../../http/server.js');
      const server = await listen(
        dotplan,
        { host: ctx.config.serve.host, port: ctx.config.serve.port },
        { logError: (e) => ctx.io.err(`serve: ${String(e)}`), ...(opts.ui ? {} : { ui: false }) },
      );
      const worker = opts.worker ? dotplan.worker() : undefined;
      if (worker) {
        const announcer = new Announcer({
          targets: ctx.config.notify.targets,
          ...sendPolicy(ctx.config.notify),
          print: (line) => ctx.io.err(line),
          record: (events) => dotplan.events.append(events),
          ...(ctx.config.serve.publicUrl !== undefined ? { publicUrl: ctx.config.serve.publicUrl } : {}),
        });
        worker.on('worker:error', (error) => ctx.io.err(`worker: ${error instanceof Error ? error.message : String(error)}`));
        worker.on('notice', (notice) => void announcer.announce(notice).catch((error: unknown) => ctx.io.err(`notify: ${String(error)}`)));
        worker.start();
      }
      ctx.io.err(
        `dotplan serve on ${server.url} (${dotplan.backend})${worker ? `, worker ${worker.owner}` : ''}; ${opts.ui ? `web UI at ${server.url}/, ` : ''}API at ${server.url}/v1, document at ${server.url}/openapi.json, MCP at ${server.url}/mcp, A2A card at ${server.url}/.well-known/agent-card.json`,
      );
      await new Promise<void>((resolve) => {
        const unsubscribe = ctx.io.onStop((name) => {
          ctx.io.err(`${name}: stopping; open streams are ended (clients resume with Last-Event-ID)`);
          unsubscribe();
          resolve();
        });
      });
      await worker?.stop();
      await server.stop();
    });
}

import type { Command } from 'commander';
import { assertCron } from '../../worker/poller.js';
import { followEvents } from '../../worker/event-feed.js';
import { noticeText, postNotice, questionNotice } from '../../worker/notify.js';
import { ProgressPrinter } from '../../worker/progress.js';
import { Worker } from '../../worker/worker.js';
import { InvalidInputError } from '../../errors/errors.js';
import type { GetContext } from './index.js';

/** `dotplan worker`: run ready nodes of every running plan until stopped (or idle). */
export function registerWorkerCommand(program: Command, getContext: GetContext): void {
  program
    .command('worker')
    .description('run ready nodes: polls on a cron schedule and wakes at once when work appears')
    .option('--poll <cron>', 'node-cron schedule of the safety-net poll (default "*/30 * * * * *", every 30 s)')
    .option('--concurrency <n>', 'nodes run at once (default 4)')
    .option('--lease-ms <ms>', 'lease length for claimed nodes (default 30000)')
    .option('--until-idle', 'exit 0 once nothing is ready, running or due for retry (questions do not count)')
    .option('--json', 'print events as JSON lines')
    .option('--quiet', 'print no progress')
    .action(async (opts: { poll?: string; concurrency?: string; leaseMs?: string; untilIdle?: boolean; json?: boolean; quiet?: boolean }, command: Command) => {
      const ctx = await getContext(command);
      const poll = opts.poll ?? ctx.config.worker.poll;
      assertCron(poll);
      const concurrency = positiveInt('--concurrency', opts.concurrency) ?? ctx.config.worker.concurrency;
      const leaseMs = positiveInt('--lease-ms', opts.leaseMs) ?? ctx.config.worker.leaseMs;
      const [store, tools] = await Promise.all([ctx.store(), ctx.tools()]);
      const worker = new Worker({ store, tools, poll, concurrency, leaseMs, retryDefaults: ctx.config.retry, untilIdle: opts.untilIdle === true });
      worker.on('worker:error', (error) => ctx.io.err(`worker: ${error instanceof Error ? error.message : String(error)}`));
      worker.on('tool:log', (planId, nodeId, message) => !opts.quiet && ctx.io.err(`${planId} ${nodeId}: ${message}`));
      const webhook = ctx.config.notify.webhookUrl;
      worker.on('question:asked', (node) => {
        const notice = questionNotice(node);
        ctx.io.err(noticeText(notice));
        if (webhook) postNotice(webhook, notice).catch((error: Error) => ctx.io.err(`notify: ${error.message}`));
      });
      const printer = new ProgressPrinter((l) => (opts.json ? ctx.io.out(l) : ctx.io.err(l)), opts.json);
      const progress = opts.quiet
        ? undefined
        : followEvents(store, (after) => store.listAllEvents({ after, limit: 1000 }), (event) => printer.print(event), { after: await store.lastEventId(), pollMs: 500 });
      if (!opts.json && !opts.quiet) ctx.io.err(`worker ${worker.owner} on ${store.backend}: concurrency ${concurrency}, poll "${poll}"${opts.untilIdle ? ', until idle' : ''}`);

      let signalled = false;
      const onSignal = (name: string) => {
        if (signalled) process.exit(130); // a second Ctrl-C: leave now
        signalled = true;
        ctx.io.err(`${name}: stopping; running nodes are released back to ready`);
        void worker.stop();
      };
      process.once('SIGINT', () => onSignal('SIGINT')).once('SIGTERM', () => onSignal('SIGTERM'));
      worker.start();
      await Promise.race([worker.idle, new Promise<void>((resolve) => process.once('SIGINT', resolve).once('SIGTERM', resolve))]);
      await worker.stop();
      await progress?.stop();
    });
}

function positiveInt(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidInputError(`${flag} must be a whole number of at least 1, got "${value}"`);
  return n;
}

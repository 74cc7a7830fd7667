import type { Command } from 'commander';
import type { Dotplan } from '../../operations/dotplan.js';
import { noticeText, postNotice, type Notice } from '../../worker/notify.js';
import { ProgressPrinter } from '../../worker/progress.js';
import type { Worker } from '../../worker/worker.js';
import type { CliIO } from '../io.js';
import type { GetContext } from './index.js';

/** `dotplan worker`: run ready nodes of every running plan until stopped (or idle). */
export function registerWorkerCommand(program: Command, getContext: GetContext): void {
  program
    .command('worker')
    .description('run ready nodes: polls on a cron schedule and wakes at once when work appears')
    .option('--poll <cron>', 'node-cron schedule of the safety-net poll (setting worker.poll; default "*/30 * * * * *")')
    .option('--concurrency <n>', 'nodes run at once (setting worker.concurrency; default 4)')
    .option('--lease-ms <ms>', 'lease length of claimed nodes (setting worker.leaseMs; default 10000)')
    .option('--until-idle', 'exit 0 once nothing is ready, running or due for retry (questions do not count)')
    .option('--json', 'print events as JSON lines')
    .option('--quiet', 'print no progress')
    .action(async (opts: { untilIdle?: boolean; json?: boolean; quiet?: boolean }, command: Command) => {
      const ctx = await getContext(command);
      const dotplan = await ctx.dotplan();
      const worker = dotplan.worker({ untilIdle: opts.untilIdle === true });
      worker.on('worker:error', (error) => ctx.io.err(`worker: ${error instanceof Error ? error.message : String(error)}`));
      worker.on('tool:log', (planId, nodeId, message) => !opts.quiet && ctx.io.err(`${planId} ${nodeId}: ${message}`));
      worker.on('notice', (notice) => void announce(dotplan, notice, ctx.io));
      const printer = new ProgressPrinter((l) => (opts.json ? ctx.io.out(l) : ctx.io.err(l)), opts.json);
      const progress = opts.quiet ? undefined : dotplan.events.follow({ after: await dotplan.events.lastId() }, (event) => printer.print(event));
      const { concurrency, poll } = ctx.config.worker;
      if (!opts.json && !opts.quiet)
        ctx.io.err(`worker ${worker.owner} on ${dotplan.store.backend}: concurrency ${concurrency}, poll "${poll}"${opts.untilIdle ? ', until idle' : ''}`);
      await runUntilStopped(worker, ctx.io);
      await progress?.stop();
    });
}

/** Starts the worker; SIGINT/SIGTERM stop it gracefully (a second one leaves at once). */
async function runUntilStopped(worker: Worker, io: CliIO): Promise<void> {
  let signalled = false;
  const stopped = new Promise<void>((resolve) => {
    const onSignal = (name: string) => {
      if (signalled) process.exit(130);
      signalled = true;
      io.err(`${name}: stopping; running nodes are released back to ready`);
      resolve();
    };
    process.on('SIGINT', () => onSignal('SIGINT')).on('SIGTERM', () => onSignal('SIGTERM'));
  });
  worker.start();
  await Promise.race([worker.idle, stopped]);
  await worker.stop();
}

/** A notice (a question or a review, first or reminder) on the worker's console and, when configured, to the webhook; each is recorded as an event. */
async function announce(dotplan: Dotplan, notice: Notice, io: CliIO): Promise<void> {
  io.err(noticeText(notice));
  const channels: Array<{ channel: string; error?: string }> = [{ channel: 'console' }];
  const webhook = dotplan.config.notify.webhookUrl;
  if (webhook) {
    try {
      await postNotice(webhook, notice);
      channels.push({ channel: 'webhook' });
    } catch (error) {
      const message = (error as Error).message;
      io.err(`notify: ${message}`);
      channels.push({ channel: 'webhook', error: message });
    }
  }
  const what = `${notice.kind === 'review' ? 'review' : 'question'}${notice.reminder > 0 ? ` reminder ${notice.reminder}` : ''}`;
  await dotplan.events
    .append(
      channels.map((c) => ({
        planId: notice.planId,
        ...(notice.nodeId !== undefined ? { node: notice.nodeId } : {}),
        kind: 'notice' as const,
        driver: 'engine' as const,
        reason: c.error ? `${what} to the ${c.channel} failed: ${c.error}` : `${what} sent to the ${c.channel}`,
        detail: { channel: c.channel, ok: !c.error, reminder: notice.reminder },
      })),
    )
    .catch((error: Error) => io.err(`notify: the notice was sent but not recorded: ${error.message}`));
}

import type { Command } from 'commander';
import { llmSettings, missingEndpoint } from '../../llm/client.js';
import { Announcer } from '../../notify/announcer.js';
import { sendPolicy } from '../../notify/send.js';
import { assertNotifiersReady } from '../../notify/targets.js';
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
    .option('--llm-slots <n>', 'reflection plans served at once, one LLM call each (setting worker.llmSlots; default 1)')
    .option('--until-idle', 'exit 0 once nothing is ready, running or due for retry (questions do not count)')
    .option('--json', 'print events as JSON lines')
    .option('--quiet', 'print no progress')
    .action(async (opts: { untilIdle?: boolean; json?: boolean; quiet?: boolean }, command: Command) => {
      const ctx = await getContext(command);
      const { targets } = ctx.config.notify;
      assertNotifiersReady(targets); // before the database is opened: nothing is created for a worker that cannot start
      const dotplan = await ctx.dotplan({ create: true });
      const worker = dotplan.worker({ untilIdle: opts.untilIdle === true });
      worker.on('worker:error', (error) => ctx.io.err(`worker: ${message(error)}`));
      // One line per change of the database's reachability; meanwhile the worker retries with backoff.
      worker.on('database:lost', (error) => ctx.io.err(`worker: database unreachable: ${message(error)}, retrying`));
      worker.on('database:back', (downMs) => ctx.io.err(`worker: database back after ${(downMs / 1000).toFixed(1)} s`));
      const announcer = new Announcer({
        targets,
        ...sendPolicy(ctx.config.notify),
        print: (line) => ctx.io.err(line),
        record: (events) => dotplan.events.append(events),
        ...(ctx.config.serve.publicUrl !== undefined ? { publicUrl: ctx.config.serve.publicUrl } : {}),
      });
      worker.on('notice', (notice) => void announcer.announce(notice).catch((error: unknown) => ctx.io.err(`notify: ${message(error)}`)));
      const printer = new ProgressPrinter((l) => (opts.json ? ctx.io.out(l) : ctx.io.err(l)), opts.json);
      const progress = opts.quiet ? undefined : dotplan.events.follow({ after: await dotplan.events.lastId() }, (event) => printer.print(event));
      // The feed rides out an unreachable database; should it end on another error, the worker goes on without progress lines.
      progress?.ended.catch((error: unknown) => ctx.io.err(`worker: progress lines stopped: ${message(error)}`));
      const { concurrency, poll } = ctx.config.worker;
      if (!opts.json && !opts.quiet)
        ctx.io.err(`worker ${worker.owner} on ${dotplan.backend}: concurrency ${concurrency}, poll "${poll}"${opts.untilIdle ? ', until idle' : ''}`);
      // The same settings dotplan.worker() built (or did not build) its LLM side from.
      const noLlm = missingEndpoint(llmSettings(ctx.config));
      if (noLlm !== undefined && !opts.quiet) {
        ctx.io.err(`worker ${worker.owner} does not serve LLM work (reflection plans, verify="llm"): ${noLlm}; such work waits for a worker that has one`);
      }
      const how = await runUntilStopped(worker, ctx.io);
      // Notices in flight get a while to finish their retries: longer when idle than when told to stop.
      await announcer.drain(how === 'idle' ? 30_000 : 1_000);
      await progress?.stop().catch(() => undefined);
    });
}

/** An error's message; a connection error may carry only its code, or its causes (AggregateError). */
function message(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.message) return error.message;
  const first = (error as { errors?: unknown[] }).errors?.[0];
  const code = (error as { code?: unknown }).code;
  return first !== undefined ? message(first) : typeof code === 'string' ? code : error.name;
}

/**
 * Starts the worker; a stop request (SIGINT/SIGTERM) stops it gracefully (a second one leaves at once), and so does
 * the reader of its output going away (`dotplan worker --json | head`), quietly.
 */
async function runUntilStopped(worker: Worker, io: CliIO): Promise<'idle' | 'signal'> {
  let signalled = false;
  let unsubscribe = () => undefined as void;
  const stopped = new Promise<void>((resolve) => {
    unsubscribe = io.onStop((name) => {
      if (signalled) return io.exit(130);
      signalled = true;
      io.err(`${name}: stopping; running nodes are released back to ready`);
      resolve();
    });
    const closed = io.outputClosed;
    if (closed?.aborted) resolve();
    else closed?.addEventListener('abort', () => resolve(), { once: true });
  });
  worker.start();
  try {
    const how = await Promise.race([worker.idle.then(() => 'idle' as const), stopped.then(() => 'signal' as const)]);
    await worker.stop();
    return how;
  } finally {
    unsubscribe();
  }
}

import type { Command } from 'commander';
import { UsageError } from '../../errors/errors.js';
import { commaList } from '../../model/attributes.js';
import type { Notice } from '../../notify/notice.js';
import { sendAll, sendPolicy } from '../../notify/send.js';
import { assertNotifiersReady, notifiersFor } from '../../notify/targets.js';
import { formatTable } from '../io.js';
import type { GetContext } from './index.js';

/**
 * `dotplan notify test`: sends a sample question to the configured notifiers, with the same format,
 * signature and retries a worker uses, and says which accepted it — the way to check a DingTalk
 * secret or a Slack URL before a plan waits on it for a week.
 */
export function registerNotifyCommands(program: Command, getContext: GetContext): void {
  const notify = program.command('notify').description('the notifiers that tell people a question or review is waiting');
  notify
    .command('test')
    .description('send a sample question to each configured notifier (or those named) and report which accepted it; exit 1 if any did not')
    .option('--name <names>', 'only these notifiers (comma-separated names)')
    .option('--json', 'print the results as JSON')
    .action(async (opts: { name?: string; json?: boolean }, command: Command) => {
      const ctx = await getContext(command);
      const configured = ctx.config.notify.targets;
      const { targets, unknown } = notifiersFor(configured, opts.name !== undefined ? commaList(opts.name) : undefined);
      if (unknown.length > 0)
        throw new UsageError(
          `--name: no notifier named ${unknown.map((n) => `"${n}"`).join(', ')}; configured: ${configured.map((t) => t.name).join(', ') || 'none'}`,
        );
      if (targets.length === 0) {
        if (opts.json) ctx.io.out('[]');
        ctx.io.err('no notifier is configured: notices go to the worker\'s console only (see "Notifications" in the README)');
        return;
      }
      assertNotifiersReady(targets);
      const notice: Notice = {
        kind: 'question',
        planId: 'p_test',
        planTitle: 'dotplan notify test',
        nodeId: 'check',
        question: 'This is a test notice from dotplan: did it arrive?',
        options: ['yes', 'no'],
        reminder: 0,
        since: new Date(),
        test: true,
      };
      const results = await sendAll(targets, notice, sendPolicy(ctx.config.notify));
      if (opts.json) ctx.io.out(JSON.stringify(results));
      else
        ctx.io.out(
          formatTable([
            ['NOTIFIER', 'TYPE', 'RESULT', 'ATTEMPTS'],
            ...results.map((r) => [r.name, r.type, r.ok ? 'delivered' : `failed: ${r.error}`, String(r.attempts)]),
          ]),
        );
      if (results.some((r) => !r.ok)) ctx.exitCode = 1;
    });
}

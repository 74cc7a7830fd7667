import type { Command } from 'commander';
import { UsageError } from '../../errors/errors.js';
import { formatDiff } from '../../revisions/format-diff.js';
import { formatTable, printJson, readInput } from '../io.js';
import { printReport } from './apply-report.js';
import type { GetContext } from './index.js';

/** `plan apply`, `plan revisions` and `plan diff`: changing a plan by hand, its history of revisions, what changed between two. */
export function registerPlanHistoryCommands(plan: Command, getContext: GetContext): void {
  plan
    .command('apply')
    .description('apply an edited DOT of a running plan (from plan show --format dot) as a new revision, whole or not at all')
    .argument('<id>', 'plan id')
    .argument('<file>', 'the edited DOT file, or - for standard input')
    .option('--dry-run', 'print the changes and the verdict; change nothing')
    .option('--json', 'print {"applied","revision","base","changes","conflicts","diagnostics"}')
    .option('--reason <text>', 'the update log of the new revision')
    .option('--by <name>', 'who (default: the OS user)')
    .action(async (id: string, file: string, opts: { dryRun?: boolean; json?: boolean; reason?: string; by?: string }, command: Command) => {
      const ctx = await getContext(command);
      const source = file === '-' ? '<stdin>' : file;
      const report = await (
        await ctx.dotplan()
      ).apply(id, await readInput(ctx.io, file), {
        source,
        ...(opts.dryRun ? { dryRun: true } : {}),
        ...(opts.reason ? { reason: opts.reason } : {}),
        ...(opts.by ? { by: opts.by } : {}),
      });
      printReport(ctx, id, report, source, opts.json === true);
    });

  plan
    .command('revert')
    .description("make revision N's structure the plan's again, as a new revision, under the same rights as a hand edit (it cannot un-run a node)")
    .argument('<id>', 'plan id')
    .argument('<n>', 'the revision to go back to')
    .option('--dry-run', 'print the changes and the verdict; change nothing')
    .option('--json', 'print {"applied","revision","base","changes","conflicts","diagnostics"}')
    .option('--by <name>', 'who (default: the OS user)')
    .action(async (id: string, n: string, opts: { dryRun?: boolean; json?: boolean; by?: string }, command: Command) => {
      const ctx = await getContext(command);
      const report = await (
        await ctx.dotplan()
      ).revert(id, revisionNumber(n), { ...(opts.dryRun ? { dryRun: true } : {}), ...(opts.by ? { by: opts.by } : {}) });
      printReport(ctx, id, report, `revision ${n}`, opts.json === true);
    });

  plan
    .command('revisions')
    .description("list a plan's revisions: number, parent, author, who made it, how many changes, time, update log")
    .argument('<id>', 'plan id')
    .option('--json', 'print JSON')
    .action(async (id: string, opts: { json?: boolean }, command: Command) => {
      const ctx = await getContext(command);
      const revisions = await (await ctx.reads()).revisions(id);
      if (opts.json) {
        printJson(
          ctx.io,
          revisions.map((r) => ({
            number: r.number,
            parent: r.parent ?? null,
            author: r.author,
            driver: r.driver ?? null,
            by: r.by ?? null,
            changes: r.changes ?? null,
            at: r.createdAt.toISOString(),
            updateLog: r.updateLog ?? null,
          })),
        );
        return;
      }
      ctx.io.out(
        formatTable([
          ['REVISION', 'PARENT', 'AUTHOR', 'WHO', 'CHANGES', 'AT', 'UPDATE LOG'],
          ...revisions.map((r) => [
            String(r.number),
            r.parent === undefined ? '-' : String(r.parent),
            r.author,
            r.driver ? `${r.driver}${r.by ? `:${r.by}` : ''}` : '-',
            r.changes === undefined ? '-' : String(r.changes),
            r.createdAt.toISOString(),
            r.updateLog ?? '',
          ]),
        ]),
      );
    });

  plan
    .command('diff')
    .description("what changed in a plan's structure between two revisions: nodes, edges and attributes added, removed, changed")
    .argument('<id>', 'plan id')
    .argument('<r1>', 'the earlier revision')
    .argument('[r2]', 'the later revision (default: the latest)')
    .option('--json', 'print {"from","to","changes":[{"kind","node"?,"edge"?,"attribute"?,"from"?,"to"?}]}')
    .action(async (id: string, r1: string, r2: string | undefined, opts: { json?: boolean }, command: Command) => {
      const ctx = await getContext(command);
      const diff = await (await ctx.reads()).diff(id, revisionNumber(r1), r2 === undefined ? undefined : revisionNumber(r2));
      if (opts.json) printJson(ctx.io, diff);
      else ctx.io.out(`revision ${diff.from} → ${diff.to}\n${formatDiff(diff.changes, { color: ctx.io.stdoutIsTTY })}`);
    });
}

function revisionNumber(text: string): number {
  if (!/^[1-9]\d*$/.test(text)) throw new UsageError(`revision "${text}": must be a revision number (1, 2, ...; see dotplan plan revisions <id>)`);
  return Number(text);
}

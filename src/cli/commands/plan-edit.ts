import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { Command } from 'commander';
import type { ApplyReport } from '../../operations/decide-revision.js';
import { withoutGeneratedLines, withProblems } from '../../revisions/edit-file.js';
import { printReport, problemLines } from './apply-report.js';
import type { CliIO } from '../io.js';
import type { GetContext } from './index.js';

/**
 * `plan edit <id>`, the `kubectl edit` loop: the plan's DOT in a temporary file, opened in
 * $VISUAL / $EDITOR (default vi), applied on save; a refused edit is reopened with its problems as
 * `//` comments at the top, until it applies or is saved without a change. When it gives up, the
 * file stays and its path is printed, so the work is not lost.
 */
export function registerPlanEditCommand(plan: Command, getContext: GetContext): void {
  plan
    .command('edit')
    .description('edit a running plan in $VISUAL / $EDITOR (default vi); applied on save as a new revision, or reopened with the problems')
    .argument('<id>', 'plan id')
    .option('--reason <text>', 'the update log of the new revision')
    .option('--by <name>', 'who (default: the OS user)')
    .action(async (id: string, opts: { reason?: string; by?: string }, command: Command) => {
      const ctx = await getContext(command);
      const dotplan = await ctx.dotplan();
      const editor = ctx.io.env.VISUAL || ctx.io.env.EDITOR || 'vi';
      const shown = await dotplan.show(id);
      const dir = await mkdtemp(join(tmpdir(), 'dotplan-edit-'));
      const file = join(dir, `${id}.dot`);
      const source = basename(file);
      await writeFile(file, shown);
      let opened = shown;
      let refused = false;
      const giveUp = (why: string) => {
        ctx.io.err(`${why}; nothing applied. Your edit is kept in ${file}\n(apply it later with: dotplan plan apply ${id} ${file})`);
        ctx.exitCode = 1;
      };
      for (;;) {
        const code = await runEditor(editor, file, ctx.io);
        if (code !== 0) return giveUp(`the editor (${editor}) exited with ${code}`);
        const saved = withoutGeneratedLines(await readFile(file, 'utf8'));
        if (saved === withoutGeneratedLines(opened)) {
          if (refused) return giveUp('saved without a change after a refused edit');
          ctx.io.err('edit cancelled: saved without a change');
          await rm(dir, { recursive: true, force: true });
          return;
        }
        const report = await dotplan.apply(id, saved, { source, ...(opts.reason ? { reason: opts.reason } : {}), ...(opts.by ? { by: opts.by } : {}) });
        const problems = problemLines(shifted(report, problemLines(report, source).length + 1), source);
        if (problems.length === 0) {
          printReport(ctx, id, report, source, false);
          await rm(dir, { recursive: true, force: true });
          return;
        }
        for (const line of problems) ctx.io.err(line);
        ctx.io.err(`${source}: not applied; reopening the file with the problems at the top`);
        refused = true;
        opened = withProblems(saved, problems);
        await writeFile(file, opened);
      }
    });
}

/** The report with its line numbers as they will be once `lines` comment lines are put above the text. */
function shifted(report: ApplyReport, lines: number): ApplyReport {
  const shift = <T extends { line?: number }>(item: T): T => (item.line === undefined ? item : { ...item, line: item.line + lines });
  return { ...report, diagnostics: report.diagnostics.map(shift), conflicts: report.conflicts.map(shift) };
}

/** Runs the editor (a command line, as git and kubectl take it) on the file, on the terminal; resolves to its exit code. */
function runEditor(editor: string, file: string, io: Pick<CliIO, 'cwd' | 'env'>): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', `${editor} "$1"`, 'sh', file], { stdio: 'inherit', cwd: io.cwd, env: io.env });
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}

import { formatDiagnostic } from '../../model/diagnostics.js';
import type { ApplyReport } from '../../operations/decide-revision.js';
import { formatDiff } from '../../revisions/format-diff.js';
import type { CliContext } from '../context.js';
import { printJson } from '../io.js';
import { plural } from '../../model/plural.js';

/** Every problem of a refused edit, one line each: where (file:line), what, and the fix. */
export function problemLines(report: ApplyReport, source: string): string[] {
  return [
    ...report.diagnostics.map((d) => formatDiagnostic(d, source)),
    ...report.conflicts.map((p) => {
      const place = p.line !== undefined ? `${source}:${p.line}` : source;
      return `${place}: refused ${p.code}: ${p.message}. Fix: ${p.fix}`;
    }),
  ];
}

/** What the edit was merged against, in words. */
export function baseText(report: ApplyReport): string {
  if (!report.base) return 'taken against the latest revision';
  const event = report.base.asOfEvent !== undefined ? `, as of event ${report.base.asOfEvent}` : '';
  return `made from revision ${report.base.revision}${event}`;
}

/** `plan apply` / `plan revert`: the summary (or the JSON report); exit 1 when refused. */
export function printReport(ctx: CliContext, id: string, report: ApplyReport, source: string, json: boolean): void {
  const problems = problemLines(report, source);
  if (problems.length > 0) ctx.exitCode = 1;
  if (json) {
    printJson(ctx.io, report);
    return;
  }
  for (const line of problems) ctx.io.err(line);
  if (problems.length > 0) {
    ctx.io.err(`${source}: not applied (${plural(problems.length, 'problem')}); the plan is unchanged`);
    return;
  }
  if (report.changes.length === 0) {
    ctx.io.out(`no change (${baseText(report)})`);
    return;
  }
  const count = plural(report.changes.length, 'change');
  const diff = formatDiff(report.changes, { color: ctx.io.stdoutIsTTY });
  if (report.applied) ctx.io.out(`plan ${id}: revision ${report.revision} applied (${count}, ${baseText(report)})\n${diff}`);
  else ctx.io.out(`dry run: would apply ${count} (${baseText(report)}); nothing changed\n${diff}`);
}

import type { Command } from 'commander';
import { Option } from 'commander';
import { collectReport } from '../../report/collect.js';
import { reportHtml } from '../../report/html.js';
import { reportMarkdown } from '../../report/markdown.js';
import { writeOutput } from '../io.js';
import type { GetContext } from './index.js';

/**
 * `plan report`: the run report of seed 003 — what a plan did, who reviewed it, who answered its
 * questions, how it changed and what the LLM cost — as Markdown, one self-contained HTML page, or
 * JSON, for a person who was not there.
 */
export function registerPlanReportCommand(plan: Command, getContext: GetContext): void {
  plan
    .command('report')
    .description('a run report for a person who was not there: summary, review, nodes, answers, revisions, LLM calls, timeline')
    .argument('<id>', 'plan id')
    .addOption(
      new Option('--format <format>', 'md (GitHub-flavoured Markdown), html (one self-contained page with the plan drawn) or json')
        .choices(['md', 'html', 'json'])
        .default('md'),
    )
    .option('-o, --output <file>', 'write to a file instead of standard output')
    .action(async (id: string, opts: { format: 'md' | 'html' | 'json'; output?: string }, command: Command) => {
      const ctx = await getContext(command);
      const dotplan = await ctx.dotplan();
      const report = await collectReport(dotplan, id);
      const text =
        opts.format === 'json'
          ? `${JSON.stringify(report, null, 2)}\n`
          : opts.format === 'html'
            ? await reportHtml(report, await dotplan.liveGraph(id))
            : reportMarkdown(report);
      if (opts.output) await writeOutput(opts.output, text);
      else ctx.io.out(text);
    });
}

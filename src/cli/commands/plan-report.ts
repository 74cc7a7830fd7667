import type { Command } from 'commander';
import { Option } from 'commander';
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
      const text = await (await ctx.dotplan()).report(id, { format: opts.format });
      if (opts.output) await writeOutput(ctx.io, opts.output, text);
      else ctx.io.out(text);
    });
}

import type { Command } from 'commander';
import { Option } from 'commander';
import { UsageError } from '../../errors/errors.js';
import { renderText } from '../../operations/views.js';
import { drawingNote } from '../../render/index.js';
import { readInput, writeOutput } from '../io.js';
import type { GetContext } from './index.js';

export function registerRenderCommand(program: Command, getContext: GetContext): void {
  program
    .command('render')
    .description(
      'draw a plan as SVG (WebAssembly Graphviz, nodes coloured by status) or print it as normalised DOT: a file, or a stored plan with its live status',
    )
    .argument('[file]', 'DOT file, or - for standard input')
    .option('--plan <id>', 'draw a stored plan as it stands (live status, outputs, answers) instead of a file')
    .addOption(new Option('--format <format>', 'output format').choices(['svg', 'dot']).default('svg'))
    .option('-o, --output <file>', 'write to a file instead of standard output')
    .action(async (file: string | undefined, opts: { plan?: string; format: 'svg' | 'dot'; output?: string }, command: Command) => {
      if (file === undefined && opts.plan === undefined) throw new UsageError('render needs a DOT file (or - for standard input) or --plan <id>');
      if (file !== undefined && opts.plan !== undefined) throw new UsageError('give a DOT file or --plan <id>, not both');
      const ctx = await getContext(command);
      // A file is drawn as Dotplan.render draws it, without opening a database: it needs none.
      const text =
        opts.plan !== undefined
          ? await (await ctx.dotplan()).render({ planId: opts.plan }, { format: opts.format })
          : await renderText({ tools: await ctx.tools(), config: ctx.config }, await readInput(ctx.io, file!), file === '-' ? '<stdin>' : file!, opts.format);
      // A plan too large to draw, or one Graphviz failed on: say what was drawn instead.
      const note = opts.format === 'svg' ? drawingNote(text) : undefined;
      if (note !== undefined) ctx.io.err(`note: ${note}`);
      if (opts.output) await writeOutput(ctx.io, opts.output, text);
      else ctx.io.out(text);
    });
}

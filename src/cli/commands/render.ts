import type { Command } from 'commander';
import { Option } from 'commander';
import { dotLimits } from '../../config/dot-limits.js';
import { readDot, writeDot } from '../../dot/index.js';
import { UsageError } from '../../errors/errors.js';
import { renderSvg } from '../../render/index.js';
import { validateGraph } from '../../validate/index.js';
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
      if ((file === undefined) === (opts.plan === undefined)) throw new UsageError('give a DOT file (or -) or --plan <id>, not both');
      const ctx = await getContext(command);
      let graph;
      if (opts.plan !== undefined) {
        graph = await (await ctx.dotplan()).liveGraph(opts.plan);
      } else {
        const read = readDot(await readInput(file!), { source: file === '-' ? '<stdin>' : file!, ...dotLimits(ctx.config) });
        // Statuses are shown by their canonical names (the seed's Chinese aliases are accepted on input).
        graph = validateGraph(read, { tools: await ctx.tools() }).graph ?? read;
      }
      const text = opts.format === 'dot' ? writeDot(graph) : await renderSvg(graph);
      if (opts.output) await writeOutput(opts.output, text);
      else ctx.io.out(text);
    });
}

import type { Command } from 'commander';
import { Option } from 'commander';
import { readDot, writeDot } from '../../dot/index.js';
import { renderSvg } from '../../render/index.js';
import { validateGraph } from '../../validate/index.js';
import { readInput, writeOutput } from '../io.js';
import type { GetContext } from './index.js';

export function registerRenderCommand(program: Command, getContext: GetContext): void {
  program
    .command('render')
    .description('draw a plan as SVG (WebAssembly Graphviz, nodes coloured by status) or print it as normalised DOT')
    .argument('<file>', 'DOT file, or - for standard input')
    .addOption(new Option('--format <format>', 'output format').choices(['svg', 'dot']).default('svg'))
    .option('-o, --output <file>', 'write to a file instead of standard output')
    .action(async (file: string, opts: { format: 'svg' | 'dot'; output?: string }, command: Command) => {
      const ctx = await getContext(command);
      const read = readDot(await readInput(file), { source: file === '-' ? '<stdin>' : file });
      // Statuses are shown by their canonical names (the seed's Chinese aliases are accepted on input).
      const graph = validateGraph(read, { tools: await ctx.tools() }).graph ?? read;
      const text = opts.format === 'dot' ? writeDot(graph) : await renderSvg(graph);
      if (opts.output) await writeOutput(opts.output, text);
      else ctx.io.out(text);
    });
}

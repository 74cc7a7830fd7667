import type { Command } from 'commander';
import { formatDiagnostic } from '../../model/diagnostics.js';
import { validatePlan } from '../../operations/views.js';
import { printJson, readInput } from '../io.js';
import type { GetContext } from './index.js';

export function registerValidateCommand(program: Command, getContext: GetContext): void {
  program
    .command('validate')
    .description('check a plan or template (exit 0 when valid, warnings allowed; 1 when not)')
    .argument('<file>', 'DOT file, or - for standard input')
    .option('--json', 'print {"valid", "diagnostics": [...]}')
    .action(async (file: string, opts: { json?: boolean }, command: Command) => {
      const ctx = await getContext(command);
      const source = file === '-' ? '<stdin>' : file;
      // Dotplan.validate's use case, without opening a database: checking a file needs none.
      const result = validatePlan({ tools: await ctx.tools(), config: ctx.config }, await readInput(ctx.io, file), source);
      if (!result.valid) ctx.exitCode = 1;
      if (opts.json) {
        printJson(ctx.io, { valid: result.valid, diagnostics: result.diagnostics });
        return;
      }
      for (const d of result.diagnostics) ctx.io.err(formatDiagnostic(d, source));
      const errors = result.diagnostics.filter((d) => d.severity === 'error').length;
      const warnings = result.diagnostics.length - errors;
      const counts = `${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}`;
      if (result.valid) ctx.io.out(`${source}: valid (${result.graph?.nodes.length ?? 0} nodes, ${counts})`);
      else ctx.io.err(`${source}: invalid (${counts})`);
    });
}

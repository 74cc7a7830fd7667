import type { Command } from 'commander';
import { readFile } from 'node:fs/promises';
import { defaultTemplateDirs, listTemplates, loadTemplate } from '../../templates/index.js';
import { formatTable, printJson } from '../io.js';
import type { GetContext } from './index.js';

export function registerTemplateCommands(program: Command, getContext: GetContext): void {
  const template = program.command('template').description('list and show plan templates');
  template
    .command('list')
    .description('list the shipped templates and those in ./templates')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }, command: Command) => {
      const ctx = await getContext(command);
      const templates = listTemplates(defaultTemplateDirs(ctx.io.cwd));
      if (opts.json) {
        printJson(ctx.io, templates);
        return;
      }
      const rows = templates.map((t) => [t.name, t.params.map((p) => (p.default !== undefined ? `${p.name}=${p.default}` : p.name)).join(',') || '-', t.title]);
      ctx.io.out(formatTable([['NAME', 'PARAMS', 'TITLE'], ...rows]));
    });
  template
    .command('show')
    .description("print a template's DOT source")
    .argument('<name>', 'a template name (see template list), or the path of a .dot file (with a "/", or an existing file ending in .dot)')
    .action(async (name: string, _opts: unknown, command: Command) => {
      const ctx = await getContext(command);
      const found = loadTemplate(name, defaultTemplateDirs(ctx.io.cwd), ctx.io.cwd);
      ctx.io.out(await readFile(found.path, 'utf8'));
    });
}

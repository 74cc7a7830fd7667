import { Option, type Command } from 'commander';
import { TOKEN_SCOPES, type TokenScope } from '../../model/token-scopes.js';
import { commandLine } from '../../model/command-line.js';
import { withFlags, type FlagOf } from '../flags.js';
import { formatTable, printJson } from '../io.js';
import type { GetContext } from './index.js';

/** `token create`: the flag of each argument of `tokens.create`. */
const createFlags: FlagOf = (argument) => ({ name: '--name', scope: '--scope', by: '--by' })[argument];

/**
 * `dotplan token create | list | revoke`: the API tokens of `dotplan serve`. A token's secret is
 * printed once, by `create` (alone on standard output, so that `$(dotplan token create …)` takes
 * it), and never again: only its hash is stored. `list` shows who made each live token and when it
 * was last used, never a secret.
 */
export function registerTokenCommands(program: Command, getContext: GetContext): void {
  const token = program.command('token').description('the API tokens of `dotplan serve`: make, list and revoke them');
  token
    .command('create')
    .description('make an API token and print its secret, once: it cannot be shown again')
    .requiredOption('--name <name>', 'its name: 1 to 64 letters, digits, ".", "_" or "-"')
    .addOption(
      new Option('--scope <scope>', 'what it may do: read, answer questions and reviews, operate plans, admin; each includes the ones before it')
        .choices(TOKEN_SCOPES)
        .makeOptionMandatory(),
    )
    .option('--by <name>', 'who makes it (default: the OS user)')
    .option('--json', 'print {name, scope, secret} as JSON')
    .action(async (opts: { name: string; scope: TokenScope; by?: string; json?: boolean }, command: Command) => {
      const ctx = await getContext(command);
      const dotplan = await ctx.dotplan({ create: true });
      const { secret, token: made } = await withFlags(createFlags, () =>
        dotplan.tokens.create({ name: opts.name, scope: opts.scope, ...(opts.by !== undefined ? { by: opts.by } : {}) }),
      );
      if (opts.json) {
        printJson(ctx.io, { name: made.name, scope: made.scope, secret });
        return;
      }
      ctx.io.out(secret);
      ctx.io.err(`token "${made.name}" (${made.scope}) made. Keep its secret now: it cannot be shown again`);
    });
  token
    .command('list')
    .description('list the live API tokens: name, scope, who made them, when, when last used (never their secrets)')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }, command: Command) => {
      const ctx = await getContext(command);
      const tokens = await (await ctx.reads()).tokens.list();
      if (opts.json) {
        printJson(ctx.io, tokens);
        return;
      }
      if (tokens.length === 0) {
        ctx.io.err(`no API tokens: make one with ${commandLine('dotplan', 'token', 'create', '--name', '<name>', '--scope', 'read')}`);
        return;
      }
      const rows = tokens.map((t) => [t.name, t.scope, t.createdBy, t.createdAt.toISOString(), t.lastUsedAt?.toISOString() ?? 'never']);
      ctx.io.out(formatTable([['NAME', 'SCOPE', 'CREATED BY', 'CREATED', 'LAST USED'], ...rows]));
    });
  token
    .command('revoke')
    .description('revoke an API token: it is refused from now on (its name may be given again)')
    .argument('<name>', 'the token name')
    .action(async (name: string, _opts: unknown, command: Command) => {
      const ctx = await getContext(command);
      const revoked = await (await ctx.dotplan()).tokens.revoke(name);
      ctx.io.out(`token "${revoked.name}" (${revoked.scope}) revoked`);
    });
}

import { Command, CommanderError, Option } from 'commander';
import { isUserError, UsageError } from '../errors/errors.js';
import { ValidationError, formatDiagnostic } from '../model/diagnostics.js';
import type { CliContext, GlobalFlags } from './context.js';
import { processIO, type CliIO } from './io.js';
import { registerCommands } from './commands/index.js';

/**
 * The `dotplan` command line. Exit codes: 0 success, 1 user or validation error (one-line message
 * on stderr, no stack trace unless --debug), 2 usage error.
 */
export async function main(argv: string[], io: CliIO = processIO): Promise<number> {
  const program = new Command('dotplan')
    .description('Run execution plans written as Graphviz DOT digraphs.')
    .version((await import('../config/package-version.js')).packageVersion(), '-V, --version')
    .addOption(new Option('--db <url>', 'database URL (overrides DATABASE_URL; default: SQLite .dotplan/dotplan.db)'))
    .addOption(new Option('--tools <module>', 'a module whose default export is an array of tools (repeatable; also DOTPLAN_TOOLS)').argParser(collect))
    .addOption(new Option('--http-allow <hosts>', 'hosts the http tool may call, comma-separated (also DOTPLAN_HTTP_ALLOW)'))
    .addOption(new Option('--config <file>', 'configuration file (default: dotplan.config.json if present; also DOTPLAN_CONFIG)'))
    .addOption(new Option('--debug', 'print stack traces for errors'))
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) });

  let context: CliContext | undefined;
  const getContext = async (command: Command) => {
    context ??= await (await import('./context.js')).createContext(command.optsWithGlobals<GlobalFlags>(), io);
    return context;
  };
  await registerCommands(program, getContext, commandNamed(program, argv));
  program.commands.forEach((c) => propagateOverrides(c, io));

  try {
    await program.parseAsync(argv, { from: 'user' });
    return context?.exitCode ?? 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version succeed; help shown because the command line was incomplete (no command) is a usage error.
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help')
        return error.exitCode === 0 ? 0 : 2;
      return 2;
    }
    return reportError(error, io, argv.includes('--debug'));
  } finally {
    await context?.close();
  }
}

function reportError(error: unknown, io: CliIO, debug: boolean): number {
  if (error instanceof UsageError) {
    io.err(`error: ${error.message}\n(run with --help for usage)`);
    return 2;
  }
  if (error instanceof ValidationError) {
    for (const d of error.diagnostics) io.err(formatDiagnostic(d, error.source));
  } else if (isUserError(error)) {
    io.err(`error: ${error.message} [${error.code}]`);
  } else {
    const message = error instanceof Error ? error.message : String(error);
    io.err(`error: ${message} [INTERNAL]${debug ? '' : ' (run with --debug for details)'}`);
  }
  if (debug && error instanceof Error && error.stack) io.err(error.stack);
  return 1;
}

function propagateOverrides(command: Command, io: CliIO): void {
  command.exitOverride().configureOutput({ writeOut: (s) => io.out(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) });
  command.showHelpAfterError('(run with --help for usage)');
  command.commands.forEach((c) => propagateOverrides(c, io));
}

/**
 * The command the line names: its first word that is neither an option nor a global option's
 * value; `'--version'` for a line that only asks for the version; undefined when no command is named.
 */
function commandNamed(program: Command, argv: readonly string[]): string | undefined {
  const takesValue = new Set(program.options.filter((o) => o.required || o.optional).flatMap((o) => [o.long, o.short].filter((f) => f !== undefined)));
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--') return undefined;
    if (!word.startsWith('-')) return word;
    if (takesValue.has(word)) i++;
  }
  return argv.includes('--version') || argv.includes('-V') ? '--version' : undefined;
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

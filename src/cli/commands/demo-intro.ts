import { relative, sep } from 'node:path';
import { redact, resolveDatabase } from '../../store/connect.js';
import type { CliContext } from '../context.js';

/**
 * What a demo says before it does anything slow (opening, creating and migrating the database):
 * what it is about to do and where it keeps the plan, so the first line comes at once.
 */
export function announceDemo(ctx: CliContext, what: string, own?: string): void {
  const target = resolveDatabase(ctx.config.databaseUrl, ctx.io.cwd);
  const where =
    own !== undefined
      ? `SQLite ${displayPath(ctx.io.cwd, own)} (the demo's own, made afresh: its scripted model must answer no other plan)`
      : target.kind === 'sqlite'
        ? `SQLite ${displayPath(ctx.io.cwd, target.file)} (made, with its schema, on first use)`
        : `PostgreSQL ${redact(target.url)} (its schema applied on first use)`;
  ctx.io.err(`${what}\n  opening the database: ${where}`);
}

/** `file` relative to `cwd` when it lies below it, else as it is. */
export function displayPath(cwd: string, file: string): string {
  const inside = relative(cwd, file);
  return inside !== '' && !inside.startsWith('..') && !inside.startsWith(sep) ? inside : file;
}

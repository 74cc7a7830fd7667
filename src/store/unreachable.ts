/**
 * A database that cannot be reached for now — the server stopped or restarting, the network cut, a
 * connection dropped — as opposed to a statement that failed. Work that meets such an error is not
 * lost and not failed: it is tried again, after `reconnectDelay`, until the database is back.
 */

/** Node's socket errors when a server does not answer or went away. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENETDOWN', 'EAI_AGAIN']);
/**
 * PostgreSQL: class 08 (connection exception) and the server shutting down or starting up
 * (`57P01` admin_shutdown, `57P02` crash_shutdown, `57P03` cannot_connect_now); Prisma: cannot reach
 * the server (`P1001`), timed out (`P1002`), closed the connection (`P1017`).
 */
const SERVER_CODES = /^(08[0-9A-Z]{3}|57P0[123]|P1001|P1002|P1017)$/;
/** Prisma's driver-adapter error kinds for the same (its client reports them as P1001, P1017). */
const ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout']);
/** What node-postgres says, without a code, when a connection ends under it. */
const MESSAGES = /Connection terminated|connection error and is not queryable|Client was closed and is not queryable|timeout exceeded when trying to connect/i;

/** Whether the error (or one it wraps) says the database cannot be reached right now. */
export function isDatabaseUnreachable(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 5) return false;
  const { code, originalCode, kind, message, cause, errors } = error as Record<string, unknown>;
  for (const value of [code, originalCode]) {
    if (typeof value === 'string' && (SOCKET_CODES.has(value) || SERVER_CODES.test(value))) return true;
  }
  if (typeof kind === 'string' && ADAPTER_KINDS.has(kind)) return true;
  if (typeof message === 'string' && MESSAGES.test(message)) return true;
  if (Array.isArray(errors) && errors.some((e) => isDatabaseUnreachable(e, depth + 1))) return true;
  return isDatabaseUnreachable(cause, depth + 1);
}

/** First wait before trying an unreachable database again; it doubles with each failure... */
export const RECONNECT_FIRST_MS = 100;
/** ...up to this, so that a database back is noticed within about this long. */
export const RECONNECT_MAX_MS = 2_000;

/** How long to wait after the `failures`-th failure in a row (1, 2, …): exponential, capped, with ±25% jitter. */
export function reconnectDelay(failures: number, random: () => number = Math.random): number {
  const base = Math.min(RECONNECT_MAX_MS, RECONNECT_FIRST_MS * 2 ** Math.max(0, Math.min(failures - 1, 20)));
  return Math.round(base * (0.75 + random() * 0.5));
}

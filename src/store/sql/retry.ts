/**
 * Database errors worth another try, with backoff (as graphile-worker's RETRYABLE_ERROR_CODES):
 * SQLite busy/locked, PostgreSQL serialization failure and deadlock, Prisma's write conflict.
 */
const RETRYABLE_CODES = new Set(['SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_BUSY_RECOVERY', 'SQLITE_LOCKED', '40001', '40P01', 'P2034']);

export function isRetryableDbError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && RETRYABLE_CODES.has(code);
}

export async function withRetry<T>(fn: () => Promise<T>, attempts = 6): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (attempt >= attempts || !isRetryableDbError(error)) throw error;
      const delay = Math.min(1000, 5 * 2 ** attempt) * (0.5 + Math.random());
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

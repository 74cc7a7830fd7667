/**
 * Waiting for what a test expects — a row, an event, a request received — with a generous deadline,
 * instead of sleeping for a fixed time and hoping it was long enough.
 */
import { inspect } from 'node:util';

/** Polls `probe` until it returns something other than undefined/false; rejects after `timeoutMs`. */
export async function waitUntil<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  what: string,
  timeoutMs = 20_000,
  intervalMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? ` (last error: ${inspect(lastError)})` : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

import { z } from 'zod';
import { ToolError } from '../../errors/errors.js';
import type { Tool } from '../types.js';

/** setTimeout's limit (~24.8 days); longer waits would fire at once. */
const ms = z
  .number()
  .nonnegative()
  .max(2 ** 31 - 1);
const input = z.union([ms, z.object({ ms })]);

/** `sleep`: waits `{ms}` (or a bare number of) milliseconds; stops at once when the signal aborts. */
export const sleepTool: Tool<z.infer<typeof input>, { slept: number }> = {
  code: 'sleep',
  description: 'Waits the given number of milliseconds: {"ms": 500} or 500. Output: {"slept": ms}.',
  inputSchema: input,
  run: (value, ctx) => {
    const ms = typeof value === 'number' ? value : value.ms;
    return new Promise((resolve, reject) => {
      const aborted = () => new ToolError(`sleep aborted after less than ${ms} ms`, { cause: ctx.signal.reason });
      if (ctx.signal.aborted) return reject(aborted());
      const onAbort = () => {
        clearTimeout(timer);
        reject(aborted());
      };
      const timer = setTimeout(() => {
        ctx.signal.removeEventListener('abort', onAbort);
        resolve({ slept: ms });
      }, ms);
      ctx.signal.addEventListener('abort', onAbort, { once: true });
    });
  },
};

import { z } from 'zod';
import type { Tool } from '../types.js';

/** `echo`: returns its input unchanged (handy for wiring and tests). */
export const echoTool: Tool<unknown, unknown> = {
  code: 'echo',
  description: 'Returns its input unchanged.',
  inputSchema: z.unknown(),
  run: (input) => input,
};

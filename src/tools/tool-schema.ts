import { z } from 'zod';

/** What a tool's `code` may be: a name that DOT attributes, references and messages can carry as it is (`mcp:files/read_file`). */
export const TOOL_CODE = /^[A-Za-z_][\w.:/-]*$/;

/** What {@link TOOL_CODE} allows, worded for a message about a code that breaks it. */
export const toolCodeRule = (input: unknown): string =>
  `must be a name of letters, digits, _ . : / - starting with a letter or _ (got ${JSON.stringify(input)})`;

/**
 * The shape of a tool, checked where tools come in: a tools module (`--tools`, the config file's
 * `tools`) and `openDotplan({ tools })`. Each problem is worded for the field it is about.
 */
export const toolSchema = z.looseObject({
  code: z.string().regex(TOOL_CODE, { error: (issue) => toolCodeRule(issue.input) }),
  run: z.custom<(...args: never[]) => unknown>((value) => typeof value === 'function', {
    error: (issue) => `must be a function (input, ctx) => result (got ${issue.input === null ? 'null' : typeof issue.input})`,
  }),
  description: z.string().optional(),
  inputSchema: z
    .custom<{ safeParse: unknown }>(
      (value) => value !== null && typeof value === 'object' && typeof (value as { safeParse?: unknown }).safeParse === 'function',
      {
        error: 'must be a zod schema (an object with safeParse)',
      },
    )
    .optional(),
});

/**
 * How large a DOT input dotplan reads: settings (`limits.maxDotBytes`, `limits.maxDotElements` in
 * the config file, or the environment variables below) with defaults that fit plans of well over
 * 100,000 nodes. They guard against a runaway input, not against big plans.
 */
export const DOT_LIMITS = { maxBytes: 64 * 1024 * 1024, maxASTNodes: 5_000_000 } as const;

/**
 * How deep `{` may nest in any DOT input (subgraphs and `{a b}` groups inside one another), counted
 * below the graph's own braces. Not a setting: it keeps the parser and the walker, which recurse
 * once per level, far from the end of the stack, whatever the input and whoever wrote it (a plan
 * file, an edit, an LLM's reply, a stored revision). Real plans nest clusters a few levels deep.
 */
export const MAX_DOT_NESTING = 100;

/** How a user raises each limit; named in the error. */
export const LIMIT_SETTINGS = {
  bytes: 'limits.maxDotBytes (env DOTPLAN_MAX_DOT_BYTES)',
  elements: 'limits.maxDotElements (env DOTPLAN_MAX_DOT_ELEMENTS)',
} as const;

/** No limit: for text dotplan wrote itself (stored revisions), which was read under the limits once. */
export const NO_DOT_LIMITS = { maxBytes: Number.MAX_SAFE_INTEGER, maxASTNodes: Number.MAX_SAFE_INTEGER } as const;

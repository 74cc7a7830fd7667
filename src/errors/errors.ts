/**
 * The codes of {@link DotplanError}, a closed set. One base error with a closed set of codes. The CLI prints `message` and `code` (never a stack
 * trace unless --debug); the HTTP API maps codes to status codes.
 */
export const ERROR_CODES = [
  'INVALID_INPUT', // bad user input in general (a flag value, a file that cannot be read)
  'VALIDATION_FAILED', // a plan failed validation; `diagnostics` says where and why
  'ILLEGAL_TRANSITION', // a status move its driver may not make
  'NOT_FOUND', // a plan, node, template or tool that does not exist
  'CONFLICT', // e.g. answering twice with a different text, a lost lease
  'TOKEN_EXISTS', // a live API token has that name already: choose another name, or revoke that token first (`dotplan token revoke <name>`)
  'TOKEN_NOT_FOUND', // no live API token has that name (a revoked one is gone): `dotplan token list` shows the live ones
  'TOOL_FAILED', // a tool threw; `retryable` says whether another attempt may help
  'LLM_FAILED', // a call to the LLM endpoint failed after its retries, or its reply could not be used
  'DATABASE', // the store could not do its work
  'CONFIG', // configuration could not be resolved
  'USAGE', // the command line itself is wrong (unknown command, a flag value that is not allowed): exit 2
  'TOO_MANY_STREAMS', // the server already serves as many live event streams as it may: close one, or raise its limit (`maxSubscribers`)
  'INTERNAL', // a bug
] as const;
/** What kind of refusal or failure an error is (see {@link ERROR_CODES}). */
export type ErrorCode = (typeof ERROR_CODES)[number];

/** Every error dotplan throws on purpose: a message for a person and a `code` for a program. */
export class DotplanError extends Error {
  /** What kind of error it is; the HTTP API will map it to a status code. */
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DotplanError';
    this.code = code;
  }
}

/** A plan, node, revision, template or tool that does not exist (`NOT_FOUND`); an API token (`TOKEN_NOT_FOUND`). */
export class NotFoundError extends DotplanError {
  constructor(message: string, options?: { cause?: unknown; code?: 'NOT_FOUND' | 'TOKEN_NOT_FOUND' }) {
    super(options?.code ?? 'NOT_FOUND', message, options);
    this.name = 'NotFoundError';
  }
}

/**
 * A command that contradicts what was done before: a different answer to an answered node, a lost lease
 * (`CONFLICT`); a new API token named as a live one (`TOKEN_EXISTS`).
 */
export class ConflictError extends DotplanError {
  constructor(message: string, options?: { cause?: unknown; code?: 'CONFLICT' | 'TOKEN_EXISTS' }) {
    super(options?.code ?? 'CONFLICT', message, options);
    this.name = 'ConflictError';
  }
}

/** Bad input in general (`INVALID_INPUT`): an argument, a value, a command on something not in a state for it. */
export class InvalidInputError extends DotplanError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('INVALID_INPUT', message, options);
    this.name = 'InvalidInputError';
  }
}

/**
 * An argument of a library call is wrong: `argument` is its path (`planId`, `values.item`,
 * `config.worker.concurrency`; empty for an unknown option of the call itself) and `problem` what is
 * wrong with it (`must be a string (got number)`). The message names the call too; the CLI says
 * the same problem of its flag instead (`--goal is empty`).
 */
export class InvalidArgumentError extends InvalidInputError {
  /** The argument's path: `planId`, `values.item`, `config.worker.concurrency` (empty for an unknown option of the call). */
  readonly argument: string;
  /** What is wrong with it, without its name: `must be a string (got number)`. */
  readonly problem: string;
  constructor(message: string, details: { argument: string; problem: string }, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InvalidArgumentError';
    this.argument = details.argument;
    this.problem = details.problem;
  }

  /** `argument problem`, after `method: ` when a call is named: `values.item is required: …`. */
  static about(argument: string, problem: string, method?: string): InvalidArgumentError {
    return new InvalidArgumentError(`${method ? `${method}: ` : ''}${argument} ${problem}`, { argument, problem });
  }
}

/** The command line is wrong: the CLI exits 2 and prints the usage hint. */
export class UsageError extends DotplanError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('USAGE', message, options);
    this.name = 'UsageError';
  }
}

/** A tool failure. `retryable: false` (like Temporal's nonRetryable) stops further attempts. */
export class ToolError extends DotplanError {
  /** Whether another attempt may help. */
  readonly retryable: boolean;
  constructor(message: string, options?: { cause?: unknown; retryable?: boolean }) {
    super('TOOL_FAILED', message, options);
    this.name = 'ToolError';
    this.retryable = options?.retryable ?? true;
  }
}

/** Turns anything thrown into an Error, keeping the original as `cause`. */
export function coerceError(value: unknown): Error {
  if (value instanceof Error) return value;
  if (typeof value === 'string') return new Error(value);
  try {
    return new Error(JSON.stringify(value), { cause: value });
  } catch {
    return new Error(String(value), { cause: value });
  }
}

/** True for errors a user caused (shown without a stack trace). */
export function isUserError(error: unknown): error is DotplanError {
  return error instanceof DotplanError && error.code !== 'INTERNAL';
}

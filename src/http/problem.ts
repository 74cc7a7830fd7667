import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { DotplanError, InvalidArgumentError, isUserError } from '../errors/errors.js';
import { ValidationError, type Diagnostic } from '../model/diagnostics.js';

/**
 * Errors as `application/problem+json` (RFC 9457): `type`/`title`/`status`/`detail` plus dotplan's own
 * `code` and, for a plan that does not validate, `diagnostics[]` with line, node, attribute and fix.
 * The status says what the code means: a thing that does not exist is 404, a move its driver may not
 * make or a clash with what happened before is 409, input that cannot be used is 422.
 */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  diagnostics?: Diagnostic[];
  argument?: string;
  conflicts?: unknown[];
}

const STATUS_BY_CODE: Readonly<Record<string, number>> = {
  NOT_FOUND: 404,
  TOKEN_NOT_FOUND: 404,
  CONFLICT: 409,
  ILLEGAL_TRANSITION: 409,
  MERGE_CONFLICT: 409,
  TOKEN_EXISTS: 409,
  INVALID_INPUT: 422,
  VALIDATION_FAILED: 422,
  USAGE: 400,
  TOO_MANY_STREAMS: 429,
  TOOL_FAILED: 502,
  LLM_FAILED: 502,
  DATABASE: 503,
  CONFIG: 500,
  INTERNAL: 500,
};

const TITLES: Readonly<Record<number, string>> = {
  400: 'Bad request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict',
  413: 'Content too large',
  415: 'Unsupported media type',
  421: 'Misdirected request',
  422: 'Unprocessable content',
  429: 'Too many requests',
  500: 'Internal error',
  502: 'Bad gateway',
  503: 'Service unavailable',
};

/** A problem document for a status and code (the type is a stable URN of the code). */
export function problem(status: number, code: string, detail: string, extra: Partial<Problem> = {}): Problem {
  return { type: `urn:dotplan:error:${code.toLowerCase()}`, title: TITLES[status] ?? 'Error', status, detail, code, ...extra };
}

/** What an error thrown by a use case becomes: a user's error says its message; anything else is 500 without internals. */
export function problemFor(error: unknown): Problem {
  if (error instanceof HTTPException && error.status < 500) return problem(error.status, 'USAGE', error.message || TITLES[error.status] || 'Bad request');
  if (error instanceof ValidationError) return problem(422, error.code, error.message, { diagnostics: error.diagnostics });
  if (error instanceof InvalidArgumentError) return problem(422, error.code, error.message, { argument: error.argument });
  if (error instanceof DotplanError && isUserError(error)) return problem(STATUS_BY_CODE[error.code] ?? 400, error.code, error.message);
  return problem(500, 'INTERNAL', 'The server could not do this; the error is in its log.');
}

/** Sends a problem document. */
export function sendProblem(c: Context, body: Problem, headers: Record<string, string> = {}): Response {
  return c.body(JSON.stringify(body), body.status as 400, { 'content-type': 'application/problem+json', ...headers });
}

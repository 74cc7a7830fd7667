/**
 * The HTTP API from the browser: same-origin `fetch`, JSON bodies, problem documents turned into
 * {@link ApiError}s. Commands carry the session's CSRF value (`x-csrf-token`) when logged in with a
 * cookie; the local user of a server with no tokens needs none.
 */
import type { Conflict, Diagnostic } from './types.js';

/** A problem document (RFC 9457) with dotplan's code and, where it has them, diagnostics and conflicts. */
export interface Problem {
  status: number;
  code: string;
  title?: string;
  detail: string;
  diagnostics?: Diagnostic[];
  conflicts?: Conflict[];
}

export class ApiError extends Error {
  constructor(readonly problem: Problem) {
    super(`${problem.detail} (${problem.code})`);
    this.name = 'ApiError';
  }
  get status(): number {
    return this.problem.status;
  }
}

let csrf = '';
let onUnauthorized: () => void = () => undefined;

/** Called when a request is refused for want of a login (the session ended): the app shows the login. */
export function whenUnauthorized(callback: () => void): void {
  onUnauthorized = callback;
}

/** Set by the session once known (empty for the local user). */
export function setCsrf(value: string): void {
  csrf = value;
}

/** What a failed answer says, as a {@link Problem} (a non-problem body becomes its detail). */
async function problemOf(response: Response): Promise<Problem> {
  const text = await response.text();
  try {
    const body = JSON.parse(text) as Partial<Problem>;
    if (typeof body.code === 'string') return { ...body, status: response.status, code: body.code, detail: body.detail ?? response.statusText };
  } catch {
    // not JSON: said below
  }
  return { status: response.status, code: `HTTP_${response.status}`, detail: text.slice(0, 300) || response.statusText };
}

async function send(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json, application/problem+json, */*' };
  if (method === 'POST') {
    headers['content-type'] = 'application/json';
    if (csrf) headers['x-csrf-token'] = csrf;
  }
  const response = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    cache: 'no-cache',
    ...(method === 'POST' ? { body: JSON.stringify(body ?? {}) } : {}),
  });
  if (response.status === 401 && path !== '/v1/session') onUnauthorized();
  if (!response.ok) throw new ApiError(await problemOf(response));
  return response;
}

export const api = {
  /** GET a JSON answer. */
  async get<T>(path: string): Promise<T> {
    return (await (await send('GET', path)).json()) as T;
  },
  /** GET a text answer (DOT, SVG). */
  async text(path: string): Promise<string> {
    return (await send('GET', path)).text();
  },
  /** POST a command with a JSON body; the JSON answer. */
  async post<T>(path: string, body: unknown = {}): Promise<T> {
    return (await (await send('POST', path, body)).json()) as T;
  },
};

/** One path segment, encoded. */
export const seg = (value: string): string => encodeURIComponent(value);

/** The message to show for anything thrown. */
export function errorText(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  return error instanceof Error ? error.message : String(error);
}

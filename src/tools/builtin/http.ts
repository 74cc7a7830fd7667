import { z } from 'zod';
import { ToolError } from '../../errors/errors.js';
import type { Tool } from '../types.js';

const input = z.object({
  url: z.string(),
  method: z.string().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  body: z.unknown().optional(),
});

export interface HttpResult {
  status: number;
  headers: Record<string, string>;
  /** Parsed JSON when the response says `application/json` (or `+json`), else text. */
  body: unknown;
}

/** Where users change the allow-list, named in the refusal. */
const ALLOW_KEYS = '"http.allowHosts" in dotplan.config.json, or DOTPLAN_HTTP_ALLOW';

/**
 * An entry is a host name (`api.example.com`), a host with port (`127.0.0.1:8080`), a wildcard for
 * sub-domains (`*.example.com`) or `*` for any host.
 */
export function isHostAllowed(url: URL, allowHosts: readonly string[]): boolean {
  const hostname = url.hostname.toLowerCase();
  const host = url.host.toLowerCase();
  return allowHosts.some((raw) => {
    const entry = raw.trim().toLowerCase();
    if (entry === '*') return true;
    if (entry.startsWith('*.')) return hostname.endsWith(entry.slice(1));
    return entry === hostname || entry === host;
  });
}

/** Statuses worth another attempt besides 5xx. */
const RETRYABLE_STATUSES = new Set([408, 425, 429]);

/**
 * `http`: fetch with an allow-list of hosts. 5xx, 408/429 and network errors are retryable; other
 * 4xx and refused hosts are not.
 */
export function httpTool(options: { allowHosts: readonly string[] }): Tool<z.infer<typeof input>, HttpResult> {
  return {
    code: 'http',
    description:
      'HTTP request: {"url", "method"?, "headers"?, "body"?} → {"status", "headers", "body"} (JSON parsed when the response is JSON). Object bodies are sent as JSON. Only hosts in the configured allow-list.',
    inputSchema: input,
    run: async (request, ctx) => {
      let url: URL;
      try {
        url = new URL(request.url);
      } catch (error) {
        throw new ToolError(`http: "${request.url}" is not a URL`, { retryable: false, cause: error });
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        throw new ToolError(`http: only http and https URLs are fetched, not ${url.protocol}`, { retryable: false });
      }
      if (!isHostAllowed(url, options.allowHosts)) {
        throw new ToolError(
          `http: host "${url.host}" is not in the allow-list (${options.allowHosts.length > 0 ? options.allowHosts.join(', ') : 'empty'}); add it to ${ALLOW_KEYS}`,
          { retryable: false },
        );
      }
      const headers = new Headers(request.headers ?? {});
      let body: string | undefined;
      if (request.body !== undefined && request.body !== null) {
        if (typeof request.body === 'string') body = request.body;
        else {
          body = JSON.stringify(request.body);
          if (!headers.has('content-type')) headers.set('content-type', 'application/json');
        }
      }
      const method = (request.method ?? (body === undefined ? 'GET' : 'POST')).toUpperCase();
      let response: Response;
      try {
        response = await fetch(url, { method, headers, body, signal: ctx.signal, redirect: 'follow' });
      } catch (error) {
        const reason = ctx.signal.aborted ? 'aborted' : describeNetworkError(error);
        throw new ToolError(`http: ${method} ${url.href} failed: ${reason}`, { cause: error });
      }
      const text = await response.text();
      const result: HttpResult = {
        status: response.status,
        headers: Object.fromEntries(response.headers),
        body: parseBody(text, response.headers.get('content-type')),
      };
      if (response.status >= 400) {
        const retryable = response.status >= 500 || RETRYABLE_STATUSES.has(response.status);
        const excerpt = text.length > 200 ? `${text.slice(0, 200)}…` : text;
        throw new ToolError(`http: ${method} ${url.href} answered ${response.status}${excerpt ? `: ${excerpt}` : ''}`, {
          retryable,
          cause: result,
        });
      }
      return result;
    },
  };
}

function parseBody(text: string, contentType: string | null): unknown {
  if (!contentType || !/[/+]json\b/i.test(contentType)) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  if (cause?.code) return `${cause.code}${cause.message ? ` (${cause.message})` : ''}`;
  return error instanceof Error ? error.message : String(error);
}

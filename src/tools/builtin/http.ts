import { z } from 'zod';
import { ToolError } from '../../errors/errors.js';
import type { Tool } from '../types.js';
import { checkUrl, PRIVATE_KEYS, shownUrl, type HttpAccess } from './http-guard.js';
import { PrivateAddressError, sendRequest, type OneResponse } from './http-request.js';

export { isHostAllowed, type HttpAccess } from './http-guard.js';

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

/** Statuses worth another attempt besides 5xx. */
const RETRYABLE_STATUSES = new Set([408, 425, 429]);
/** Redirect statuses the tool follows (by hand, each hop checked). */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Redirects followed for one request; one more is an error. */
export const MAX_REDIRECTS = 5;

/**
 * `http`: an HTTP request to an allowed host. 5xx, 408/429 and network errors are retryable; other
 * 4xx and refused hosts are not. Redirects are followed by hand, at most {@link MAX_REDIRECTS}, and
 * every hop is checked as the first URL is (allow-list, private addresses — when the URL is checked
 * and again when the connection resolves the name). A hop to another origin
 * (scheme, host or port) carries none of the headers the plan set (Authorization, x-api-key, cookies…)
 * and no body: a 303 (or a 301/302 after a POST) continues as a GET, as browsers do; a 307/308 that
 * would replay a body to another origin is refused.
 */
export function httpTool(options: HttpAccess): Tool<z.infer<typeof input>, HttpResult> {
  return {
    code: 'http',
    description:
      'HTTP request: {"url", "method"?, "headers"?, "body"?} → {"status", "headers", "body"} (JSON parsed when the response is JSON). Object bodies are sent as JSON. Only hosts in the configured allow-list; no private addresses unless allowed.',
    inputSchema: input,
    run: async (request, ctx) => {
      const where = `http: node "${ctx.nodeId}"`;
      let url: URL;
      try {
        url = new URL(request.url);
      } catch (error) {
        throw new ToolError(`${where}: "${shownUrl(request.url)}" is not a URL`, { retryable: false, cause: error });
      }
      let headers = new Headers(request.headers ?? {});
      let body: string | undefined;
      if (request.body !== undefined && request.body !== null) {
        if (typeof request.body === 'string') body = request.body;
        else {
          body = JSON.stringify(request.body);
          if (!headers.has('content-type')) headers.set('content-type', 'application/json');
        }
      }
      let method = (request.method ?? (body === undefined ? 'GET' : 'POST')).toUpperCase();
      let via = '';
      let response: OneResponse;
      for (let hop = 0; ; hop++) {
        await checkUrl(url, options, where, via);
        try {
          response = await sendRequest(url, {
            method,
            headers,
            ...(body !== undefined ? { body } : {}),
            signal: ctx.signal,
            publicOnly: options.allowPrivate !== true,
          });
        } catch (error) {
          if (error instanceof PrivateAddressError) {
            // The name resolved to a public address when checked and to this one when connecting.
            throw new ToolError(`${where}: ${shownUrl(url)}${via}: "${url.hostname}" is ${error.message}; allowed only with ${PRIVATE_KEYS}`, {
              retryable: false,
            });
          }
          const reason = ctx.signal.aborted ? 'aborted' : describeNetworkError(error);
          throw new ToolError(`${where}: ${method} ${shownUrl(url)}${via} failed: ${reason}`, { cause: error });
        }
        const location = REDIRECTS.has(response.status) ? response.headers.location : undefined;
        if (location === undefined) break;
        response.discard();
        const next = URL.canParse(location, url.href) ? new URL(location, url) : undefined;
        const from = `${method} ${shownUrl(url)}${via} was redirected (${response.status})`;
        if (next === undefined) throw new ToolError(`${where}: ${from} to "${shownUrl(location)}", which is not a URL`, { retryable: false });
        if (hop >= MAX_REDIRECTS) {
          throw new ToolError(`${where}: ${from} more than ${MAX_REDIRECTS} times (last to ${shownUrl(next)}); call the final URL directly`, {
            retryable: false,
          });
        }
        const otherOrigin = next.origin !== url.origin;
        if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
          if (method !== 'HEAD') method = 'GET';
          body = undefined;
          for (const name of ['content-type', 'content-length', 'content-encoding', 'content-language']) headers.delete(name);
        } else if (body !== undefined && otherOrigin) {
          throw new ToolError(
            `${where}: ${from} to ${shownUrl(next)}, another host; the request body and headers are not replayed to another host. Call that URL directly if it is meant to get them`,
            { retryable: false },
          );
        }
        // Credentials the plan set for one host are not sent to another.
        if (otherOrigin) headers = new Headers();
        via = ` (redirected from ${shownUrl(url)})`;
        url = next;
      }
      const text = await response.text();
      const result: HttpResult = { status: response.status, headers: response.headers, body: parseBody(text, response.headers['content-type'] ?? null) };
      if (response.status >= 400) {
        const retryable = response.status >= 500 || RETRYABLE_STATUSES.has(response.status);
        const excerpt = text.length > 200 ? `${text.slice(0, 200)}…` : text;
        throw new ToolError(`${where}: ${method} ${shownUrl(url)}${via} answered ${response.status}${excerpt ? `: ${excerpt}` : ''}`, {
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
  const { code, message } = error as { code?: string; message?: string };
  if (code && message && !message.includes(code)) return `${code} (${message})`;
  return message ?? String(error);
}

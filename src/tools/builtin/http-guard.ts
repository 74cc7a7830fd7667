import { lookup } from 'node:dns/promises';
import { ToolError } from '../../errors/errors.js';
import { redact } from '../../secrets/redact.js';
import { nonPublicAddress } from './http-address.js';

/** What the `http` tool may call: the config's `http` settings. */
export interface HttpAccess {
  /** Hosts it may call (see {@link isHostAllowed}). */
  allowHosts: readonly string[];
  /** Whether it may call private, loopback and link-local addresses. Default false. */
  allowPrivate?: boolean;
}

/** Where users change the allow-list, named in the refusal. */
const ALLOW_KEYS = '"http.allowHosts" in dotplan.config.json, or DOTPLAN_HTTP_ALLOW';
/** Where users allow private addresses, named in the refusal. */
export const PRIVATE_KEYS = '"http.allowPrivate": true in dotplan.config.json, or DOTPLAN_HTTP_ALLOW_PRIVATE=true';

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

/** A URL as messages show it: credentials and known secrets redacted. */
export function shownUrl(url: URL | string): string {
  return redact(typeof url === 'string' ? url : url.href);
}

/**
 * Checks one URL the tool is about to request — the node's own, or any hop of a redirect — and
 * throws a ToolError that is not retried, naming the node, the URL and the fix: only http(s), only
 * allowed hosts, and (unless `allowPrivate`) only host names whose every address is public.
 * `where` opens the message (`http: node "fetch"`); `via` says how the URL was reached.
 */
export async function checkUrl(url: URL, access: HttpAccess, where: string, via = ''): Promise<void> {
  const subject = `${where}: ${shownUrl(url)}${via}`;
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ToolError(`${subject}: only http and https URLs are fetched, not ${url.protocol}`, { retryable: false });
  }
  if (!isHostAllowed(url, access.allowHosts)) {
    const list = access.allowHosts.length > 0 ? access.allowHosts.join(', ') : 'empty';
    throw new ToolError(`${subject}: host "${url.host}" is not in the allow-list (${list}); add it to ${ALLOW_KEYS}`, { retryable: false });
  }
  if (access.allowPrivate === true) return;
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: Array<{ address: string }>;
  try {
    addresses = await lookup(hostname, { all: true, verbatim: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new ToolError(`${subject}: cannot resolve "${hostname}" (${code})`, { retryable: code !== 'ENOTFOUND', cause: error });
  }
  for (const { address } of addresses) {
    const kind = nonPublicAddress(address);
    if (kind !== undefined) {
      throw new ToolError(
        `${subject}: "${hostname}" is ${address}, ${kind}; the http tool calls private, loopback and link-local addresses only when allowed: set ${PRIVATE_KEYS}`,
        { retryable: false },
      );
    }
  }
}

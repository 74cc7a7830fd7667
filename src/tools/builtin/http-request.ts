import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { promisify } from 'node:util';
import { brotliDecompress, gunzip, inflate } from 'node:zlib';
import { nonPublicAddress } from './http-address.js';

/**
 * One HTTP request, no redirects followed, on node:http(s) rather than fetch, for one reason: the
 * connection's own address lookup is checked (`publicOnly`), so a host name that resolved to a public
 * address when the URL was checked cannot resolve to a private one when the connection is made (DNS
 * rebinding). A refused address fails the request with {@link PrivateAddressError}.
 */
export interface OneRequest {
  method: string;
  headers: Headers;
  body?: string;
  signal: AbortSignal;
  /** Refuse connecting to any address that is not public. */
  publicOnly: boolean;
}

export interface OneResponse {
  status: number;
  headers: Record<string, string>;
  /** The body as text (decompressed); read once. */
  text(): Promise<string>;
  /** Drops the body unread. */
  discard(): void;
}

/** The connection was about to reach a private, loopback or link-local address. */
export class PrivateAddressError extends Error {
  constructor(
    readonly address: string,
    readonly kind: string,
  ) {
    super(`${address} is ${kind}`);
    this.name = 'PrivateAddressError';
  }
}

/** What is sent unless the node's headers say otherwise (bodies in these encodings are decoded). */
const DEFAULT_HEADERS = { accept: '*/*', 'accept-encoding': 'gzip, deflate, br', 'user-agent': 'dotplan-http' };

export function sendRequest(url: URL, init: OneRequest): Promise<OneResponse> {
  const headers: Record<string, string> = { ...DEFAULT_HEADERS, ...Object.fromEntries(init.headers) };
  if (init.body !== undefined && !init.headers.has('content-length')) headers['content-length'] = String(Buffer.byteLength(init.body));
  return new Promise((resolve, reject) => {
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, {
      method: init.method,
      headers,
      signal: init.signal,
      ...(init.publicOnly ? { lookup: publicLookup } : {}),
    });
    request.once('error', reject);
    request.once('response', (response) => resolve(toResponse(response)));
    request.end(init.body);
  });
}

/** dns.lookup, refusing any answer that holds an address that is not public. */
function publicLookup(
  hostname: string,
  options: LookupOptions,
  callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    for (const { address } of addresses) {
      const kind = nonPublicAddress(address);
      if (kind !== undefined) return callback(new PrivateAddressError(address, kind), []);
    }
    if (options.all === true) return callback(null, addresses);
    const [first] = addresses;
    return first ? callback(null, first.address, first.family) : callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
  });
}

function toResponse(response: IncomingMessage): OneResponse {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  return {
    status: response.statusCode ?? 0,
    headers,
    text: async () => (await decode(await readAll(response), headers['content-encoding'])).toString('utf8'),
    discard: () => void response.resume(),
  };
}

const DECODERS: Record<string, (data: Buffer) => Promise<Buffer>> = {
  gzip: promisify(gunzip),
  'x-gzip': promisify(gunzip),
  deflate: promisify(inflate),
  br: promisify(brotliDecompress),
};

/** The body as the server encoded it, decoded off the event loop (zlib's thread pool). */
function decode(data: Buffer, encoding: string | undefined): Promise<Buffer> {
  const decoder = encoding === undefined ? undefined : DECODERS[encoding.trim().toLowerCase()];
  return decoder === undefined || data.length === 0 ? Promise.resolve(data) : decoder(data);
}

async function readAll(stream: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * The secrets in play and their redaction: one process-wide set of secret values — every value read
 * from the environment through `env:NAME` (notifier URLs, signing secrets, header values), every
 * notifier signing secret and credential header (Authorization, *token*, *key*…) even when written in
 * the file, and the OpenAI API key — registered where each is resolved. `redact` replaces each of
 * them (as written, URL-encoded and JSON-escaped; for a URL, also the parts a remote side may quote)
 * and the credentials of any URL (`https://user:pass@host`) with `[redacted]`. The store applies it to everything it records that a remote side or a tool may have
 * written (events, node outputs and errors, plan errors, LLM calls), so a 401 that quotes the key or a
 * 500 that quotes a URL is stored redacted and can never be shown by `plan events`, `plan report`,
 * `plan calls` or a prompt.
 */

/** What replaces a secret. */
export const REDACTED = '[redacted]';

/**
 * Shorter values are not registered: redacting every "abc" in every output would destroy text without
 * protecting anything (a secret that short is guessable anyway).
 */
export const MIN_SECRET_LENGTH = 6;

const secrets = new Set<string>();
let pattern: RegExp | undefined;

/**
 * The credentials of a URL: `scheme://user:pass@`, or a token alone (`https://<16+ characters>@`);
 * a plain user name (`ssh://git@host`) is no secret. Bounded, so the scan stays linear.
 */
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]{0,31}:\/\/)(?:[^\s/?#@"'<>\\:]{0,256}:[^\s/?#@"'<>\\]{0,256}|[^\s/?#@"'<>\\:]{16,256})@/gi;

/**
 * Registers a secret value (and the forms it may take in text). Returns the value, so a resolver
 * can register what it returns: `return registerSecret(env[name])`.
 */
export function registerSecret<T extends string | undefined>(value: T): T {
  if (typeof value !== 'string') return value;
  const before = secrets.size;
  for (const form of formsOf(value)) if (form.length >= MIN_SECRET_LENGTH) secrets.add(form);
  if (secrets.size !== before) pattern = undefined;
  return value;
}

/** The text with every registered secret and every URL's credentials replaced by `[redacted]`. */
export function redact(text: string): string;
export function redact(text: string | null | undefined): string | null | undefined;
export function redact(text: string | null | undefined): string | null | undefined {
  if (typeof text !== 'string' || text === '') return text;
  let out = text;
  if (secrets.size > 0) {
    pattern ??= new RegExp(
      [...secrets]
        .sort((a, b) => b.length - a.length)
        .map(escapeRegExp)
        .join('|'),
      'g',
    );
    out = out.replace(pattern, REDACTED);
  }
  return out.includes('://') ? out.replace(URL_CREDENTIALS, `$1${REDACTED}@`) : out;
}

/** A JSON-like value with every string in it (keys included) redacted; other values as they are. */
export function redactValue<T>(value: T): T {
  if (typeof value === 'string') return redact(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => redactValue(item)) as T;
  if (value !== null && typeof value === 'object' && [Object.prototype, null].includes(Object.getPrototypeOf(value) as object | null)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [redact(k), redactValue(v)])) as T;
  }
  return value;
}

/** Names of headers and query parameters whose values are credentials. */
export const SECRET_NAME = /auth|token|secret|key|pass|sig|cookie|session|credential/i;

/** Parts of a secret URL at least this long (path segments, query values) are taken for tokens too. */
const TOKEN_LENGTH = 16;

/**
 * The value as written, URL-encoded and JSON-escaped. For a URL, also what a remote side may quote
 * of it: its password, its query values that are credentials by name or look like tokens
 * by length, and long path segments (Slack's webhook URLs carry their secret in the path).
 */
function formsOf(value: string): string[] {
  const forms = [value, encodeURIComponent(value), JSON.stringify(value).slice(1, -1)];
  if (/^https?:\/\//i.test(value) && URL.canParse(value)) {
    const url = new URL(value);
    forms.push(url.href);
    if (url.password) forms.push(url.password, safeDecode(url.password));
    for (const [name, v] of url.searchParams) if (SECRET_NAME.test(name) || v.length >= TOKEN_LENGTH) forms.push(v, encodeURIComponent(v));
    for (const segment of url.pathname.split('/')) if (segment.length >= TOKEN_LENGTH) forms.push(segment, safeDecode(segment));
  }
  return forms;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

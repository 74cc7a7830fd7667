import { DotplanError } from '../errors/errors.js';
import { parseDuration } from '../model/duration.js';
import { readEnvReference } from '../secrets/env-reference.js';
import { registerSecret, SECRET_NAME } from '../secrets/redact.js';

/**
 * The notifiers a user configures (`notify` in dotplan.config.json, or `DOTPLAN_NOTIFY` as JSON):
 * a generic webhook, and presets for DingTalk custom robots, Feishu / Lark bots and Slack incoming
 * webhooks. Read here, with an error that names the entry, the field and what is allowed. The
 * console always gets every notice and needs no entry.
 */
/** The notifier types there are. */
export const NOTIFIER_TYPES = ['webhook', 'dingtalk', 'feishu', 'lark', 'slack'] as const;
/** A notifier's kind: a generic webhook, or a chat app's robot. */
export type NotifierType = (typeof NOTIFIER_TYPES)[number];

/** A notifier, complete (what `Announcer` takes; the config file's shorthand is read into these). */
export interface NotifierConfig {
  /** How plans (graph attribute `notify`) and events name it. Default: its type; unique. */
  name: string;
  type: NotifierType;
  url: string;
  /** Signing secret: HMAC-SHA256 header (webhook), `timestamp`/`sign` (DingTalk, Feishu/Lark). */
  secret?: string;
  /** Extra request headers (webhook only), e.g. Authorization. */
  headers?: Record<string, string>;
  /** One attempt's time limit, in ms. Default 10 s. */
  timeoutMs: number;
  /**
   * Set when a field names an environment variable that is not set. Only a worker sends notices, so
   * only a worker refuses to start over it (`assertNotifiersReady`); other commands do not care.
   */
  unresolved?: string;
}

const FIELDS = ['name', 'type', 'url', 'secret', 'headers', 'timeout'];
export const DEFAULT_NOTIFY_TIMEOUT_MS = 10_000;

export type ParsedNotifiers = { ok: true; value: NotifierConfig[] } | { ok: false; reason: string };

/**
 * Reads the list. `url`, `secret` and header values may be `env:NAME`, read from `env` so that
 * secrets stay out of the file; a variable that is not set marks the notifier `unresolved` (a worker
 * refuses to start over it, other commands go on).
 */
export function parseNotifiers(value: unknown, env: Record<string, string | undefined>): ParsedNotifiers {
  if (!Array.isArray(value))
    return { ok: false, reason: 'must be a list of notifiers such as [{"type": "dingtalk", "url": "https://oapi.dingtalk.com/robot/send?access_token=…"}]' };
  const out: NotifierConfig[] = [];
  for (const [index, entry] of value.entries()) {
    const parsed = parseOne(entry, env);
    const where = `entry ${index + 1}${isObject(entry) && typeof entry.name === 'string' ? ` ("${entry.name}")` : ''}`;
    if (typeof parsed === 'string') return { ok: false, reason: `${where}: ${parsed}` };
    if (out.some((n) => n.name === parsed.name))
      return { ok: false, reason: `${where}: the name "${parsed.name}" is used twice; give each notifier of the same type a "name"` };
    out.push(parsed);
  }
  return { ok: true, value: out };
}

function parseOne(entry: unknown, env: Record<string, string | undefined>): NotifierConfig | string {
  if (!isObject(entry)) return 'must be an object such as {"type": "slack", "url": "https://hooks.slack.com/services/…"}';
  const unknown = Object.keys(entry).filter((k) => !FIELDS.includes(k));
  if (unknown.length > 0) return `"${unknown[0]}" is not a notifier field; known: ${FIELDS.join(', ')}`;
  const type = entry.type;
  if (typeof type !== 'string' || !(NOTIFIER_TYPES as readonly string[]).includes(type)) return `"type" must be one of ${NOTIFIER_TYPES.join(', ')}`;
  const name = entry.name ?? type;
  if (typeof name !== 'string' || !/^[\w.-]+$/.test(name)) return '"name" must be a word (letters, digits, _ . -)';
  const missing: string[] = [];
  const read = (value: unknown, field: string): unknown => {
    const text = readSecret(value, field, env);
    if (!(text instanceof Missing)) return text;
    missing.push(text.message);
    return undefined;
  };
  const rawUrl = read(entry.url, 'url');
  const url = rawUrl === undefined && missing.length > 0 ? 'http://unresolved.invalid/' : rawUrl;
  if (typeof url !== 'string' || !/^https?:\/\//.test(url) || !URL.canParse(url)) return url instanceof Error ? url.message : '"url" must be an http(s) URL';
  const out: NotifierConfig = { name, type: type as NotifierType, url, timeoutMs: DEFAULT_NOTIFY_TIMEOUT_MS };
  if (entry.secret !== undefined) {
    if (type === 'slack') return 'Slack incoming webhooks take no "secret" (the URL is the secret)';
    const secret = read(entry.secret, 'secret');
    if (secret instanceof Error) return secret.message;
    if (secret !== undefined && (typeof secret !== 'string' || secret === ''))
      return '"secret" must be a non-empty string (or "env:NAME" to read it from the environment)';
    if (typeof secret === 'string') out.secret = registerSecret(secret);
  }
  if (entry.headers !== undefined) {
    if (type !== 'webhook') return '"headers" is for "type": "webhook" only';
    if (!isObject(entry.headers)) return '"headers" must be an object of header names to strings';
    out.headers = {};
    for (const [header, raw] of Object.entries(entry.headers)) {
      const text = read(raw, `headers.${header}`);
      if (text instanceof Error) return text.message;
      if (text !== undefined && typeof text !== 'string') return `"headers.${header}" must be a string`;
      if (typeof text === 'string') out.headers[header] = SECRET_NAME.test(header) ? registerSecret(text) : text;
    }
  }
  if (entry.timeout !== undefined) {
    const ms = typeof entry.timeout === 'string' ? parseDuration(entry.timeout) : undefined;
    if (ms === undefined || ms <= 0) return '"timeout" must be a duration such as 5s';
    out.timeoutMs = ms;
  }
  if (missing.length > 0) out.unresolved = missing.join('; ');
  return out;
}

/** `env:NAME` → the variable's value, registered as a secret (or a Missing naming it); anything else as it is. */
function readSecret(value: unknown, field: string, env: Record<string, string | undefined>): unknown {
  if (typeof value !== 'string') return value;
  const read = readEnvReference(value, env);
  switch (read.kind) {
    case 'text':
    case 'secret':
      return read.value;
    case 'bad-name':
      return new Error(`"${field}": "${value}" must name an environment variable, such as env:DINGTALK_SECRET`);
    case 'unset':
      return new Missing(`"${field}" names the environment variable ${read.name}, which is not set; set it where the worker runs`);
  }
}

class Missing {
  constructor(readonly message: string) {}
}

/** Refuses notifiers whose secrets are missing from the environment: a worker calls it before it starts. */
export function assertNotifiersReady(targets: readonly NotifierConfig[]): void {
  const broken = targets.filter((t) => t.unresolved !== undefined);
  if (broken.length > 0) throw new DotplanError('CONFIG', broken.map((t) => `notifier "${t.name}": ${t.unresolved}`).join('; '));
}

/**
 * The notifiers a plan's notices go to: every configured one, or those its `notify` attribute names
 * (`none`: the console only). Names that match nothing are returned so they can be reported.
 */
export function notifiersFor(configured: readonly NotifierConfig[], names: readonly string[] | undefined): { targets: NotifierConfig[]; unknown: string[] } {
  if (names === undefined) return { targets: [...configured], unknown: [] };
  const wanted = names.filter((n) => n !== 'none' && n !== 'console');
  return {
    targets: configured.filter((n) => wanted.includes(n.name)),
    unknown: wanted.filter((n) => !configured.some((c) => c.name === n)),
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

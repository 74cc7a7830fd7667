import { isAbsolute, resolve } from 'node:path';
import { nodeCron } from './cron.js';
import { commaList } from '../model/attributes.js';
import { parseDuration } from '../model/duration.js';
import { parseNotifiers } from '../notify/targets.js';
import { parseAgents } from '../agents/agent-schema.js';
import { parseMcpServers } from '../mcp/servers.js';

/**
 * The table of settings: where each lives in the config object and file (`key`), which environment
 * variable and flag set it, and how its value is read and checked. One table, so a setting's name
 * is the same in the file, the docs and every error message.
 */
export type Parsed = { ok: true; value: unknown } | { ok: false; reason: string };

export interface Setting {
  /** Dotted path in the Config object and in the config file. */
  key: string;
  env?: string;
  /** Property of ConfigFlags that sets it, and the CLI flag named in messages. */
  flag?: Exclude<keyof ConfigFlags, 'configFile'>;
  flagName?: string;
  kind: Kind;
  /** Its value may hold secrets: error messages name the setting, never echo the value. */
  hideValue?: true;
}

/** Values from the command line (commander's camelCased options); other properties are ignored. */
export interface ConfigFlags {
  /** `--config <file>` */
  configFile?: string;
  /** `--db <url>` */
  databaseUrl?: string;
  /** `--tools <module>` (repeatable or comma-separated) */
  tools?: string | string[];
  /** `--http-allow <hosts>` */
  httpAllow?: string | string[];
  /** `--poll <cron>` */
  poll?: string;
  /** `--concurrency <n>` */
  concurrency?: string | number;
  /** `--lease-ms <ms>` */
  leaseMs?: string | number;
  /** `--llm-slots <n>` */
  llmSlots?: string | number;
  /** `serve --host <address>` */
  host?: string;
  /** `serve --port <n>` */
  port?: string | number;
}

type Kind = 'text' | 'url' | 'list' | 'paths' | 'positiveInt' | 'count' | 'duration' | 'cron' | 'notifiers' | 'boolean' | 'agents' | 'mcp';

/** The environment, for values that name a variable (`env:NAME` in a notifier). */
export type Env = Record<string, string | undefined>;

export const SETTINGS: readonly Setting[] = [
  { key: 'databaseUrl', env: 'DATABASE_URL', flag: 'databaseUrl', flagName: '--db', kind: 'text' },
  { key: 'tools', env: 'DOTPLAN_TOOLS', flag: 'tools', flagName: '--tools', kind: 'paths' },
  { key: 'agents', kind: 'agents' },
  { key: 'mcp', kind: 'mcp' },
  { key: 'http.allowHosts', env: 'DOTPLAN_HTTP_ALLOW', flag: 'httpAllow', flagName: '--http-allow', kind: 'list' },
  { key: 'http.allowPrivate', env: 'DOTPLAN_HTTP_ALLOW_PRIVATE', kind: 'boolean' },
  { key: 'worker.poll', env: 'DOTPLAN_POLL', flag: 'poll', flagName: '--poll', kind: 'cron' },
  { key: 'worker.concurrency', env: 'DOTPLAN_CONCURRENCY', flag: 'concurrency', flagName: '--concurrency', kind: 'positiveInt' },
  { key: 'worker.leaseMs', env: 'DOTPLAN_LEASE_MS', flag: 'leaseMs', flagName: '--lease-ms', kind: 'positiveInt' },
  { key: 'worker.llmSlots', env: 'DOTPLAN_LLM_SLOTS', flag: 'llmSlots', flagName: '--llm-slots', kind: 'positiveInt' },
  { key: 'retry.retries', env: 'DOTPLAN_RETRIES', kind: 'count' },
  { key: 'retry.retryDelay', env: 'DOTPLAN_RETRY_DELAY', kind: 'duration' },
  { key: 'retry.timeout', env: 'DOTPLAN_TIMEOUT', kind: 'duration' },
  { key: 'notify.reminderInterval', env: 'DOTPLAN_REMINDER_INTERVAL', kind: 'duration' },
  { key: 'notify.webhookUrl', env: 'DOTPLAN_NOTIFY_WEBHOOK', kind: 'url' },
  { key: 'notify.targets', env: 'DOTPLAN_NOTIFY', kind: 'notifiers', hideValue: true },
  { key: 'notify.retries', env: 'DOTPLAN_NOTIFY_RETRIES', kind: 'count' },
  { key: 'notify.retryDelay', env: 'DOTPLAN_NOTIFY_RETRY_DELAY', kind: 'duration' },
  { key: 'openai.baseURL', env: 'OPENAI_BASE_URL', kind: 'url' },
  { key: 'openai.model', env: 'OPENAI_MODEL', kind: 'text' },
  { key: 'openai.apiKeyEnv', kind: 'text' },
  { key: 'openai.timeoutMs', env: 'OPENAI_TIMEOUT_MS', kind: 'positiveInt' },
  { key: 'openai.maxRetries', env: 'OPENAI_MAX_RETRIES', kind: 'count' },
  { key: 'reflection.maxRewriteAttempts', env: 'DOTPLAN_MAX_REWRITE_ATTEMPTS', kind: 'positiveInt' },
  { key: 'reflection.maxReplans', env: 'DOTPLAN_MAX_REPLANS', kind: 'count' },
  { key: 'reflection.maxTokens', env: 'DOTPLAN_MAX_TOKENS', kind: 'count' },
  { key: 'reflection.resultChars', env: 'DOTPLAN_RESULT_CHARS', kind: 'positiveInt' },
  { key: 'reflection.retryDelay', env: 'DOTPLAN_LLM_RETRY_DELAY', kind: 'duration' },
  { key: 'reflection.maxReplyBytes', env: 'DOTPLAN_MAX_REPLY_BYTES', kind: 'positiveInt' },
  { key: 'serve.host', env: 'DOTPLAN_SERVE_HOST', flag: 'host', flagName: '--host', kind: 'text' },
  { key: 'serve.port', env: 'DOTPLAN_SERVE_PORT', flag: 'port', flagName: '--port', kind: 'count' },
  { key: 'serve.publicUrl', env: 'DOTPLAN_PUBLIC_URL', kind: 'url' },
  { key: 'serve.corsOrigins', env: 'DOTPLAN_CORS_ORIGINS', kind: 'list' },
  { key: 'serve.rateLimit', env: 'DOTPLAN_RATE_LIMIT', kind: 'count' },
  { key: 'limits.maxDotBytes', env: 'DOTPLAN_MAX_DOT_BYTES', kind: 'positiveInt' },
  { key: 'limits.maxDotElements', env: 'DOTPLAN_MAX_DOT_ELEMENTS', kind: 'positiveInt' },
  { key: 'limits.maxPlanDepth', env: 'DOTPLAN_MAX_PLAN_DEPTH', kind: 'positiveInt' },
  { key: 'limits.maxChildPlans', env: 'DOTPLAN_MAX_CHILD_PLANS', kind: 'positiveInt' },
];

/** Reads a setting from text (environment, flags); `baseDir` anchors relative paths. */
export function fromText(kind: Kind, text: string, baseDir: string, env: Env = {}): Parsed {
  switch (kind) {
    case 'notifiers':
      try {
        return fromJson(kind, JSON.parse(text), baseDir, env);
      } catch {
        return { ok: false, reason: `is not valid JSON; ${describe(kind)}` };
      }
    case 'list':
    case 'paths':
      return fromJson(kind, commaList(text), baseDir);
    case 'boolean': {
      const word = text.trim().toLowerCase();
      return ['true', '1', 'yes'].includes(word)
        ? { ok: true, value: true }
        : ['false', '0', 'no'].includes(word)
          ? { ok: true, value: false }
          : { ok: false, reason: describe(kind) };
    }
    case 'positiveInt':
    case 'count':
      return /^\s*\d+\s*$/.test(text) ? fromJson(kind, Number(text), baseDir) : { ok: false, reason: describe(kind) };
    default:
      return fromJson(kind, text, baseDir);
  }
}

/** Reads a setting from a JSON value (config file) or an already typed value. */
export function fromJson(kind: Kind, value: unknown, baseDir: string, env: Env = {}): Parsed {
  const bad: Parsed = { ok: false, reason: describe(kind) };
  switch (kind) {
    case 'text':
      return typeof value === 'string' && value.trim() !== '' ? { ok: true, value } : bad;
    case 'url':
      return typeof value === 'string' && URL.canParse(value) ? { ok: true, value } : bad;
    case 'list':
    case 'paths': {
      if (!Array.isArray(value) || !value.every((item) => typeof item === 'string' && item.trim() !== '')) return bad;
      const items = value.map((item: string) => item.trim());
      return { ok: true, value: kind === 'paths' ? items.map((p) => (isAbsolute(p) ? p : resolve(baseDir, p))) : items };
    }
    case 'positiveInt':
      return Number.isSafeInteger(value) && (value as number) >= 1 ? { ok: true, value } : bad;
    case 'count':
      return Number.isSafeInteger(value) && (value as number) >= 0 ? { ok: true, value } : bad;
    case 'duration':
      return typeof value === 'string' && parseDuration(value) !== undefined ? { ok: true, value } : bad;
    case 'cron':
      return typeof value === 'string' && validCron(value) ? { ok: true, value } : bad;
    case 'notifiers':
      return parseNotifiers(value, env);
    case 'boolean':
      return typeof value === 'boolean' ? { ok: true, value } : bad;
    case 'agents':
      return parseAgents(value, 'agents');
    case 'mcp':
      return parseMcpServers(value, 'mcp', baseDir);
  }
}

function describe(kind: Kind): string {
  switch (kind) {
    case 'text':
      return 'must be a non-empty string';
    case 'url':
      return 'must be a URL such as https://example.com/hook';
    case 'list':
      return 'must be a list of names (an array in the file, comma-separated in the environment)';
    case 'paths':
      return 'must be a list of module paths (an array in the file, comma-separated in the environment)';
    case 'positiveInt':
      return 'must be a whole number of at least 1';
    case 'count':
      return 'must be a whole number of at least 0';
    case 'duration':
      return 'must be a duration such as 500ms, 30s, 5m, 1h';
    case 'cron':
      return 'must be a cron expression such as "*/30 * * * * *" (seconds field optional)';
    case 'boolean':
      return 'must be true or false';
    case 'notifiers':
      return 'must be a list of notifiers such as [{"type": "slack", "url": "https://hooks.slack.com/services/…"}]';
    case 'agents':
      return 'must be a list of agents such as [{"code": "searcher", "kind": "react", "description": "...", "tools": ["http"]}]';
    case 'mcp':
      return 'must be an object of MCP servers by name, such as {"files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."]}}';
  }
}

/** node-cron's check of a schedule (cron.ts: loaded the first time a schedule is checked). */
function validCron(value: string): boolean {
  return nodeCron().validate(value);
}

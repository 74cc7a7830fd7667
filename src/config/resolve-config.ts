import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { DotplanError, UsageError } from '../errors/errors.js';
import { DEFAULT_CONFIG_FILE, defaultConfig, type Config } from './defaults.js';
import { DEFAULT_NOTIFY_TIMEOUT_MS } from '../notify/targets.js';
import { commaList } from '../model/attributes.js';
import { registerSecret } from '../secrets/redact.js';
import { fromJson, fromText, SETTINGS, type ConfigFlags, type Env, type Setting } from './settings.js';

export type { ConfigFlags } from './settings.js';

export interface ResolveConfigOptions {
  flags?: ConfigFlags;
  env?: Record<string, string | undefined>;
  cwd?: string;
}

/**
 * Resolves the configuration once, in layers: defaults < config file < environment < flags. The
 * file is `--config <file>`, else `DOTPLAN_CONFIG`, else `dotplan.config.json` in `cwd` when it exists.
 * Pure apart from reading that file. A bad value is a DotplanError('CONFIG') naming where it came
 * from (file and key, variable) and what is allowed; a bad flag value is a UsageError (exit 2).
 */
export async function resolveConfig(options: ResolveConfigOptions = {}): Promise<Config> {
  const flags = options.flags ?? {};
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const config = defaultConfig();

  const file = await readConfigFile(flags.configFile ?? nonEmpty(env.DOTPLAN_CONFIG), cwd);
  if (file) {
    config.configFile = file.path;
    applyFile(config, file.path, file.data, env);
  }
  for (const setting of SETTINGS) {
    const text = setting.env ? nonEmpty(env[setting.env]) : undefined;
    if (text !== undefined) apply(config, setting, fromText(setting.kind, text, cwd, env), setting.hideValue ? setting.env! : `${setting.env}="${text}"`);
  }
  for (const setting of SETTINGS) {
    const raw = setting.flag ? flags[setting.flag] : undefined;
    if (raw === undefined) continue;
    const flag = setting.flagName ?? `--${setting.flag}`;
    const parsed = Array.isArray(raw)
      ? fromJson(
          setting.kind,
          raw.flatMap((item) => commaList(item)),
          cwd,
        )
      : fromText(setting.kind, String(raw), cwd);
    try {
      apply(config, setting, parsed, `${flag} ${JSON.stringify(String(raw))}`);
    } catch (error) {
      // A flag's value is part of the command line: a usage error (exit 2).
      throw new UsageError((error as Error).message, { cause: error });
    }
  }
  config.openai.apiKey = registerSecret(nonEmpty(env[config.openai.apiKeyEnv]));
  foldWebhookUrl(config);
  return config;
}

async function readConfigFile(explicit: string | undefined, cwd: string): Promise<{ path: string; data: unknown } | undefined> {
  const path = resolve(cwd, explicit ?? DEFAULT_CONFIG_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (explicit === undefined && (error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new DotplanError('CONFIG', `cannot read config file ${path}: ${(error as Error).message}`, { cause: error });
  }
  try {
    return { path, data: JSON.parse(text) };
  } catch (error) {
    throw new DotplanError('CONFIG', `config file ${path} is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
}

function applyFile(config: Config, path: string, data: unknown, env: Env): void {
  const fail = (key: string, reason: string): never => {
    throw new DotplanError('CONFIG', `config file ${path}: ${key ? `"${key}" ` : ''}${reason}`);
  };
  if (!isObject(data)) fail('', 'must hold a JSON object');
  const byKey = new Map(SETTINGS.map((s) => [s.key, s]));
  const groups = new Set(SETTINGS.flatMap((s) => (s.key.includes('.') ? [s.key.slice(0, s.key.indexOf('.'))] : [])));
  const visit = (object: Record<string, unknown>, prefix: string) => {
    for (const [name, value] of Object.entries(object)) {
      const key = prefix ? `${prefix}.${name}` : name;
      if (!prefix && name === '$schema') continue;
      // `"notify": [...]` is the list of notifiers, as `"notify": {"targets": [...]}`.
      const setting = key === 'notify' && Array.isArray(value) ? byKey.get('notify.targets') : byKey.get(key);
      if (setting) {
        const where = `config file ${path}: "${key}"${setting.hideValue ? '' : ` = ${JSON.stringify(value)}`}`;
        if (value !== null) apply(config, setting, fromJson(setting.kind, value, dirname(path), env), where);
      } else if (!prefix && groups.has(name)) {
        if (!isObject(value)) fail(key, name === 'notify' ? 'must be a list of notifiers or an object of notify settings' : 'must be an object');
        visit(value as Record<string, unknown>, key);
      } else if (key === 'openai.apiKey') {
        fail(key, 'is not read from files: put the key in the environment variable named by "openai.apiKeyEnv" (default OPENAI_API_KEY)');
      } else {
        const known = SETTINGS.map((s) => s.key).filter((k) => (prefix ? k.startsWith(`${prefix}.`) : true));
        fail(key, `is not a setting; known: ${known.join(', ')}`);
      }
    }
  };
  visit(data as Record<string, unknown>, '');
}

function apply(config: Config, setting: Setting, parsed: ReturnType<typeof fromJson>, where: string): void {
  if (!parsed.ok) throw new DotplanError('CONFIG', `${where}: ${parsed.reason}`);
  const path = setting.key.split('.');
  let target = config as unknown as Record<string, unknown>;
  for (const part of path.slice(0, -1)) target = target[part] as Record<string, unknown>;
  target[path[path.length - 1] as string] = parsed.value;
}

/** `notify.webhookUrl` is one more generic webhook notifier, named `webhook` (unless that name is taken). */
function foldWebhookUrl(config: Config): void {
  const url = config.notify.webhookUrl;
  if (url === undefined || config.notify.targets.some((t) => t.url === url)) return;
  const name = config.notify.targets.some((t) => t.name === 'webhook') ? 'webhookUrl' : 'webhook';
  config.notify.targets = [...config.notify.targets, { name, type: 'webhook', url, timeoutMs: DEFAULT_NOTIFY_TIMEOUT_MS }];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

import { registerSecret } from './redact.js';

/** What a setting's value stands for: itself, or (`env:NAME`) an environment variable's value, registered as a secret. */
export type EnvReference =
  { kind: 'text'; value: string } | { kind: 'secret'; name: string; value: string } | { kind: 'unset'; name: string } | { kind: 'bad-name'; name: string };

/**
 * Reads `env:NAME` from `env` (a notifier's URL, secret or header; an MCP server's env or header): the
 * value is registered as a secret, so it is redacted wherever dotplan writes text. Anything else is
 * the text as written.
 */
export function readEnvReference(value: string, env: Record<string, string | undefined>): EnvReference {
  if (!value.startsWith('env:')) return { kind: 'text', value };
  const name = value.slice(4);
  if (!/^[A-Za-z_]\w*$/.test(name)) return { kind: 'bad-name', name };
  const text = env[name];
  return text === undefined || text === '' ? { kind: 'unset', name } : { kind: 'secret', name, value: registerSecret(text) };
}

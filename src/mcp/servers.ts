import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { z } from 'zod';
import { DotplanError } from '../errors/errors.js';
import { readEnvReference } from '../secrets/env-reference.js';

/** A server started as a process, spoken to over its standard input and output. */
export interface McpStdioServer {
  /** The program to run (found on PATH), e.g. `npx` or `node`. */
  command: string;
  args?: string[];
  /** Variables added to the server's environment; a value `env:NAME` is read from dotplan's environment (and redacted). */
  env?: Record<string, string>;
  /** Its working directory; relative to dotplan's. */
  cwd?: string;
}

/** A server reached over streamable HTTP. */
export interface McpHttpServer {
  /** Its MCP endpoint, e.g. `http://127.0.0.1:3001/mcp`. */
  url: string;
  /** Headers sent with every request; a value `env:NAME` is read from dotplan's environment (and redacted). */
  headers?: Record<string, string>;
}

/** An MCP server whose tools plans call as `toolCode="mcp:<server>/<tool>"`. */
export type McpServerConfig = McpStdioServer | McpHttpServer;

/** What a server's name may be: it is the part of a tool code between `mcp:` and `/`. */
export const MCP_SERVER_NAME = /^[A-Za-z_][\w.-]*$/;

const strings = z.record(z.string(), z.string({ error: 'must be a string (or "env:NAME" to read it from the environment)' }));
const stdioSchema = z.strictObject({
  command: z.string({ error: 'must be the program to run, such as "npx"' }).min(1, 'must be the program to run, such as "npx"'),
  args: z.array(z.string(), { error: 'must be a list of strings' }).optional(),
  env: strings.optional(),
  cwd: z.string().min(1).optional(),
});
const httpSchema = z.strictObject({
  url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL such as http://127.0.0.1:3001/mcp' }),
  headers: strings.optional(),
});

/**
 * Checks the `mcp` setting: an object of servers by name, each `{command, args?, env?, cwd?}` or
 * `{url, headers?}`. The message names the server, the field and the fix. A relative `cwd` is
 * anchored at `baseDir` when given (the config file's folder).
 */
export function parseMcpServers(
  value: unknown,
  where = 'mcp',
  baseDir?: string,
): { ok: true; value: Record<string, McpServerConfig> } | { ok: false; reason: string } {
  const example = `such as {"files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."]}}`;
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return { ok: false, reason: `${where} must be an object of MCP servers by name, ${example}` };
  const out: Record<string, McpServerConfig> = {};
  for (const [name, entry] of Object.entries(value as Record<string, unknown>)) {
    if (!MCP_SERVER_NAME.test(name)) {
      return { ok: false, reason: `${where}: the server name ${JSON.stringify(name)} must be letters, digits, _ . - starting with a letter or _` };
    }
    const isHttp = entry !== null && typeof entry === 'object' && 'url' in entry;
    const isStdio = entry !== null && typeof entry === 'object' && 'command' in entry;
    if (!isHttp && !isStdio) return { ok: false, reason: `${where}.${name} must have "command" (a process) or "url" (streamable HTTP), ${example}` };
    const parsed = (isHttp ? httpSchema : stdioSchema).safeParse(entry);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const field = issue.path.length > 0 ? `.${issue.path.join('.')}` : '';
      return {
        ok: false,
        reason: `${where}.${name}${field} ${issue.code === 'unrecognized_keys' ? `has unknown field(s) ${issue.keys.join(', ')}` : issue.message}`,
      };
    }
    const server = parsed.data;
    out[name] = baseDir !== undefined && 'cwd' in server && server.cwd !== undefined ? { ...server, cwd: resolve(baseDir, server.cwd) } : server;
  }
  return { ok: true, value: out };
}

export function isStdioServer(server: McpServerConfig): server is McpStdioServer {
  return 'command' in server;
}

/** A short hash of a server's settings as written: the cached list of its tools is for these settings only. */
export function serverFingerprint(server: McpServerConfig): string {
  return createHash('sha256').update(JSON.stringify(server)).digest('hex').slice(0, 16);
}

/**
 * Each value with `env:NAME` read from the environment and registered as a secret (so it is redacted
 * wherever dotplan writes text). A variable that is not set is a configuration error naming it.
 */
export function resolveEnvValues(values: Record<string, string> | undefined, where: string, env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(values ?? {})) {
    const read = readEnvReference(value, env);
    if (read.kind === 'bad-name') throw new DotplanError('CONFIG', `${where}.${key}: "${value}" must name an environment variable, such as env:API_KEY`);
    if (read.kind === 'unset') {
      throw new DotplanError('CONFIG', `${where}.${key} names the environment variable ${read.name}, which is not set; set it where dotplan runs`);
    }
    out[key] = read.value;
  }
  return out;
}

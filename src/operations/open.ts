import { buildAgentRegistry } from '../agents/registry.js';
import type { AgentDefinition } from '../agents/types.js';
import { defaultConfig, type Config } from '../config/defaults.js';
import { openStore } from '../store/index.js';
import { createRegistry } from '../tools/registry.js';
import type { Tool } from '../tools/types.js';
import { checked } from './arguments.js';
import { Dotplan } from './dotplan.js';

/** Settings over the defaults, each group in part. */
export type ConfigOverrides = { [K in keyof Config]?: Config[K] extends object ? Partial<Config[K]> : Config[K] };

/** What {@link openDotplan} opens: settings, the application's tools, a working folder. */
export interface OpenDotplanOptions {
  /**
   * Settings over the built-in defaults (see the README's configuration table). No config file and
   * no environment variable is read here: a service passes what it wants. The CLI resolves its
   * layers (defaults < file < environment < flags) and passes the result.
   */
  config?: ConfigOverrides;
  /** The application's own tools, registered beside the built-in ones. */
  tools?: readonly Tool[];
  /** The application's agents, registered beside the config's `agents` (see the README's "Agents"). */
  agents?: readonly AgentDefinition[];
  /** Base for the default SQLite file and relative paths; default process.cwd(). */
  cwd?: string;
}

/**
 * Opens dotplan for a Node service that embeds it: the store (migrated), the tool registry, and the
 * use cases; `dotplan.worker().start()` runs ready nodes in-process with the application's tools.
 *
 * ```ts
 * const dotplan = await openDotplan({ config: { databaseUrl: 'file:./plans.db' }, tools: [myTool] });
 * const plan = await dotplan.create({ template: 'approval', values: { item: 'a laptop' } });
 * const worker = dotplan.worker().start();
 * ```
 */
export async function openDotplan(options: OpenDotplanOptions = {}): Promise<Dotplan> {
  checked('openDotplan', { options });
  const config = withDefaults(options.config);
  const cwd = options.cwd ?? process.cwd();
  const tools = await createRegistry({ userModules: config.tools, http: config.http, mcp: config.mcp, cwd });
  for (const [index, tool] of (options.tools ?? []).entries()) tools.register(tool, `openDotplan's tools[${index}]`);
  const agents = buildAgentRegistry(config.agents, tools, options.agents ?? []);
  const store = await openStore({ ...(config.databaseUrl !== undefined ? { url: config.databaseUrl } : {}), cwd, retryDefaults: config.retry });
  return new Dotplan(store, tools, config, cwd, agents);
}

/** The defaults with each given group merged in. */
export function withDefaults(overrides: ConfigOverrides = {}): Config {
  const config = defaultConfig() as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) continue;
    const base = config[key];
    config[key] =
      base !== null && typeof base === 'object' && !Array.isArray(base) && typeof value === 'object' && !Array.isArray(value) ? { ...base, ...value } : value;
  }
  return config as unknown as Config;
}

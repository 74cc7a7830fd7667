import { buildAgentRegistry } from '../agents/registry.js';
import { resolveConfig, type Config } from '../config/index.js';
import { Dotplan } from '../operations/dotplan.js';
import { openStore } from '../store/index.js';
import { createRegistry, type ToolRegistry } from '../tools/registry.js';
import type { CliIO } from './io.js';

/** Flags accepted by every command, anywhere on the line, and the worker's settings flags. */
export interface GlobalFlags {
  db?: string;
  tools?: string[];
  config?: string;
  httpAllow?: string;
  debug?: boolean;
  poll?: string;
  concurrency?: string;
  leaseMs?: string;
  llmSlots?: string;
}

/** What a command needs, built lazily: resolving config is cheap, opening the store is not. */
export interface CliContext {
  readonly config: Config;
  readonly io: CliIO;
  tools(): Promise<ToolRegistry>;
  /**
   * The use cases, on the configured database. Only `create: true` (commands that make plans, the
   * worker) makes a database that does not exist yet; without it a missing SQLite file reads as
   * empty and nothing is created.
   */
  dotplan(options?: { create?: boolean }): Promise<Dotplan>;
  /** A command sets this to exit non-zero without an error (e.g. `validate` on an invalid plan). */
  exitCode: number;
  close(): Promise<void>;
}

export async function createContext(flags: GlobalFlags, io: CliIO): Promise<CliContext> {
  const config = await resolveConfig({
    flags: {
      databaseUrl: flags.db,
      tools: flags.tools,
      configFile: flags.config,
      httpAllow: flags.httpAllow,
      poll: flags.poll,
      concurrency: flags.concurrency,
      leaseMs: flags.leaseMs,
      llmSlots: flags.llmSlots,
    },
    env: io.env,
    cwd: io.cwd,
  });
  let tools: Promise<ToolRegistry> | undefined;
  let dotplan: Promise<Dotplan> | undefined;
  const getTools = () => (tools ??= createRegistry({ userModules: config.tools, http: config.http, cwd: io.cwd }));
  return {
    config,
    io,
    exitCode: 0,
    tools: getTools,
    dotplan: (options = {}) =>
      (dotplan ??= (async () => {
        const registry = await getTools();
        const agents = buildAgentRegistry(config.agents, registry);
        return new Dotplan(
          await openStore({ url: config.databaseUrl, cwd: io.cwd, create: options.create === true, retryDefaults: config.retry }),
          registry,
          config,
          io.cwd,
          agents,
        );
      })()),
    async close() {
      if (dotplan) await (await dotplan.catch(() => undefined))?.close();
    },
  };
}

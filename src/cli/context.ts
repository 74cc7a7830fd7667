import { resolveConfig, type Config } from '../config/index.js';
import type { Dotplan } from '../operations/dotplan.js';
import type { DotplanReads } from '../operations/dotplan-reads.js';
import type { ToolRegistry } from '../tools/registry.js';
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
  host?: string;
  port?: string;
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
  /**
   * The read side only, for commands that change nothing and use no tool (`plan list`, `token list`):
   * the same reads without loading the worker, the LLM client, the notifiers, user tool modules or the
   * MCP client, and without starting an MCP server. Never creates a database.
   */
  reads(): Promise<DotplanReads>;
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
      host: flags.host,
      port: flags.port,
    },
    env: io.env,
    cwd: io.cwd,
  });
  let tools: Promise<ToolRegistry> | undefined;
  let dotplan: Promise<Dotplan> | undefined;
  let reads: Promise<DotplanReads> | undefined;
  const getTools = () =>
    (tools ??= import('../tools/registry.js').then(({ createRegistry }) =>
      createRegistry({ userModules: config.tools, http: config.http, mcp: config.mcp, cwd: io.cwd }),
    ));
  // Loaded here, not above: a command that needs no database (validate, render) does not load its client.
  const store = async (create: boolean) =>
    (await import('../store/index.js')).openStore({ url: config.databaseUrl, cwd: io.cwd, create, retryDefaults: config.retry });
  const parts = async (create: boolean) => {
    const [{ buildAgentRegistry }, registry] = await Promise.all([import('../agents/registry.js'), getTools()]);
    const agents = buildAgentRegistry(config.agents, registry);
    return [await store(create), registry, config, io.cwd, agents] as const;
  };
  // The read side's commands use no tool: the built-in ones only — no user module is loaded, no MCP server started or its client loaded.
  const readParts = async () => {
    const { createRegistry } = await import('../tools/registry.js');
    return [await store(false), await createRegistry({ http: config.http }), config, io.cwd] as const;
  };
  return {
    config,
    io,
    exitCode: 0,
    tools: getTools,
    dotplan: (options = {}) =>
      (dotplan ??= Promise.all([import('../operations/dotplan.js'), parts(options.create === true)]).then(([{ Dotplan }, args]) => new Dotplan(...args))),
    reads: () =>
      dotplan ?? (reads ??= Promise.all([import('../operations/dotplan-reads.js'), readParts()]).then(([{ DotplanReads }, args]) => new DotplanReads(...args))),
    async close() {
      if (dotplan) await (await dotplan.catch(() => undefined))?.close();
      if (reads) await (await reads.catch(() => undefined))?.store.close();
    },
  };
}

import { resolveConfig, type Config } from '../config/index.js';
import { openStore } from '../store/index.js';
import type { Store } from '../store/index.js';
import { createRegistry, type ToolRegistry } from '../tools/registry.js';
import type { CliIO } from './io.js';

/** Flags accepted by every command, anywhere on the line. */
export interface GlobalFlags {
  db?: string;
  tools?: string[];
  config?: string;
  httpAllow?: string;
  debug?: boolean;
}

/** What a command needs, built lazily: resolving config is cheap, opening the store is not. */
export interface CliContext {
  readonly config: Config;
  readonly io: CliIO;
  tools(): Promise<ToolRegistry>;
  store(): Promise<Store>;
  /** A command sets this to exit non-zero without an error (e.g. `validate` on an invalid plan). */
  exitCode: number;
  close(): Promise<void>;
}

export async function createContext(flags: GlobalFlags, io: CliIO): Promise<CliContext> {
  const config = await resolveConfig({
    flags: { databaseUrl: flags.db, tools: flags.tools, configFile: flags.config, httpAllow: flags.httpAllow },
    env: process.env,
    cwd: process.cwd(),
  });
  let tools: Promise<ToolRegistry> | undefined;
  let store: Promise<Store> | undefined;
  return {
    config,
    io,
    exitCode: 0,
    tools: () => (tools ??= createRegistry({ userModules: config.tools, http: config.http, cwd: process.cwd() })),
    store: () => (store ??= openStore({ url: config.databaseUrl, cwd: process.cwd() })),
    async close() {
      if (store) await (await store.catch(() => undefined))?.close();
    },
  };
}

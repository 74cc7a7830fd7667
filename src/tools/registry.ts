import { DotplanError } from '../errors/errors.js';
import { builtinTools } from './builtin/index.js';
import type { HttpAccess } from './builtin/http-guard.js';
import { loadUserTools } from './load-user-tools.js';
import type { Tool, ToolCatalogue } from './types.js';

/** Where a tool came from, named when two tools claim one code. */
export const BUILTIN_SOURCE = 'built-in';

/** The tools known to validation and to the worker: built-ins first, then user modules. */
export class ToolRegistry implements ToolCatalogue {
  readonly #tools = new Map<string, { tool: Tool; source: string }>();

  /** Adds a tool; a code that is already taken is an error naming both sources. */
  register(tool: Tool, source = 'registered in code'): this {
    const existing = this.#tools.get(tool.code);
    if (existing) {
      throw new DotplanError('CONFIG', `tool "${tool.code}" from ${source} has the same code as the tool from ${existing.source}; rename one of them`);
    }
    this.#tools.set(tool.code, { tool, source });
    return this;
  }

  has(code: string): boolean {
    return this.#tools.has(code);
  }

  get(code: string): Tool | undefined {
    return this.#tools.get(code)?.tool;
  }

  list(): Tool[] {
    return [...this.#tools.values()].map((entry) => entry.tool);
  }

  /** `built-in` or the module path a tool was loaded from. */
  sourceOf(code: string): string | undefined {
    return this.#tools.get(code)?.source;
  }
}

export interface RegistryOptions {
  /** User tool modules (paths relative to `cwd` or absolute), loaded in order. */
  userModules?: readonly string[];
  http?: HttpAccess;
  cwd?: string;
}

/** A registry with the built-in tools and those of the given user modules. */
export async function createRegistry(options: RegistryOptions = {}): Promise<ToolRegistry> {
  const registry = new ToolRegistry();
  for (const tool of builtinTools({ http: options.http })) registry.register(tool, BUILTIN_SOURCE);
  for (const module of await loadUserTools(options.userModules ?? [], options.cwd)) {
    for (const tool of module.tools) registry.register(tool, module.path);
  }
  return registry;
}

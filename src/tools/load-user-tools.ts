import { stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DotplanError } from '../errors/errors.js';
import { describeIssue } from '../errors/describe-issue.js';
import { toolSchema } from './tool-schema.js';
import type { Tool } from './types.js';

/** Tools loaded from one user module (`--tools`, `DOTPLAN_TOOLS`, the config file's `tools`). */
export interface UserToolModule {
  /** The path as given. */
  path: string;
  tools: Tool[];
}

const TYPESCRIPT = /\.(?:ts|mts|cts|tsx)$/i;

/** Loads each module in order; paths are relative to `cwd` unless absolute. */
export async function loadUserTools(paths: readonly string[], cwd = process.cwd()): Promise<UserToolModule[]> {
  const modules: UserToolModule[] = [];
  for (const path of paths) modules.push({ path, tools: await loadToolModule(path, cwd) });
  return modules;
}

/**
 * Imports one module whose default export (or `export const tools`) is an array of tools. `.mjs`/`.js`
 * load with Node's `import()`; `.ts`/`.mts` through tsx, so no build step is needed.
 */
export async function loadToolModule(path: string, cwd = process.cwd()): Promise<Tool[]> {
  const absolute = isAbsolute(path) ? path : resolve(cwd, path);
  const info = await stat(absolute).catch(() => undefined);
  if (!info?.isFile()) {
    throw new DotplanError('CONFIG', `tools module "${path}" not found (looked for ${absolute})`);
  }
  const url = pathToFileURL(absolute).href;
  let exports: Record<string, unknown>;
  try {
    if (TYPESCRIPT.test(absolute)) {
      const { tsImport } = await import('tsx/esm/api');
      exports = (await tsImport(url, import.meta.url)) as Record<string, unknown>;
    } else {
      exports = (await import(url)) as Record<string, unknown>;
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new DotplanError('CONFIG', `tools module "${path}" could not be loaded: ${message}`, { cause: error });
  }
  return checkTools(path, pickExport(path, exports));
}

function pickExport(path: string, exports: Record<string, unknown>): unknown[] {
  // tsx may wrap a CommonJS-looking module: { default: { default: [...] } }.
  const candidates = [
    exports.default,
    exports.tools,
    (exports.default as { default?: unknown } | undefined)?.default,
    (exports.default as { tools?: unknown } | undefined)?.tools,
  ];
  const found = candidates.find((value) => Array.isArray(value));
  if (!found) {
    throw new DotplanError(
      'CONFIG',
      `tools module "${path}" exports no array of tools: write \`export default [tool, ...]\` or \`export const tools = [tool, ...]\``,
    );
  }
  return found as unknown[];
}

function checkTools(path: string, values: unknown[]): Tool[] {
  return values.map((value, index) => {
    const where = `tools module "${path}", tool #${index}`;
    if (value === null || typeof value !== 'object') {
      throw new DotplanError('CONFIG', `${where} is ${value === null ? 'null' : typeof value}, not a tool object { code, run }`);
    }
    const checked = toolSchema.safeParse(value, { error: describeIssue, reportInput: true });
    if (!checked.success) {
      const issue = checked.error.issues[0]!;
      const code = (value as { code?: unknown }).code;
      const named = issue.path[0] !== 'code' && typeof code === 'string' ? `${where} ("${code}")` : where;
      throw new DotplanError('CONFIG', `${named}: "${issue.path.join('.')}" ${issue.message}`);
    }
    return value as Tool;
  });
}

import type { Command } from 'commander';
import { UsageError } from '../../errors/errors.js';
import { formatTable, printJson } from '../io.js';
import type { GetContext } from './index.js';

/**
 * `dotplan mcp tools`: the tools of the configured MCP servers, as plans call them
 * (`mcp:<server>/<tool>`), from the cache `validate` and the LLM's prompt read; `--refresh` lists
 * them again from the servers (started for it, then stopped).
 */
export function registerMcpToolsCommand(mcp: Command, getContext: GetContext): void {
  mcp
    .command('tools')
    .description('list the tools of the configured MCP servers (from the cache; --refresh asks the servers again)')
    .option('--server <name>', 'only this server, with each tool’s input schema')
    .option('--refresh', 'list the tools from the servers again, and update the cache')
    .option('--json', 'print [{server, code, name, description, inputSchema}]')
    .action(async (opts: { server?: string; refresh?: boolean; json?: boolean }, command: Command) => {
      const ctx = await getContext(command);
      const servers = ctx.config.mcp;
      const names = Object.keys(servers);
      if (opts.server !== undefined && !names.includes(opts.server)) {
        throw new UsageError(
          names.length === 0
            ? `no MCP server is configured: add one under "mcp" in the config file (see the README's "Tools from MCP servers")`
            : `no MCP server "${opts.server}" is configured; configured: ${names.join(', ')}`,
        );
      }
      if (names.length === 0) {
        if (opts.json) printJson(ctx.io, []);
        else ctx.io.err('no MCP server is configured: add one under "mcp" in the config file (see the README\'s "Tools from MCP servers")');
        return;
      }
      const { McpCatalogue } = await import('../../mcp/catalogue.js');
      const { mcpToolCode, unlistedServerFix } = await import('../../mcp/tool-codes.js');
      const shown = opts.server !== undefined ? [opts.server] : names;
      const catalogue = await McpCatalogue.load(servers, { cwd: ctx.io.cwd, refresh: opts.refresh === true ? shown : false });
      const rows = shown.flatMap((server) =>
        (catalogue.server(server)?.tools ?? []).map((tool) => ({ server, code: mcpToolCode(server, tool.name), ...tool })),
      );
      if (opts.json) {
        printJson(ctx.io, rows);
        return;
      }
      if (opts.server !== undefined) {
        for (const row of rows) ctx.io.out(`${row.code}\n  ${row.description ?? '(no description)'}\n  input: ${describeSchema(row.inputSchema)}`);
      } else {
        ctx.io.out(formatTable([['TOOL', 'DESCRIPTION'], ...rows.map((r) => [r.code, firstLine(r.description ?? '')])]));
      }
      for (const server of shown) {
        const entry = catalogue.server(server);
        ctx.io.err(`${server}: ${entry?.tools.length ?? 0} tool(s), listed ${entry?.listedAt ?? 'never'}`);
      }
      // A server that could not be listed now: the command says why and fails (what it shows of it is the cache's, if any).
      for (const server of shown) {
        const why = catalogue.failed.get(server);
        if (why === undefined) continue;
        ctx.io.err(`error: ${why}; ${unlistedServerFix(server, 'run `dotplan mcp tools --refresh`')}`);
        ctx.exitCode = 1;
      }
    });
}

/** An object schema's fields as `name (type, required), …`; anything else as JSON. */
function describeSchema(schema: Record<string, unknown>): string {
  const properties = schema.properties as Record<string, { type?: unknown; description?: unknown }> | undefined;
  if (schema.type !== 'object' || !properties) return JSON.stringify(schema);
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const fields = Object.entries(properties).map(([name, p]) => {
    const type = typeof p.type === 'string' ? p.type : Array.isArray(p.type) ? p.type.join('|') : 'any';
    return `${name} (${type}${required.has(name) ? ', required' : ''})${typeof p.description === 'string' ? `: ${p.description}` : ''}`;
  });
  return fields.length > 0 ? fields.join('; ') : '(no arguments)';
}

function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}

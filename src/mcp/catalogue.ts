import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { connectMcp, type McpToolInfo } from './connect.js';
import { serverFingerprint, type McpServerConfig } from './servers.js';

/** Where the tools of the configured MCP servers are cached, under the working directory. */
export const MCP_CATALOGUE_PATH = '.dotplan/mcp-tools.json';

/** One server's cached tools, for the settings whose fingerprint it holds. */
export interface CachedServer {
  fingerprint: string;
  /** When its tools were last listed (ISO 8601). */
  listedAt: string;
  tools: McpToolInfo[];
}

/** A server's last listing that failed, for the settings whose fingerprint it holds. */
interface FailedListing {
  fingerprint: string;
  /** When (ISO 8601). */
  at: string;
  reason: string;
}

interface CatalogueFile {
  version: 1;
  servers: Record<string, CachedServer>;
  /** Listings that failed lately: not tried again by every command (each try may wait for a connect timeout). */
  failures?: Record<string, FailedListing>;
}

/** How long a failed listing stands before a command that needs the list tries again (a refresh tries at once). */
export const RETRY_LISTING_AFTER_MS = 60_000;

/**
 * The tools of the configured MCP servers, cached in a file so that `validate`, the LLM's prompt and
 * the agents' checks know each tool's name, description and input schema without starting servers.
 * A server is listed (started, asked, stopped) when it has no entry yet, when its settings changed
 * since, or when a refresh asks for it; a running worker's connection updates the entry when the
 * server announces that its tools changed.
 */
export class McpCatalogue {
  /** Servers that were to be listed and could not be (not started, not reached, no answer): why, by server. */
  readonly failed = new Map<string, string>();

  private constructor(
    readonly path: string,
    private readonly file: CatalogueFile,
  ) {}

  /**
   * Reads the cache and lists the servers it lacks (or all of `refresh`: `true` for every server). A
   * server that cannot be listed is named in `failed` with the reason and keeps its entry only if that
   * was listed with its present settings (a refresh that failed): without one it has no tools here,
   * and what needs them says why (ToolRegistry.unavailable) while nothing else stops. The failure is
   * kept for RETRY_LISTING_AFTER_MS: the commands meanwhile report it without starting or reaching the
   * server again (one whose address drops packets costs each try the 30 s connect timeout).
   */
  static async load(
    servers: Readonly<Record<string, McpServerConfig>>,
    options: { cwd: string; refresh?: boolean | readonly string[] },
  ): Promise<McpCatalogue> {
    const path = resolve(options.cwd, MCP_CATALOGUE_PATH);
    const catalogue = new McpCatalogue(path, await readCatalogue(path));
    const configured = Object.entries(servers).map(([name, server]) => ({ name, server, fingerprint: serverFingerprint(server) }));
    const stale = configured.filter(({ name, fingerprint }) => {
      const wanted = options.refresh === true || (Array.isArray(options.refresh) && options.refresh.includes(name));
      if (wanted) return true;
      if (catalogue.file.servers[name]?.fingerprint === fingerprint) return false;
      // A listing of these settings that failed within the last minute stands: the command goes on without trying again.
      const failure = catalogue.file.failures?.[name];
      if (failure?.fingerprint === fingerprint && Date.now() - Date.parse(failure.at) < RETRY_LISTING_AFTER_MS) {
        catalogue.failed.set(name, `${failure.reason} (at ${failure.at}; tried again a minute later, or now by \`dotplan mcp tools --refresh\`)`);
        return false;
      }
      return true;
    });
    if (stale.length === 0) return catalogue;
    const failures = (catalogue.file.failures ??= {});
    const listed = await Promise.allSettled(stale.map(({ name, server }) => listTools(name, server, options.cwd)));
    for (const [i, { name, fingerprint }] of stale.entries()) {
      const outcome = listed[i]!;
      if (outcome.status === 'fulfilled') {
        catalogue.file.servers[name] = entry(fingerprint, outcome.value);
        delete failures[name];
        continue;
      }
      if (catalogue.file.servers[name]?.fingerprint !== fingerprint) delete catalogue.file.servers[name];
      const reason = outcome.reason instanceof Error ? outcome.reason.message : String(outcome.reason);
      failures[name] = { fingerprint, at: new Date().toISOString(), reason };
      catalogue.failed.set(name, reason);
    }
    await catalogue.save();
    return catalogue;
  }

  /** A server's cached entry. */
  server(name: string): CachedServer | undefined {
    return this.file.servers[name];
  }

  /** Records a server's tools as it now lists them, and saves the cache. */
  async update(name: string, server: McpServerConfig, tools: McpToolInfo[]): Promise<void> {
    this.file.servers[name] = entry(serverFingerprint(server), tools);
    delete this.file.failures?.[name];
    await this.save();
  }

  private async save(): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true });
    // Written whole then renamed: a reader never sees half a file.
    const temporary = `${this.path}.${process.pid}.tmp`;
    await writeFile(temporary, `${JSON.stringify(this.file, null, 2)}\n`);
    await rename(temporary, this.path);
  }
}

function entry(fingerprint: string, tools: McpToolInfo[]): CachedServer {
  return { fingerprint, listedAt: new Date().toISOString(), tools };
}

async function listTools(name: string, server: McpServerConfig, cwd: string): Promise<McpToolInfo[]> {
  const session = await connectMcp(name, server, { cwd });
  try {
    return await session.listTools();
  } finally {
    await session.close();
  }
}

/** The cache file's content; a missing or unreadable file is an empty cache (it is rebuilt). */
async function readCatalogue(path: string): Promise<CatalogueFile> {
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as Partial<CatalogueFile>;
    if (parsed.version === 1 && parsed.servers !== null && typeof parsed.servers === 'object') {
      const failures = parsed.failures !== null && typeof parsed.failures === 'object' ? { failures: parsed.failures } : {};
      return { version: 1, servers: parsed.servers, ...failures };
    }
  } catch {
    // no cache yet, or not one this version wrote: listed again
  }
  return { version: 1, servers: {} };
}

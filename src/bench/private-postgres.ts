/**
 * A PostgreSQL server of our own — a throw-away data directory under the temp folder, its own port on
 * 127.0.0.1, its socket in that directory — that a test may stop and start at will (a database outage)
 * and a measurement may configure (bench/step-costs.mjs: pg_stat_statements), without touching the
 * shared server on port 5432. As root (these machines), `initdb` and `pg_ctl` run as the `postgres`
 * OS user, which owns the directory: PostgreSQL refuses root.
 */
import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Where Debian's PostgreSQL 15 binaries are (override with PG_BIN). */
export const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';

export interface PrivatePostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust authentication). */
  readonly url: string;
  readonly port: number;
  /** Starts the server (unless it runs) and resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops the server (`fast`: connections are cut, running transactions rolled back; `immediate`: no clean shutdown). */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  /** The server's log so far (for a failing test's message). */
  log(): string;
  /** `postgres (PostgreSQL) 15.x …`. */
  version(): Promise<string>;
  /** Stops the server if it runs and deletes its directory. */
  destroy(): Promise<void>;
}

/** Whether this machine has the binaries to run a private server. */
export function privatePostgresAvailable(): boolean {
  return existsSync(join(PG_BIN, 'initdb')) && existsSync(join(PG_BIN, 'pg_ctl'));
}

/** Makes a fresh cluster in a temp directory and starts it on a free port; `settings`: more `-c name=value` server settings. */
export async function startPrivatePostgres(settings: Readonly<Record<string, string>> = {}): Promise<PrivatePostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'dotplan-pg-'));
  const data = join(dir, 'data');
  const logFile = join(dir, 'server.log');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: group } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(group.trim()));
  }
  /** Runs a PostgreSQL binary, as the postgres user when this process is root. */
  const pg = (binary: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(PG_BIN, binary), ...args], { cwd: dir }) : run(join(PG_BIN, binary), args, { cwd: dir });
  await pg('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const port = await freePort();
  // Durable as a real server: an immediate stop must not forget a commit it acknowledged (no synchronous_commit=off).
  const options = [`-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`, ...Object.entries(settings).map(([name, value]) => `-c ${name}=${value}`)].join(' ');
  let running = false;
  const server: PrivatePostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async start() {
      if (running) return;
      await pg('pg_ctl', ['-D', data, '-l', logFile, '-o', options, '-w', '-t', '60', 'start']);
      running = true;
    },
    async stop(mode = 'fast') {
      await pg('pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '60', 'stop']);
      running = false;
    },
    log: () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''),
    version: async () => (await pg('postgres', ['--version'])).stdout.trim(),
    async destroy() {
      if (running) await server.stop('immediate').catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await server.start();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return server;
}

/** A TCP port nothing listens on right now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

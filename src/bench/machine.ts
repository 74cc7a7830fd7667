import os from 'node:os';
import pg from 'pg';

/** What the figures were taken on, for the table's header line and the README. */
export interface MachineFacts {
  cpu: string;
  cores: number;
  memoryGiB: number;
  node: string;
  platform: string;
  postgres?: string;
}

export function machineFacts(postgres?: string): MachineFacts {
  const cpus = os.cpus();
  return {
    cpu: (cpus[0]?.model ?? 'unknown CPU').replace(/\s+/g, ' ').trim(),
    cores: cpus.length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    ...(postgres !== undefined ? { postgres } : {}),
  };
}

/** One line, e.g. `Intel Xeon … · 2 cores · 7.8 GiB · Node v20.20.0 · linux x64 · PostgreSQL 15.8`. */
export function describeMachine(facts: MachineFacts = machineFacts()): string {
  const parts = [facts.cpu, `${facts.cores} ${facts.cores === 1 ? 'core' : 'cores'}`, `${facts.memoryGiB} GiB`, `Node ${facts.node}`, facts.platform];
  if (facts.postgres !== undefined) parts.push(`PostgreSQL ${facts.postgres}`);
  return parts.join(' · ');
}

/** The server version (`SHOW server_version`), or undefined when the database cannot be reached. */
export async function postgresVersion(connectionString: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString });
  try {
    await client.connect();
    const res = await client.query<{ server_version: string }>('SHOW server_version');
    return res.rows[0]?.server_version.split(' ')[0];
  } catch {
    return undefined;
  } finally {
    await client.end().catch(() => {});
  }
}

import type { TokenScope } from '../../model/token-scopes.js';
import type { Db } from './executor.js';

/**
 * The API tokens of `dotplan serve` (migration 0014): one row per token made, live until revoked.
 * A row holds the SHA-256 of the secret (hex), never the secret; a request's token is looked up by
 * that hash (unique-indexed). Revoking keeps the row, with `revoked_at` set: such a row is never
 * listed or verified again, and its name may be given to a new token (the name's unique index is
 * partial: live tokens only). Times are epoch milliseconds of the database clock, as in every table.
 */

/** An API token as listed: never its secret (which is not stored) nor its hash. */
export interface TokenRecord {
  /** 1–64 of `A-Z a-z 0-9 . _ -`, unique among the live tokens. */
  name: string;
  scope: TokenScope;
  /** Who made it: the OS user of `dotplan token create`, or the `by` given. */
  createdBy: string;
  createdAt: Date;
  /** When a request last used it (recorded at most once a minute); null if none has. */
  lastUsedAt: Date | null;
}

/** A token's last use is written when the one recorded is at least this old: a busy client does not write on every request. */
export const LAST_USE_EVERY_MS = 60_000;

export interface TokenStore {
  /** Stores a live token; undefined when a live token has that name already (nothing written). */
  insert(token: { name: string; scope: TokenScope; createdBy: string; secretSha256: string }): Promise<TokenRecord | undefined>;
  /** The live tokens, by name. */
  live(): Promise<TokenRecord[]>;
  /** Revokes the live token of that name; undefined when there is none. */
  revoke(name: string): Promise<TokenRecord | undefined>;
  /** The live token whose secret has this hash, with its use recorded (at most once per LAST_USE_EVERY_MS); undefined when none has. */
  use(secretSha256: string): Promise<TokenRecord | undefined>;
  /** Whether any token is live. */
  anyLive(): Promise<boolean>;
}

const COLUMNS = `name, scope, created_by AS "createdBy", created_at AS "createdAt", last_used_at AS "lastUsedAt"`;

interface TokenRow {
  name: string;
  scope: string;
  createdBy: string;
  createdAt: number;
  lastUsedAt: number | null;
}

/** Unique violations (SQLite; PostgreSQL's 23505) of the live names' index: another create of the same name committed first. */
function isLiveNameTaken(error: unknown): boolean {
  const { code, constraint, message } = (error ?? {}) as { code?: unknown; constraint?: unknown; message?: unknown };
  if (code === '23505') return constraint === 'tokens_name_key';
  return code === 'SQLITE_CONSTRAINT_UNIQUE' && typeof message === 'string' && message.includes('tokens.name');
}

export class SqlTokenStore implements TokenStore {
  constructor(private readonly db: Db) {}

  async insert(token: { name: string; scope: TokenScope; createdBy: string; secretSha256: string }): Promise<TokenRecord | undefined> {
    try {
      return await this.db.tx(async (q) => {
        const taken = await q.all(`SELECT 1 FROM tokens WHERE name = ? AND revoked_at IS NULL`, [token.name]);
        if (taken.length > 0) return undefined;
        const [row] = await q.all<TokenRow>(
          `INSERT INTO tokens (name, scope, secret_sha256, created_by, created_at) VALUES (?, ?, ?, ?, NOW) RETURNING ${COLUMNS}`,
          [token.name, token.scope, token.secretSha256, token.createdBy],
        );
        return record(row!);
      });
    } catch (error) {
      // PostgreSQL: a create of the same name committed between the check and the insert.
      if (isLiveNameTaken(error)) return undefined;
      throw error;
    }
  }

  async live(): Promise<TokenRecord[]> {
    const rows = await this.db.all<TokenRow>(`SELECT ${COLUMNS} FROM tokens WHERE revoked_at IS NULL ORDER BY name`);
    return rows.map(record);
  }

  async revoke(name: string): Promise<TokenRecord | undefined> {
    const [row] = await this.db.all<TokenRow>(`UPDATE tokens SET revoked_at = NOW WHERE name = ? AND revoked_at IS NULL RETURNING ${COLUMNS}`, [name]);
    return row ? record(row) : undefined;
  }

  /**
   * A read, and a write only when the last use recorded is a minute old or more: a client that sends
   * many requests costs one write a minute, not one each. The write's own condition makes requests
   * that read the same old time together write it once.
   */
  async use(secretSha256: string): Promise<TokenRecord | undefined> {
    const stale = `(last_used_at IS NULL OR last_used_at <= NOW - ${LAST_USE_EVERY_MS})`;
    const [row] = await this.db.all<TokenRow & { id: number; stale: unknown }>(
      `SELECT id, ${COLUMNS}, CASE WHEN ${stale} THEN 1 ELSE 0 END AS "stale" FROM tokens WHERE secret_sha256 = ? AND revoked_at IS NULL`,
      [secretSha256],
    );
    if (!row) return undefined;
    if (Number(row.stale) !== 1) return record(row);
    const [used] = await this.db.all<{ lastUsedAt: number }>(
      `UPDATE tokens SET last_used_at = NOW WHERE id = ? AND revoked_at IS NULL AND ${stale} RETURNING last_used_at AS "lastUsedAt"`,
      [row.id],
    );
    return record(used ? { ...row, lastUsedAt: used.lastUsedAt } : row);
  }

  async anyLive(): Promise<boolean> {
    return (await this.db.all(`SELECT 1 FROM tokens WHERE revoked_at IS NULL LIMIT 1`)).length > 0;
  }
}

/** A row as read: times in epoch milliseconds. */
function record(row: TokenRow): TokenRecord {
  return {
    name: row.name,
    scope: row.scope as TokenScope,
    createdBy: row.createdBy,
    createdAt: new Date(Number(row.createdAt)),
    lastUsedAt: row.lastUsedAt === null ? null : new Date(Number(row.lastUsedAt)),
  };
}

import type { TokenScope } from '../model/token-scopes.js';
import type { Db } from './sql/executor.js';

/**
 * Browser sessions of `dotplan serve` (migration 0014): a login exchanges a live token for a session
 * whose random id is the cookie; only the id's SHA-256 is stored, with the token it stands for and the
 * CSRF value. A session is valid while it has not expired and its token is live: revoking a token ends
 * its sessions at once.
 */
export interface SessionRecord {
  name: string;
  scope: TokenScope;
  csrf: string;
}

export interface Sessions {
  /** Opens a session for the live token with this secret hash; false when there is none. */
  open(session: { idSha256: string; secretSha256: string; csrf: string; ttlMs: number }): Promise<boolean>;
  /** The session's token and CSRF value, if it is valid. */
  find(idSha256: string): Promise<SessionRecord | undefined>;
  close(idSha256: string): Promise<void>;
}

export class SqlSessions implements Sessions {
  constructor(private readonly db: Db) {}

  async open(session: { idSha256: string; secretSha256: string; csrf: string; ttlMs: number }): Promise<boolean> {
    return this.db.tx(async (q) => {
      await q.run(`DELETE FROM sessions WHERE expires_at < NOW`);
      const opened = await q.run(
        `INSERT INTO sessions (id_sha256, token_id, csrf, created_at, expires_at) ` +
          `SELECT ?, id, ?, NOW, NOW + ${Math.floor(session.ttlMs)} FROM tokens WHERE secret_sha256 = ? AND revoked_at IS NULL`,
        [session.idSha256, session.csrf, session.secretSha256],
      );
      return opened === 1;
    });
  }

  async find(idSha256: string): Promise<SessionRecord | undefined> {
    const [row] = await this.db.all<{ name: string; scope: string; csrf: string }>(
      `SELECT t.name, t.scope, s.csrf FROM sessions s JOIN tokens t ON t.id = s.token_id ` +
        `WHERE s.id_sha256 = ? AND s.expires_at > NOW AND t.revoked_at IS NULL`,
      [idSha256],
    );
    return row ? { name: row.name, scope: row.scope as TokenScope, csrf: row.csrf } : undefined;
  }

  async close(idSha256: string): Promise<void> {
    await this.db.run(`DELETE FROM sessions WHERE id_sha256 = ?`, [idSha256]);
  }
}

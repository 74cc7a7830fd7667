import { createHash, randomBytes } from 'node:crypto';
import { ConflictError, NotFoundError } from '../errors/errors.js';
import { commandLine } from '../model/command-line.js';
import type { TokenScope } from '../model/token-scopes.js';
import type { TokenRecord } from '../store/sql/tokens.js';
import type { Store } from '../store/types.js';
import { closest } from '../validate/suggest.js';
import { defaultActor } from './actor.js';
import { checked } from './arguments.js';

export { TOKEN_SCOPES, scopeAllows, type TokenScope } from '../model/token-scopes.js';
export type { TokenRecord } from '../store/sql/tokens.js';

/** A secret as {@link DotplanTokens.create} makes it: `dp_` and 32 random bytes in base64url (43 characters). */
const SECRET_FORM = /^dp_[A-Za-z0-9_-]{43}$/;

/** The SHA-256 of a secret, hex: what is stored and looked up instead of the secret. */
function secretHash(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/**
 * The API tokens of `dotplan serve`: each has a name, a scope ({@link TOKEN_SCOPES}) and a secret that
 * is shown once, when it is made, and never stored (only its SHA-256 is). A request's token is
 * {@link DotplanTokens.verify | verified} by that hash; a revoked token never verifies again.
 */
export class DotplanTokens {
  /** @internal {@link DotplanReads.tokens} makes it. */
  constructor(private readonly store: Store) {}

  /**
   * Makes a token and returns its secret — the only time it can be read. `by` (default: the OS user)
   * is recorded as who made it. A live token of the same name is a `ConflictError` (`TOKEN_EXISTS`).
   */
  async create(input: { name: string; scope: TokenScope; by?: string }): Promise<{ secret: string; token: TokenRecord }> {
    checked('tokens.create', { input });
    const secret = `dp_${randomBytes(32).toString('base64url')}`;
    const token = await this.store.tokens.insert({
      name: input.name,
      scope: input.scope,
      createdBy: input.by ?? defaultActor(),
      secretSha256: secretHash(secret),
    });
    if (!token)
      throw new ConflictError(
        `an API token named "${input.name}" exists already: choose another name, or revoke it first with \`${commandLine('dotplan', 'token', 'revoke', input.name)}\``,
        { code: 'TOKEN_EXISTS' },
      );
    return { secret, token };
  }

  /** The live (not revoked) tokens, by name. */
  list(): Promise<TokenRecord[]> {
    return this.store.tokens.live();
  }

  /**
   * Revokes a token: it never verifies again and is no longer listed (its row is kept); its name may
   * be given to a new token. A name no live token has is a `NotFoundError` (`TOKEN_NOT_FOUND`).
   */
  async revoke(name: string): Promise<TokenRecord> {
    checked('tokens.revoke', { name });
    const revoked = await this.store.tokens.revoke(name);
    if (revoked) return revoked;
    const near = closest(
      name,
      (await this.store.tokens.live()).map((t) => t.name),
    );
    throw new NotFoundError(
      `no live API token is named "${name}"${near !== undefined ? ` (did you mean "${near}"?)` : ''}; list the live ones with \`dotplan token list\``,
      { code: 'TOKEN_NOT_FOUND' },
    );
  }

  /**
   * The live token whose secret this is, or undefined (a revoked token's, a wrong or malformed secret).
   * Looked up by the secret's SHA-256, never compared as text. Records the token's last use, at most
   * once a minute.
   */
  async verify(secret: string): Promise<TokenRecord | undefined> {
    checked('tokens.verify', { secret });
    if (!SECRET_FORM.test(secret)) return undefined;
    return this.store.tokens.use(secretHash(secret));
  }

  /** Whether any live token exists: the server refuses to listen beyond loopback while none does. */
  exists(): Promise<boolean> {
    return this.store.tokens.anyLive();
  }
}

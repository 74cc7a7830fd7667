/**
 * What an API token of `dotplan serve` may do, least first; each scope allows what the ones before it
 * allow: `read` plans and events, `answer` questions and reviews, `operate` plans (create, retry,
 * skip, cancel, edit), `admin` everything, tokens included.
 */
export const TOKEN_SCOPES = ['read', 'answer', 'operate', 'admin'] as const;
/** One of {@link TOKEN_SCOPES}. */
export type TokenScope = (typeof TOKEN_SCOPES)[number];

/** Whether a token of scope `held` may do what needs `needed`: `held` is `needed` or comes after it in {@link TOKEN_SCOPES}. */
export function scopeAllows(held: TokenScope, needed: TokenScope): boolean {
  return TOKEN_SCOPES.indexOf(held) >= TOKEN_SCOPES.indexOf(needed);
}

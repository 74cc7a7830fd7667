import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import type { Dotplan } from '../operations/dotplan.js';
import type { SessionRecord } from '../store/sessions.js';

/** The browser session's cookie and CSRF header (session.ts logs in and out; auth.ts checks them). */
export const SESSION_COOKIE = 'dotplan_session';
export const CSRF_HEADER = 'x-csrf-token';
export const SESSION_TTL_MS = 12 * 3_600_000;

export const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** The session a request's cookie stands for: null without the cookie, undefined when it is no longer valid (logged out, expired, its token revoked). */
export async function sessionOf(c: Context, dotplan: Dotplan): Promise<SessionRecord | undefined | null> {
  const id = getCookie(c, SESSION_COOKIE);
  if (id === undefined) return null;
  return dotplan.store.sessions.find(sha256(id));
}

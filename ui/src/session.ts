/**
 * Who the browser is. `GET /v1/session` answers the name, scope and CSRF value of the cookie's session
 * (or of the local user while the server has no tokens); a 401 asks for a login, which exchanges a
 * token for an HttpOnly cookie. A server without session routes (404) is treated as local mode.
 */
import { signal } from '@preact/signals';
import { api, ApiError, setCsrf, whenUnauthorized } from './api.js';
import type { Session } from './types.js';

/** `undefined` while it is being asked; `null` when a login is needed. */
export const session = signal<Session | null | undefined>(undefined);

whenUnauthorized(() => {
  session.value = null;
});

const LOCAL: Session = { name: 'local', scope: 'operate', local: true, csrf: '' };

function use(value: Session): void {
  setCsrf(value.csrf);
  session.value = value;
}

export async function loadSession(): Promise<void> {
  try {
    use(await api.get<Session>('/v1/session'));
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return use(LOCAL);
    if (error instanceof ApiError && error.status === 401) {
      session.value = null;
      return;
    }
    throw error;
  }
}

export async function login(token: string): Promise<void> {
  use(await api.post<Session>('/v1/session', { token }));
}

/**
 * Log out. The pages go first (their streams close, their pending reads are dropped), so nothing
 * they would still read meets the ended session with a 401; then the server ends it.
 */
export async function logout(): Promise<void> {
  session.value = null;
  try {
    await api.post('/v1/session/logout');
  } finally {
    setCsrf('');
  }
}

/** Whether the session's scope allows a driver's moves: read < answer < operate < admin. */
export function can(scope: 'read' | 'answer' | 'operate' | 'admin'): boolean {
  const order = ['read', 'answer', 'operate', 'admin'];
  return order.indexOf(session.value?.scope ?? 'read') >= order.indexOf(scope);
}

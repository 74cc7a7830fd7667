/**
 * Hash routing: `#/plans/<id>?node=x` and the like. The route is a signal; links are plain `<a href>`s
 * made with {@link href}, so every page can be opened, bookmarked and reached with the keyboard.
 */
import { signal } from '@preact/signals';

export interface Route {
  /** Path segments, decoded: `['plans', 'p_1', 'edit']`. */
  parts: string[];
  query: URLSearchParams;
}

function parse(hash: string): Route {
  const text = hash.replace(/^#/, '');
  const [path = '', search = ''] = text.split('?', 2);
  const parts = path
    .split('/')
    .filter((p) => p !== '')
    .map((p) => decodeURIComponent(p));
  return { parts, query: new URLSearchParams(search) };
}

export const route = signal<Route>(parse(location.hash));

window.addEventListener('hashchange', () => {
  route.value = parse(location.hash);
});

/** The href of a page: `href('plans', id)` → `#/plans/<id>`; query values left undefined are dropped. */
export function href(...parts: Array<string | Record<string, string | undefined>>): string {
  const query = new URLSearchParams();
  const path: string[] = [];
  for (const part of parts) {
    if (typeof part === 'string') path.push(encodeURIComponent(part));
    else for (const [k, v] of Object.entries(part)) if (v !== undefined && v !== '') query.set(k, v);
  }
  const search = query.toString();
  return `#/${path.join('/')}${search ? `?${search}` : ''}`;
}

export function navigate(target: string): void {
  if (location.hash === target) return;
  location.hash = target;
}

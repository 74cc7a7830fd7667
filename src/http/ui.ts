import { readFile, stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { HttpEnv } from './auth.js';
import { packagePath } from '../config/package-path.js';

/**
 * The web UI's files (the Vite build of ui/ in dist/ui): `/` is its page, `/assets/*` its hashed
 * scripts and styles, cached for a year (a new build has new names), and the page itself revalidated
 * on every load (`no-cache`) so a new build is picked up at once. The files hold no data (every
 * read goes through the authenticated `/v1` API), so they need no token. The app's strict CSP
 * (`default-src 'self'`) is enough: the bundle loads nothing from elsewhere, uses no inline script or
 * style, and the drawing it inserts has no style attributes.
 */
export interface UiOptions {
  /** Where the built UI is. Default: the package's dist/ui. */
  dir?: string;
}

/** The package's built UI: dist/ui under the package root. */
export function packageUiDir(): string {
  return packagePath('dist', 'ui');
}

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
  '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

const IMMUTABLE = 'public, max-age=31536000, immutable';
/** One path segment of a built file: no `..`, no separators. */
const SAFE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>dotplan</title></head>
<body><h1>dotplan</h1><p>The web UI is not built. Run <code>npm run build</code> (it builds dist/ui), then reload this page.
The API is served as usual under <a href="/openapi.json">/v1</a>.</p></body></html>`;

export function uiRoutes(app: OpenAPIHono<HttpEnv>, options: UiOptions = {}): void {
  const dir = resolve(options.dir ?? packageUiDir());

  const page = async (c: Context<HttpEnv>) => {
    const sent = await sendFile(c, dir, ['index.html'], 'no-cache');
    return sent ?? c.html(NOT_BUILT, 503, { 'cache-control': 'no-cache' });
  };
  app.get('/', page);
  app.get('/index.html', page);
  app.get('/assets/*', async (c) => {
    const parts = c.req.path.slice(1).split('/');
    return (await sendFile(c, dir, parts, IMMUTABLE)) ?? c.notFound();
  });
  // Files copied from ui/public (the icon): not hashed, so revalidated. Never .json, which would shadow /openapi.json.
  app.get('/:file{[A-Za-z0-9_-]+\\.(?:svg|ico|png|txt)}', async (c) => (await sendFile(c, dir, [c.req.param('file')], 'no-cache')) ?? c.notFound());
}

/** A file under `dir` (by path segments), with its content type, cache policy and ETag; undefined when it is not there. */
async function sendFile(c: Context<HttpEnv>, dir: string, parts: readonly string[], cacheControl: string): Promise<Response | undefined> {
  if (parts.length === 0 || !parts.every((p) => SAFE_NAME.test(p) && !p.includes('..'))) return undefined;
  const path = join(dir, ...parts);
  if (!path.startsWith(dir + sep)) return undefined;
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile()) return undefined;
  const etag = `W/"${info.size.toString(36)}-${Math.floor(info.mtimeMs).toString(36)}"`;
  const headers = { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream', 'cache-control': cacheControl, etag };
  if (c.req.header('if-none-match') === etag) return c.body(null, 304, headers);
  return c.body(new Uint8Array(await readFile(path)), 200, headers);
}

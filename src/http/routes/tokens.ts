import { z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Dotplan } from '../../operations/dotplan.js';
import { TOKEN_SCOPES } from '../../operations/tokens.js';
import type { HttpEnv } from '../auth.js';
import { addEndpoint } from '../endpoint.js';

/** API tokens over HTTP, for an `admin` token: what `dotplan token create | list | revoke` do. */

const TokenSchema = z
  .object({ name: z.string(), scope: z.enum(TOKEN_SCOPES), createdBy: z.string(), createdAt: z.string(), lastUsedAt: z.string().nullable() })
  .openapi('Token');
const NameParams = z.object({
  name: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: 'name', in: 'path' }, example: 'ci-bot' }),
});

export function tokenRoutes(app: OpenAPIHono<HttpEnv>, dotplan: Dotplan): void {
  addEndpoint(
    app,
    {
      method: 'get',
      path: '/v1/tokens',
      scope: 'admin',
      tag: 'tokens',
      summary: 'The live tokens (never a secret)',
      ok: { description: 'The tokens.', schema: z.array(TokenSchema) },
    },
    async () => dotplan.tokens.list(),
  );
  addEndpoint(
    app,
    {
      method: 'post',
      path: '/v1/tokens',
      scope: 'admin',
      tag: 'tokens',
      summary: 'Make a token; its secret is in this answer only',
      body: z.object({ name: z.string().min(1).max(64), scope: z.enum(TOKEN_SCOPES) }).strict(),
      ok: { status: 201, description: 'The token and its secret.', schema: TokenSchema.extend({ secret: z.string() }) },
      errors: [409],
    },
    async ({ body, principal, c }) => {
      const { secret, token } = await dotplan.tokens.create({ name: body.name, scope: body.scope, by: principal.name });
      return c.json({ ...token, secret }, 201, { 'cache-control': 'no-store' });
    },
  );
  addEndpoint(
    app,
    {
      method: 'post',
      path: '/v1/tokens/{name}/revoke',
      scope: 'admin',
      tag: 'tokens',
      summary: 'Revoke a token: its requests and its browser sessions are refused from now on',
      params: NameParams,
      body: z.object({}).strict(),
      ok: { description: 'The revoked token.', schema: TokenSchema },
      errors: [404],
    },
    async ({ params }) => dotplan.tokens.revoke(params.name),
  );
}

import { z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Dotplan } from '../../operations/dotplan.js';
import type { HttpEnv } from '../auth.js';
import { actedBy, addEndpoint } from '../endpoint.js';
import { ApplyReportSchema, ChangeSchema, PlanIdParams } from '../schemas.js';
import { applyAnswer } from './apply-answer.js';

/** A plan's revisions: list, one, the diff of two, applying an edit (or a dry run of it), reverting to one. */

const RevisionParams = PlanIdParams.extend({
  revision: z.coerce
    .number()
    .int()
    .min(1)
    .openapi({ param: { name: 'revision', in: 'path' }, example: 2 }),
});
const RevisionSchema = z.record(z.string(), z.unknown()).openapi('Revision');

export function revisionRoutes(app: OpenAPIHono<HttpEnv>, dotplan: Dotplan): void {
  addEndpoint(
    app,
    {
      method: 'get',
      path: '/v1/plans/{planId}/revisions',
      scope: 'read',
      tag: 'revisions',
      summary: "The plan's revisions, oldest first, each with who made it and how many changes",
      params: PlanIdParams,
      ok: { description: 'The revisions (without their DOT).', schema: z.array(RevisionSchema) },
      errors: [404],
    },
    async ({ params }) => (await dotplan.revisions(params.planId)).map(({ dot: _dot, ...entry }) => entry),
  );

  addEndpoint(
    app,
    {
      method: 'get',
      path: '/v1/plans/{planId}/revisions/{revision}',
      scope: 'read',
      tag: 'revisions',
      summary: 'One revision, with its DOT text as written',
      params: RevisionParams,
      ok: { description: 'The revision.', schema: RevisionSchema },
      errors: [404],
    },
    async ({ params }) => dotplan.revision(params.planId, params.revision),
  );

  addEndpoint(
    app,
    {
      method: 'get',
      path: '/v1/plans/{planId}/diff',
      scope: 'read',
      tag: 'revisions',
      summary: 'What changed from one revision to another (default: to the latest)',
      params: PlanIdParams,
      query: z.object({ from: z.coerce.number().int().min(1), to: z.coerce.number().int().min(1).optional() }),
      ok: { description: 'The changes.', schema: z.object({ from: z.number().int(), to: z.number().int(), changes: z.array(ChangeSchema) }) },
      errors: [404],
    },
    async ({ params, query }) => dotplan.diff(params.planId, query.from, query.to),
  );

  addEndpoint(
    app,
    {
      method: 'post',
      path: '/v1/plans/{planId}/revisions',
      scope: 'operate',
      tag: 'revisions',
      summary: 'Apply an edit: the DOT of `GET …/dot`, changed (its `revision`/`asOfEvent` say what it was made from)',
      description: '200: applied (or, with `dryRun`, what it would change). 409 `MERGE_CONFLICT`: it clashes with what changed since. 422: its diagnostics.',
      params: PlanIdParams,
      body: z.object({ dot: z.string().min(1), dryRun: z.boolean().optional(), reason: z.string().max(2000).optional() }).strict(),
      ok: { description: 'The apply report.', schema: ApplyReportSchema },
      errors: [404, 409],
    },
    async ({ params, body, principal, c }) =>
      applyAnswer(c, await dotplan.apply(params.planId, body.dot, { ...actedBy(principal, body), source: '<request>' })),
  );

  addEndpoint(
    app,
    {
      method: 'post',
      path: '/v1/plans/{planId}/revert',
      scope: 'operate',
      tag: 'revisions',
      summary: 'Make a new revision with the graph of an earlier one (statuses stay as they are)',
      params: PlanIdParams,
      body: z.object({ revision: z.number().int().min(1), dryRun: z.boolean().optional(), reason: z.string().max(2000).optional() }).strict(),
      ok: { description: 'The apply report.', schema: ApplyReportSchema },
      errors: [404, 409],
    },
    async ({ params, body, principal, c }) => applyAnswer(c, await dotplan.revert(params.planId, body.revision, actedBy(principal, body))),
  );
}

import { z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Dotplan } from '../../operations/dotplan.js';
import { defaultTemplateDirs, listTemplates } from '../../templates/catalogue.js';
import type { HttpEnv } from '../auth.js';
import { addEndpoint } from '../endpoint.js';
import { AfterQuery, DiagnosticSchema, EventSchema, NodeParams, NodeSchema, PlanIdParams } from '../schemas.js';

/** Nodes, the inbox, the audit log, LLM calls, and what the editor asks for: validation, drawings, templates. */

const DEFAULT_EVENT_PAGE = 500;
const DotBody = z.object({ dot: z.string().min(1), source: z.string().max(200).optional() }).strict();

export function readRoutes(app: OpenAPIHono<HttpEnv>, dotplan: Dotplan): void {
  addEndpoint(
    app,
    {
      method: 'get',
      path: '/v1/plans/{planId}/nodes',
      scope: 'read',
      tag: 'nodes',
      summary: "The plan's nodes with their live state",
      params: PlanIdParams,
      ok: { description: 'The nodes.', schema: z.array(NodeSchema) },
      errors: [404],
    },
    async ({ params }) => dotplan.nodes(params.planId),
  );

  addEndpoint(
    app,
    {
      method: 'get',
      path: '/v1/plans/{planId}/nodes/{nodeId}',
      scope: 'read',
      tag: 'nodes',
      summary: 'One node: input, output, answer, error, attempts, and its events',
      params: NodeParams,
      ok: { description: 'The node and its events.', schema: NodeSchema.extend({ events: z.array(EventSchema) }) },
      errors: [404],
    },
    async ({ params }) => {
      const [node, events] = await Promise.all([
        dotplan.node(params.planId, params.nodeId),
        dotplan.store.events.list(params.planId, { nodeId: params.nodeId }),
      ]);
      return { ...node, events };
    },
  );

  addEndpoint(
    app,
    {
      method: 'get',
      path: '/v1/inbox',
      scope: 'read',
      tag: 'inbox',
      summary: 'Required actions: questions and reviews waiting for a person, across plans, oldest first',
      query: z.object({ planId: z.string().optional() }),
      ok: { description: 'The entries, each with its options, path and how long it has waited.', schema: z.array(z.record(z.string(), z.unknown())) },
      errors: [404],
    },
    async ({ query }) => dotplan.inbox(query.planId !== undefined ? { planId: query.planId } : {}),
  );

  addEndpoint(
    app,
    {
      method: 'get',
      path: '/v1/events',
      scope: 'read',
      tag: 'events',
      summary: 'The audit log of every plan, a page after `after`',
      query: AfterQuery,
      ok: { description: 'Events, oldest first.', schema: z.array(EventSchema) },
    },
    async ({ query }) => dotplan.events.list({ after: query.after ?? 0, limit: query.limit ?? DEFAULT_EVENT_PAGE }),
  );

  addEndpoint(
    app,
    {
      method: 'get',
      path: '/v1/plans/{planId}/events',
      scope: 'read',
      tag: 'events',
      summary: "A plan's audit log (with `tree=true`, its child plans' too), a page after `after`",
      params: PlanIdParams,
      query: AfterQuery.extend({ tree: z.enum(['true', 'false']).optional() }),
      ok: { description: 'Events, oldest first.', schema: z.array(EventSchema) },
      errors: [404],
    },
    async ({ params, query }) =>
      dotplan.events.list({
        ...(query.tree === 'true' ? { rootPlanId: params.planId } : { planId: params.planId }),
        after: query.after ?? 0,
        limit: query.limit ?? DEFAULT_EVENT_PAGE,
      }),
  );

  addEndpoint(
    app,
    {
      method: 'get',
      path: '/v1/plans/{planId}/llm-calls',
      scope: 'read',
      tag: 'plans',
      summary: 'The calls the plan made to the model, oldest first',
      params: PlanIdParams,
      ok: { description: 'The calls.', schema: z.array(z.record(z.string(), z.unknown())) },
      errors: [404],
    },
    async ({ params }) => dotplan.calls(params.planId),
  );

  addEndpoint(
    app,
    {
      method: 'post',
      path: '/v1/validate',
      scope: 'read',
      tag: 'editor',
      summary: 'Validate a DOT text as creating a plan would; stores nothing',
      body: DotBody,
      ok: { description: 'Whether it is valid, and every diagnostic.', schema: z.object({ valid: z.boolean(), diagnostics: z.array(DiagnosticSchema) }) },
    },
    async ({ body }) => {
      const { valid, diagnostics } = await dotplan.validate(body.dot, { source: body.source ?? '<request>' });
      return { valid, diagnostics };
    },
  );

  addEndpoint(
    app,
    {
      method: 'post',
      path: '/v1/render',
      scope: 'read',
      tag: 'editor',
      summary: 'Draw a DOT text as SVG; stores nothing',
      body: DotBody,
      ok: { description: 'SVG.', mediaType: 'image/svg+xml' },
    },
    async ({ body, c }) =>
      c.body(await dotplan.render({ dot: body.dot, source: body.source ?? '<request>' }, { format: 'svg' }), 200, { 'content-type': 'image/svg+xml' }),
  );

  addEndpoint(
    app,
    {
      method: 'get',
      path: '/v1/templates',
      scope: 'read',
      tag: 'templates',
      summary: 'The templates a plan can be made from, with their parameters',
      ok: { description: 'The templates.', schema: z.array(z.record(z.string(), z.unknown())) },
    },
    async () => listTemplates(defaultTemplateDirs(dotplan.cwd)).map(({ path: _path, ...info }) => info),
  );
}

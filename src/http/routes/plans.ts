import { createHash } from 'node:crypto';
import { z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Dotplan } from '../../operations/dotplan.js';
import { InvalidArgumentError } from '../../errors/errors.js';
import { PLAN_STATUSES } from '../../model/types.js';
import type { HttpEnv } from '../auth.js';
import { addEndpoint } from '../endpoint.js';
import { createOnce } from '../idempotency.js';
import { DiagnosticSchema, PlanIdParams, PlanSchema } from '../schemas.js';

/** Plans: the list, creating one, one plan's summary, its DOT, its drawing and its report. */

const TEMPLATE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;
const PLAN_ID = /^p_[a-z0-9]{1,40}$/;

const CreateBody = z
  .object({
    template: z.string().regex(TEMPLATE_NAME, 'a template name from `GET /v1/templates` (not a path)').optional(),
    values: z.record(z.string(), z.string()).optional(),
    dot: z.string().optional(),
    goal: z.string().min(1).max(20_000).optional(),
    title: z.string().min(1).max(500).optional(),
    review: z.boolean().optional().openapi({ description: 'Wait for a reviewer before anything runs.' }),
  })
  .strict()
  .refine((b) => [b.template, b.dot, b.goal].filter((x) => x !== undefined).length === 1, {
    message: 'give exactly one of template, dot or goal',
  })
  .openapi('CreatePlan');

const ListQuery = z.object({
  status: z.enum(PLAN_STATUSES).optional(),
  root: z.string().optional().openapi({ description: "Only this root's tree; `root=true` only root plans." }),
  cursor: z.string().optional().openapi({ description: 'The `next` of the page before.' }),
  limit: z.coerce.number().int().min(1).max(500).optional().openapi({ description: 'Default 100.' }),
});

const SummarySchema = z
  .object({
    plan: PlanSchema,
    nodes: z.record(z.string(), z.number().int()).openapi({ description: 'How many nodes are in each status.' }),
    waiting: z.array(z.record(z.string(), z.unknown())),
    children: z.array(z.object({ id: z.string(), title: z.string(), status: z.string(), nodeId: z.string(), instance: z.string().optional() })),
  })
  .openapi('PlanSummary');

export function planRoutes(app: OpenAPIHono<HttpEnv>, dotplan: Dotplan): void {
  addEndpoint(
    app,
    {
      method: 'get',
      path: '/v1/plans',
      scope: 'read',
      tag: 'plans',
      summary: 'List plans, newest first',
      query: ListQuery,
      ok: { description: 'A page of plans and the cursor of the next one.', schema: z.object({ plans: z.array(PlanSchema), next: z.string().nullable() }) },
    },
    async ({ query }) => {
      const limit = query.limit ?? 100;
      if (query.cursor !== undefined && !PLAN_ID.test(query.cursor))
        throw InvalidArgumentError.about('cursor', `is not a plan id (${query.cursor}); give the \`next\` of the page before`);
      const plans = await dotplan.store.plans.page({
        ...(query.status !== undefined ? { status: query.status } : {}),
        ...(query.root === 'true' ? { roots: true } : query.root !== undefined ? { root: query.root } : {}),
        ...(query.cursor !== undefined ? { before: query.cursor } : {}),
        limit: limit + 1,
      });
      const page = plans.slice(0, limit);
      return { plans: page, next: plans.length > limit ? (page.at(-1)?.id ?? null) : null };
    },
  );

  addEndpoint(
    app,
    {
      method: 'post',
      path: '/v1/plans',
      scope: 'operate',
      tag: 'plans',
      summary: 'Create a plan from a template and its values, a DOT text, or a goal',
      description: 'A retried request with the same `Idempotency-Key` header (and body) returns the plan the first one made.',
      headers: z.object({ 'idempotency-key': z.string().min(1).max(200).optional() }),
      body: CreateBody,
      ok: { status: 201, description: 'The stored plan, with the validator’s warnings.', schema: PlanSchema.extend({ warnings: z.array(DiagnosticSchema) }) },
      errors: [404, 409],
    },
    async ({ body, principal, c }) => {
      const options = { by: principal.name, ...(body.review !== undefined ? { review: body.review } : {}) };
      const title = body.title !== undefined ? { title: body.title } : {};
      const make = () =>
        body.template !== undefined
          ? dotplan.create({ template: body.template, values: body.values ?? {}, ...title }, options)
          : body.dot !== undefined
            ? dotplan.create({ dot: body.dot, source: '<request>', ...title }, options)
            : dotplan.create({ goal: body.goal ?? '', ...title }, options);
      const key = c.req.header('idempotency-key');
      if (key === undefined) return c.json(await make(), 201);
      const { plan, replayed } = await createOnce(dotplan, { key, by: principal.name, body }, make);
      return c.json(plan, replayed ? 200 : 201, replayed ? { 'idempotent-replayed': 'true' } : {});
    },
  );

  addEndpoint(
    app,
    {
      method: 'get',
      path: '/v1/plans/{planId}',
      scope: 'read',
      tag: 'plans',
      summary: 'A plan: its record, nodes per status, what it waits for, its child plans',
      params: PlanIdParams,
      ok: { description: 'The summary.', schema: SummarySchema },
      errors: [404],
    },
    async ({ params }) => {
      // The tree's places (one read of its plans), not `dotplan.tree`, which reads each plan and what waits in it.
      const [plan, counts, waiting, places] = await Promise.all([
        dotplan.plan(params.planId),
        dotplan.store.plans.statusCounts(params.planId),
        dotplan.waitingFor(params.planId),
        dotplan.store.tree.treeOf(params.planId),
      ]);
      const children = places
        .filter((p) => p.parentPlanId === plan.id)
        .map((p) => ({ id: p.id, title: p.title, status: p.status, nodeId: p.parentNodeId ?? '', ...(p.instance ? { instance: p.instance } : {}) }));
      return { plan, nodes: counts, waiting, children };
    },
  );

  addEndpoint(
    app,
    {
      method: 'get',
      path: '/v1/plans/{planId}/dot',
      scope: 'read',
      tag: 'plans',
      summary: 'The plan as an operator edits it: DOT with live state, `revision` and `asOfEvent`',
      params: PlanIdParams,
      ok: { description: 'The DOT text.', mediaType: 'text/vnd.graphviz' },
      errors: [404],
    },
    async ({ params, c }) => {
      const [dot, plan] = await Promise.all([dotplan.show(params.planId), dotplan.plan(params.planId)]);
      return c.body(dot, 200, { 'content-type': 'text/vnd.graphviz; charset=utf-8', 'x-dotplan-revision': String(plan.revision) });
    },
  );

  addEndpoint(
    app,
    {
      method: 'get',
      path: '/v1/plans/{planId}/graph.svg',
      scope: 'read',
      tag: 'plans',
      summary: 'The plan drawn, nodes coloured by status (`status-*` classes)',
      description: 'The ETag is the revision and a hash of the drawing: with `If-None-Match` an unchanged drawing is a 304.',
      params: PlanIdParams,
      ok: { description: 'SVG.', mediaType: 'image/svg+xml' },
      errors: [404],
    },
    async ({ params, c }) => {
      const [plan, svg] = await Promise.all([dotplan.plan(params.planId), dotplan.render({ planId: params.planId }, { format: 'svg' })]);
      const etag = `"r${plan.revision}-${createHash('sha256').update(svg).digest('base64url').slice(0, 16)}"`;
      if (c.req.header('if-none-match') === etag) return c.body(null, 304, { etag });
      return c.body(svg, 200, { 'content-type': 'image/svg+xml', etag });
    },
  );

  addEndpoint(
    app,
    {
      method: 'get',
      path: '/v1/plans/{planId}/report',
      scope: 'read',
      tag: 'plans',
      summary: 'The run report: Markdown, one HTML page, or JSON',
      params: PlanIdParams,
      query: z.object({ format: z.enum(['md', 'html', 'json']).optional() }),
      ok: { description: 'The report.', mediaType: 'text/markdown' },
      errors: [404],
    },
    async ({ params, query, c }) => {
      const format = query.format ?? 'md';
      const text = await dotplan.report(params.planId, { format });
      const type = { md: 'text/markdown; charset=utf-8', html: 'text/html; charset=utf-8', json: 'application/json' }[format];
      // The HTML report is one self-contained page: its inline styles and drawing, nothing else (no script).
      const csp: Record<string, string> =
        format === 'html' ? { 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'" } : {};
      return c.body(text, 200, { 'content-type': type, ...csp });
    },
  );
}

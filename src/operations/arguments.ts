import { z } from 'zod';
import { shown } from '../errors/describe-issue.js';
import { TOKEN_SCOPES } from '../model/token-scopes.js';
import { DRIVERS, EVENT_KINDS, PLAN_STATUSES } from '../model/types.js';
import { checkArguments } from './check-arguments.js';
import { agentList, configOverrides, toolList } from './option-schemas.js';

/**
 * What each library call accepts, one schema per call, by parameter name: `Dotplan`'s methods,
 * `events.list` / `events.follow`, `tokens.create` / `revoke` / `verify` and `openDotplan` check their
 * arguments here before they read or write anything. A method added to `Dotplan` adds its line to SIGNATURES.
 */

const id = z.string().min(1);
const text = z.string();
/** Whole numbers a database column can hold exactly. */
const revisionNumber = z.int().min(1);
const fn = z.custom<(...args: never[]) => unknown>((value) => typeof value === 'function', {
  error: (issue) => `must be a function (got ${issue.input === null ? 'null' : typeof issue.input})`,
});
const nonBlank = (problem: string) => z.string().refine((value) => value.trim() !== '', problem);

/** Who does a command, and why. */
const who = { by: id.optional(), reason: id.optional() };
const commandOptions = z.strictObject(who).optional();

/**
 * An object that gives exactly one of `keys` (a DOT text, a template or a goal...); `companions` name the
 * keys that go only with one of them (`source` with `dot`).
 */
function oneOf<S extends z.core.$ZodLooseShape>(
  shape: S,
  keys: ReadonlyArray<keyof S & string>,
  companions: Partial<Record<keyof S & string, keyof S & string>> = {},
) {
  return z.strictObject(shape).superRefine((input: Record<string, unknown>, ctx) => {
    const given = keys.filter((key) => input[key] !== undefined);
    if (given.length !== 1) {
      const names = `${keys.slice(0, -1).join(', ')} or ${keys.at(-1)!}`;
      ctx.addIssue({ code: 'custom', message: `must have one of ${names} (it has ${given.length === 0 ? 'none' : given.join(' and ')})`, input });
    }
    for (const [companion, owner] of Object.entries(companions) as Array<[string, string]>) {
      if (input[companion] !== undefined && input[owner] === undefined) {
        ctx.addIssue({ code: 'custom', path: [companion], message: `goes with ${owner}`, input: input[companion] });
      }
    }
  });
}

/** `create`'s input: one of a DOT text, a template with values, or a goal. */
const createInput = oneOf(
  {
    dot: text.optional(),
    source: id.optional(),
    template: id.optional(),
    values: z.record(z.string(), z.string()).optional(),
    goal: nonBlank('is empty: say what the plan should achieve').optional(),
    title: text.optional(),
  },
  ['dot', 'template', 'goal'],
  { source: 'dot', values: 'template' },
);

/** `modify`'s change: a DOT text, or a suggestion for the LLM. */
const modification = oneOf(
  { dot: text.optional(), source: id.optional(), suggestion: nonBlank('is empty: say what the plan should change').optional() },
  ['dot', 'suggestion'],
  {
    source: 'dot',
  },
);

/** A query of the audit log: the same for `events.list` and `events.follow`. */
const eventQuery = z.strictObject({
  planId: id.optional(),
  rootPlanId: id.optional(),
  after: z.int().min(0).optional(),
  kind: z.enum(EVENT_KINDS).optional(),
  limit: z.int().min(1).optional(),
});

const eventInput = z.strictObject({
  planId: id,
  node: id.optional(),
  kind: z.enum(EVENT_KINDS),
  driver: z.enum(DRIVERS),
  actor: text.optional(),
  from: text.optional(),
  to: text.optional(),
  reason: text.optional(),
  detail: z.record(z.string(), z.unknown()).optional(),
});

/** A new API token's name: what `dotplan token list` and the server's logs show. */
const tokenName = z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, {
  error: (issue) => `must be 1 to 64 letters, digits, ".", "_" or "-" (got ${shown(issue.input)})`,
});

const planId = { planId: id };
const nodeCall = { planId: id, nodeId: id, options: commandOptions };
const planCall = { planId: id, options: commandOptions };

/** Each call's parameters, by name. */
export const SIGNATURES = {
  openDotplan: {
    options: z
      .strictObject({
        config: configOverrides.optional(),
        tools: toolList.optional(),
        agents: agentList.optional(),
        cwd: id.optional(),
      })
      .optional(),
  },
  create: { input: createInput, options: z.strictObject({ by: id.optional(), review: z.boolean().optional() }).optional() },
  rerun: { planId: id, options: z.strictObject({ from: id.optional(), title: text.optional(), by: id.optional() }).optional() },
  answer: { planId: id, nodeId: id, text, options: z.strictObject({ by: id.optional() }).optional() },
  tree: { planId: id },
  agentHistory: { instance: id, options: z.strictObject({ root: id.optional() }).optional() },
  retry: nodeCall,
  skip: nodeCall,
  cancel: planCall,
  pause: planCall,
  resume: planCall,
  approve: planCall,
  reject: {
    planId: id,
    options: z.strictObject({
      by: id.optional(),
      reason: z
        .string({ error: (issue) => (issue.input === undefined ? 'is required: say why the plan is rejected (its author reads it)' : undefined) })
        .refine((value) => value.trim() !== '', 'is empty: say why the plan is rejected (its author reads it)'),
    }),
  },
  modify: { planId: id, change: modification, options: commandOptions },
  apply: { planId: id, dot: text, options: z.strictObject({ ...who, source: id.optional(), dryRun: z.boolean().optional() }).optional() },
  revert: { planId: id, revision: revisionNumber, options: z.strictObject({ ...who, dryRun: z.boolean().optional() }).optional() },
  plan: planId,
  plans: { filter: z.strictObject({ status: z.enum(PLAN_STATUSES).optional() }).optional() },
  nodes: planId,
  node: { planId: id, nodeId: id },
  edges: planId,
  revisions: planId,
  revision: { planId: id, number: revisionNumber.optional() },
  diff: { planId: id, from: revisionNumber, to: revisionNumber.optional() },
  inbox: { options: z.strictObject({ planId: id.optional() }).optional() },
  calls: planId,
  waitingFor: planId,
  history: planId,
  show: planId,
  liveGraph: planId,
  validate: { dot: text, options: z.strictObject({ source: id.optional() }).optional() },
  render: {
    plan: oneOf({ dot: text.optional(), source: id.optional(), planId: id.optional() }, ['dot', 'planId'], { source: 'dot' }),
    options: z.strictObject({ format: z.enum(['svg', 'dot']).optional() }).optional(),
  },
  report: { planId: id, options: z.strictObject({ format: z.enum(['md', 'html', 'json']).optional() }).optional() },
  worker: {
    options: z
      .strictObject({
        untilIdle: z.boolean().optional(),
        owner: id.optional(),
        llm: z.strictObject({ baseURL: z.url(), model: id.optional() }).optional(),
        log: fn.optional(),
      })
      .optional(),
  },
  http: {
    options: z
      .strictObject({
        rateLimit: z.number().int().min(0).optional(),
        corsOrigins: z.array(z.url()).optional(),
        keepAliveMs: z.number().int().positive().optional(),
        idleMs: z.number().int().positive().optional(),
        logError: fn.optional(),
        ui: z.boolean().optional(),
      })
      .optional(),
  },
  'events.list': { query: eventQuery.optional() },
  'events.follow': { query: eventQuery, onEvent: fn },
  'events.append': { events: z.array(eventInput) },
  'tokens.create': { input: z.strictObject({ name: tokenName, scope: z.enum(TOKEN_SCOPES), by: id.optional() }) },
  'tokens.revoke': { name: id },
  'tokens.verify': { secret: text },
} satisfies Record<string, z.core.$ZodLooseShape>;

export type Signature = keyof typeof SIGNATURES;

const schemas = new Map<Signature, z.ZodType>();

/** Checks a call's arguments (by parameter name) against its signature; an InvalidArgumentError naming the argument when they do not fit. */
export function checked(method: Signature, args: Record<string, unknown>): void {
  let schema = schemas.get(method);
  if (!schema) schemas.set(method, (schema = z.strictObject(SIGNATURES[method])));
  checkArguments(method, schema, args);
}

/**
 * The library API checks its arguments: every `Dotplan` method (and `openDotplan`) refuses a wrong
 * argument — undefined, a number for a string, a negative, NaN or huge number, an unknown option, an
 * empty id — with a `DotplanError` (`INVALID_INPUT`) whose message names the method and the argument,
 * before anything is read or written; never a database `RangeError`, a Prisma validation dump or a
 * `TypeError` from deep inside.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DotplanError, InvalidInputError, NotFoundError } from '../../src/errors/errors.js';
import { openDotplan } from '../../src/operations/open.js';
import type { Dotplan } from '../../src/operations/dotplan.js';
import type { PlanRecord } from '../../src/store/types.js';
import { openTestDotplan, thrown, type TestDotplan } from './open.js';

const ECHO = 'digraph g { a [type=function status=pending toolCode=template toolInput="{\\"template\\": \\"hi\\"}"] }';
const ASK = 'digraph g { ask [type=confirm status=pending question="Go?"] }';

let t: TestDotplan;
let dotplan: Dotplan;
let plan: PlanRecord;

beforeAll(async () => {
  t = await openTestDotplan();
  dotplan = t.dotplan;
  plan = await dotplan.create({ dot: ASK });
});
afterAll(() => t?.cleanup());

/** A call made with arguments its types do not allow (as a JavaScript caller may). */
const anyway = <T>(value: unknown) => value as T;

async function refused(call: () => unknown): Promise<InvalidInputError & { argument?: string }> {
  const error = await thrown(call);
  expect(error, `${error.name}: ${error.message}`).toBeInstanceOf(InvalidInputError);
  expect(error).toBeInstanceOf(DotplanError);
  expect((error as DotplanError).code).toBe('INVALID_INPUT');
  return error as InvalidInputError & { argument?: string };
}

describe('every method names the argument it refuses', () => {
  const cases: Array<[string, () => unknown, string]> = [
    ['create(undefined)', () => dotplan.create(anyway(undefined)), 'create: input must be an object (got undefined)'],
    ['create({ dot: 5 })', () => dotplan.create(anyway({ dot: 5 })), 'create: dot must be a string (got number)'],
    ['create({})', () => dotplan.create(anyway({})), 'create: input must have one of dot, template or goal (it has none)'],
    [
      'create({ dot, template })',
      () => dotplan.create(anyway({ dot: ECHO, template: 'approval' })),
      'create: input must have one of dot, template or goal (it has dot and template)',
    ],
    [
      'create({ template, values: { item: 5 } })',
      () => dotplan.create(anyway({ template: 'approval', values: { item: 5 } })),
      'create: values.item must be a string (got number)',
    ],
    ['create({ goal: "  " })', () => dotplan.create({ goal: '  ' }), 'create: goal is empty: say what the plan should achieve'],
    ['create(dot, { by: 5 })', () => dotplan.create({ dot: ECHO }, anyway({ by: 5 })), 'create: by must be a string (got number)'],
    ['create(dot, { reveiw: true })', () => dotplan.create({ dot: ECHO }, anyway({ reveiw: true })), 'create: unknown option "reveiw" (known: by, review)'],
    ['plan(undefined)', () => dotplan.plan(anyway(undefined)), 'plan: planId must be a string (got undefined)'],
    ['plan("")', () => dotplan.plan(''), 'plan: planId is empty'],
    ['nodes(5)', () => dotplan.nodes(anyway(5)), 'nodes: planId must be a string (got number)'],
    ['node(plan, undefined)', () => dotplan.node(plan.id, anyway(undefined)), 'node: nodeId must be a string (got undefined)'],
    [
      'plans({ status: "zzz" })',
      () => dotplan.plans(anyway({ status: 'zzz' })),
      'plans: status must be one of draft, awaiting_review, running, paused, completed, failed, cancelled, rejected (got "zzz")',
    ],
    ['revision(plan, NaN)', () => dotplan.revision(plan.id, NaN), 'revision: number must be a whole number (got NaN)'],
    ['revision(plan, 1.5)', () => dotplan.revision(plan.id, 1.5), 'revision: number must be a whole number (got 1.5)'],
    ['revision(plan, 0)', () => dotplan.revision(plan.id, 0), 'revision: number must be at least 1 (got 0)'],
    ['revision(plan, 1e20)', () => dotplan.revision(plan.id, 1e20), 'revision: number must be at most 9007199254740991 (got 100000000000000000000)'],
    ['diff(plan, NaN)', () => dotplan.diff(plan.id, NaN), 'diff: from must be a whole number (got NaN)'],
    ['revert(plan, -1)', () => dotplan.revert(plan.id, -1), 'revert: revision must be at least 1 (got -1)'],
    ['apply(plan, 5)', () => dotplan.apply(plan.id, anyway(5)), 'apply: dot must be a string (got number)'],
    ['answer(plan, ask, 5)', () => dotplan.answer(plan.id, 'ask', anyway(5)), 'answer: text must be a string (got number)'],
    ['retry(undefined, node)', () => dotplan.retry(anyway(undefined), 'ask'), 'retry: planId must be a string (got undefined)'],
    ['skip(plan, "")', () => dotplan.skip(plan.id, ''), 'skip: nodeId is empty'],
    ['cancel(plan, { by: 5 })', () => dotplan.cancel(plan.id, anyway({ by: 5 })), 'cancel: by must be a string (got number)'],
    ['pause(plan, { bogus: 1 })', () => dotplan.pause(plan.id, anyway({ bogus: 1 })), 'pause: unknown option "bogus" (known: by, reason)'],
    ['resume(plan, 5)', () => dotplan.resume(plan.id, anyway(5)), 'resume: options must be an object (got number)'],
    ['reject(plan, {})', () => dotplan.reject(plan.id, anyway({})), 'reject: reason is required: say why the plan is rejected (its author reads it)'],
    ['modify(plan, { suggestion: "" })', () => dotplan.modify(plan.id, { suggestion: ' ' }), 'modify: suggestion is empty: say what the plan should change'],
    ['inbox({ planId: 5 })', () => dotplan.inbox(anyway({ planId: 5 })), 'inbox: planId must be a string (got number)'],
    ['events.list({ after: -1 })', () => dotplan.events.list({ planId: plan.id, after: -1 }), 'events.list: after must be at least 0 (got -1)'],
    ['events.list({ after: NaN })', () => dotplan.events.list({ after: NaN }), 'events.list: after must be a whole number (got NaN)'],
    ['events.list(planId) (the old shape)', () => dotplan.events.list(anyway(plan.id)), 'events.list: query must be an object (got string)'],
    [
      'events.follow({ after: NaN })',
      () => dotplan.events.follow({ planId: plan.id, after: NaN }, () => true),
      'events.follow: after must be a whole number (got NaN)',
    ],
    [
      'events.follow(query, undefined)',
      () => dotplan.events.follow({ planId: plan.id }, anyway(undefined)),
      'events.follow: onEvent must be a function (got undefined)',
    ],
    ['worker({ owner: "" })', () => dotplan.worker({ owner: '' }), 'worker: owner is empty'],
    ['worker({ untilIdle: "yes" })', () => dotplan.worker(anyway({ untilIdle: 'yes' })), 'worker: untilIdle must be true or false (got string)'],
    ['render({ dot: 5 })', () => dotplan.render(anyway({ dot: 5 })), 'render: dot must be a string (got number)'],
    [
      'render(plan, { format: "png" })',
      () => dotplan.render({ planId: plan.id }, anyway({ format: 'png' })),
      'render: format must be one of svg, dot (got "png")',
    ],
    ['report(plan, { format: "pdf" })', () => dotplan.report(plan.id, anyway({ format: 'pdf' })), 'report: format must be one of md, html, json (got "pdf")'],
    ['validate(undefined)', () => dotplan.validate(anyway(undefined)), 'validate: dot must be a string (got undefined)'],
  ];
  for (const [name, call, message] of cases) {
    it(name, async () => {
      const error = await refused(call);
      expect(error.message).toBe(message);
    });
  }

  it('the plan readers refuse a plan id that is not a string, each naming itself', async () => {
    for (const name of ['plan', 'nodes', 'edges', 'revisions', 'calls', 'history', 'show', 'liveGraph'] as const) {
      const error = await refused(() => (dotplan[name] as (id: unknown) => Promise<unknown>)(42));
      expect(error.message).toBe(`${name}: planId must be a string (got number)`);
    }
  });

  it('the error says which argument it is about', async () => {
    expect((await refused(() => dotplan.create(anyway({ template: 'approval', values: { item: 5 } })))).argument).toBe('values.item');
    expect((await refused(() => dotplan.create({ goal: '' }))).argument).toBe('goal');
    expect((await refused(() => dotplan.revision(plan.id, NaN))).argument).toBe('number');
  });

  it('a refused command changes nothing', async () => {
    const before = { plan: await dotplan.plan(plan.id), events: await dotplan.history(plan.id) };
    await refused(() => dotplan.cancel(plan.id, anyway({ by: 5 })));
    await refused(() => dotplan.pause(plan.id, anyway({ reason: 7 })));
    expect((await dotplan.plan(plan.id)).status).toBe(before.plan.status);
    expect(await dotplan.history(plan.id)).toEqual(before.events);
  });
});

describe('openDotplan checks its options', () => {
  const cases: Array<[string, Parameters<typeof openDotplan>[0], string]> = [
    [
      'config.worker.concurrency: 0',
      { config: { worker: { concurrency: 0 } } },
      'openDotplan: config.worker.concurrency must be a whole number of at least 1 (got 0)',
    ],
    [
      'config.worker.leaseMs: NaN',
      { config: { worker: { leaseMs: NaN } } },
      'openDotplan: config.worker.leaseMs must be a whole number of at least 1 (got NaN)',
    ],
    [
      'config.worker.poll: "often"',
      { config: { worker: { poll: 'often' } } },
      'openDotplan: config.worker.poll must be a cron expression such as "*/30 * * * * *" (seconds field optional) (got "often")',
    ],
    ['config.wrokers', anyway({ config: { wrokers: {} } }), 'openDotplan: config has unknown option "wrokers"'],
    ['tools[0].code: 5', anyway({ tools: [{ code: 5, run: () => 1 }] }), 'openDotplan: tools[0].code must be a string (got number)'],
    ['tools[0].run missing', anyway({ tools: [{ code: 'x' }] }), 'openDotplan: tools[0].run must be a function (input, ctx) => result (got undefined)'],
    ['cwd: 5', anyway({ cwd: 5 }), 'openDotplan: cwd must be a string (got number)'],
  ];
  for (const [name, options, message] of cases) {
    it(name, async () => {
      const error = await refused(() => openDotplan(options));
      expect(error.message.startsWith(message), error.message).toBe(true);
    });
  }
});

describe('unknown ids are NotFoundError, on every read', () => {
  it('events.list and events.follow of a plan that does not exist', async () => {
    expect(await thrown(() => dotplan.events.list({ planId: 'p_nope' }))).toBeInstanceOf(NotFoundError);
    const feed = dotplan.events.follow({ planId: 'p_nope' }, () => true);
    expect(await thrown(() => feed.ended)).toBeInstanceOf(NotFoundError);
  });
});

describe('errors of the library do not speak of CLI flags', () => {
  const noFlags = (error: Error) => expect(error.message).not.toMatch(/(^|\s|\()--[a-z]/);

  it('an empty goal, an empty suggestion, a suggestion for a workflow plan', async () => {
    noFlags(await refused(() => dotplan.create({ goal: ' ' })));
    const waiting = await dotplan.create({ dot: ECHO }, { review: true });
    noFlags(await refused(() => dotplan.modify(waiting.id, { suggestion: ' ' })));
    const error = await refused(() => dotplan.modify(waiting.id, { suggestion: 'do more' }));
    expect(error.message).toMatch(/workflow plan/);
    noFlags(error);
  });

  it('a review decision on a plan that is not waiting for review', async () => {
    const error = await refused(() => dotplan.approve(plan.id));
    expect(error.message).toMatch(/not awaiting_review/);
    noFlags(error);
  });

  it('a template without a value for a required parameter, a DOT text with parameters without defaults', async () => {
    const missing = await refused(() => dotplan.create({ template: 'approval' }));
    expect(missing.message).toBe('values.item is required: template "approval" declares it without a default');
    noFlags(missing);
    const declared = await refused(() =>
      dotplan.create({ dot: 'digraph g { graph [params="who"] a [type=function status=pending toolCode=template toolInput="{\\"template\\": \\"hi\\"}"] }' }),
    );
    expect(declared.message).toMatch(/who/);
    noFlags(declared);
    expect(declared.message).not.toMatch(/dotplan plan create/);
  });
});

describe('no method of Dotplan skips the check', () => {
  it('every public method refuses a number where its first argument goes, naming itself', async () => {
    // Dotplan's own methods and those it inherits (DotplanReads: the reads).
    const prototypes: object[] = [];
    for (let p = Object.getPrototypeOf(dotplan) as object | null; p && p !== Object.prototype; p = Object.getPrototypeOf(p) as object | null)
      prototypes.push(p);
    const methods = prototypes.flatMap((prototype) =>
      Object.getOwnPropertyNames(prototype).filter((name) => {
        const property = Object.getOwnPropertyDescriptor(prototype, name);
        // close() takes nothing; llm() is internal (the worker's endpoint).
        return typeof property?.value === 'function' && !['constructor', 'close', 'llm'].includes(name);
      }),
    );
    expect(prototypes).toHaveLength(2);
    expect(methods.length).toBeGreaterThan(25);
    for (const name of methods) {
      const call = (dotplan as unknown as Record<string, (...args: unknown[]) => unknown>)[name]!;
      const error = await thrown(() => call.call(dotplan, 42, 42, 42, 42));
      expect(error, `${name}: ${error.message}`).toBeInstanceOf(InvalidInputError);
      expect(error.message.startsWith(`${name}: `), error.message).toBe(true);
    }
    for (const name of ['list', 'follow', 'append'] as const) {
      const events = dotplan.events as unknown as Record<string, (...args: unknown[]) => unknown>;
      const error = await thrown(() => events[name]!(42, 42));
      expect(error.message.startsWith(`events.${name}: `), error.message).toBe(true);
    }
  });
});

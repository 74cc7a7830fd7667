import type { HandOffOptions } from '../types.js';
import type { KnownPlans } from './known-plans.js';
import { BASIS_DEPENDENTS, CLAIMED_COLUMNS, claimReason, DUE } from './claim.js';
import type { NodeWrite, WriteSet } from './persist-rows.js';
import { pgTouch } from './touch.js';

/**
 * PostgreSQL's one statement that writes a step (persist-postgres.ts runs it), in the
 * variant the step needs: only the parts it uses are in the text, so that no idle CTE is planned, and
 * each variant is a prepared statement of its own. Values come in as typed arrays (`unnest`), one per
 * field, and rows go out as plain columns, one row per node handed or claimed and per plan moved; a
 * handed node's plan columns only where the caller does not know them (a finish from a claim's basis
 * knows its plan as the step expects it: known-plans.ts), so that a chain step reads no plan row back.
 *
 * What the step relied on is part of each UPDATE's own WHERE (a node's status, counters and lease
 * token — or, for a count-down, that the row is still pending and left waiting: NodeWrite.relative;
 * the plans' status and revision, key-share locked so that a revision or command committed
 * while the statement waited is seen on the newest row). A row that no longer holds it is not
 * written, and the statement's check (`dotplan_step_holds`, migration 0017) then fails it as a
 * whole with SQLSTATE {@link STEP_CHANGED}: nothing of it is kept, and the writer's locking path
 * takes over. Node rows are locked by the UPDATE in the order they are given (stepQuery gives
 * them in id order, as the locking path locks them), then the plans.
 */
interface StepShape {
  /** Some node sets a rarely set field (answer, error, skipped_by, attributes, a retry's run_after, a wait's start). */
  full: boolean;
  /**
   * The plans whose status (and revision) the step was computed on: none, one plan with its revision
   * (a finish from a claim's basis), one plan without (read under lock), or several.
   */
  expect: 'none' | 'revision' | 'status' | 'many';
  /** The plan columns of the nodes handed over are the caller's (it knows their plans): not read back. */
  known: boolean;
  /** The nodes and events are of one plan: its touch needs no union of their plans. */
  onePlan: boolean;
  /** Plan moves. */
  moves: boolean;
  /** Other ready nodes claimed for the worker. */
  claims: boolean;
  /** Wake-ups for workers elsewhere. */
  notify: boolean;
}

/** The SQLSTATE of a step whose rows no longer held what it was computed from. */
export const STEP_CHANGED = 'DP409';

const texts = new Map<number, string>();
const NO_PLANS: KnownPlans = new Map();

/**
 * The statement for `writes` and its values, in the order of its `?` marks (build() below): typed
 * arrays, one per field, of the node writes in id order (the order the UPDATE locks them in, as the
 * locking path does, so that two writes never wait on each other crosswise).
 */
export function stepQuery(
  writes: WriteSet,
  claim: HandOffOptions,
  notify: { channel: string; payloads: string[] },
  known: KnownPlans = NO_PLANS,
): { text: string; values: unknown[] } {
  const { plans, events, expect } = writes;
  const nodes = writes.nodes.every((n, i, all) => i === 0 || all[i - 1]!.id < n.id) ? writes.nodes : [...writes.nodes].sort((a, b) => a.id - b.id);
  const handing = nodes.reduce((n, node) => n + (node.claim ? 1 : 0), 0);
  const others = claim.claimOthers === false ? 0 : Math.max(0, claim.limit - handing);
  // A node made ready is due at once (run_after 0): a switch of the lean variant; a retry's later due time is a rare field.
  const full = nodes.some((n) => n.set_answer || n.set_error || n.set_skipped_by || n.attributes !== null || (n.run_after_delay ?? 0) !== 0 || n.waits);
  const plan = nodes[0]?.plan_id;
  const onePlan = plan !== undefined && nodes.every((n) => n.plan_id === plan) && events.every((e) => e.plan_id === plan);
  const shape: StepShape = {
    full,
    expect: expect.length === 0 ? 'none' : expect.length > 1 ? 'many' : expect[0]!.revision === null ? 'status' : 'revision',
    known: nodes.every((n) => !n.claim || (known.has(n.plan_id) && !plans.some((p) => p.plan_id === n.plan_id))),
    onePlan,
    moves: plans.length > 0,
    claims: others > 0,
    notify: notify.payloads.length > 0,
  };
  const column = <K extends keyof NodeWrite>(key: K) => nodes.map((n) => n[key]);
  const ids = column('id');
  const values: unknown[] = [ids, column('exp_status'), column('exp_waiting'), column('exp_taken'), column('exp_token'), column('status')];
  values.push(column('waiting'), column('taken'), nodes.map(flags), column('output'), column('attempts'));
  if (full) values.push(column('answer'), column('error'), column('run_after_delay'), column('skipped_by'), column('attributes'));
  values.push(claim.owner, claim.leaseMs, ids);
  if (shape.expect === 'many')
    values.push(
      expect.map((e) => e.plan_id),
      expect.map((e) => e.status),
      expect.map((e) => e.revision),
      expect.map((e) => e.plan_id),
    );
  else if (shape.expect !== 'none') values.push(expect[0]!.plan_id, expect[0]!.status, ...(shape.expect === 'revision' ? [expect[0]!.revision] : []));
  if (shape.moves) {
    const ids = plans.map((p) => p.plan_id);
    values.push(
      ids,
      plans.map((p) => p.from_status),
      plans.map((p) => p.to_status),
      plans.map((p) => p.set_error),
      plans.map((p) => p.error),
      plans.map((p) => p.waits),
      ids,
    );
  }
  values.push(
    events.map((e) => e.plan_id),
    events.map((e) => e.node_id),
    events.map((e) => e.kind),
    events.map((e) => e.driver),
    events.map((e) => e.actor),
    events.map((e) => e.from_status),
    events.map((e) => e.to_status),
    events.map((e) => e.reason),
    events.map((e) => e.detail),
  );
  if (shape.claims) values.push(others, claim.owner, claim.leaseMs, claim.owner, claimReason(claim.owner));
  if (shape.notify) values.push(notify.channel, notify.payloads);
  values.push(nodes.length);
  if (shape.expect === 'many') values.push(expect.length);
  return { text: statement(shape), values };
}

const EXPECT_BITS = { none: 0, revision: 1, status: 2, many: 3 } as const;

function statement(shape: StepShape): string {
  const key =
    (shape.full ? 1 : 0) |
    (EXPECT_BITS[shape.expect] << 1) |
    (shape.moves ? 8 : 0) |
    (shape.claims ? 16 : 0) |
    (shape.notify ? 32 : 0) |
    (shape.known ? 64 : 0) |
    (shape.onePlan ? 128 : 0);
  let text = texts.get(key);
  if (text === undefined) texts.set(key, (text = build(shape)));
  return text;
}

/** A switch of a node write, as its bit in `v.f`. */
const on = (bit: number) => `(v.f & ${bit}) <> 0`;
const SET_OUTPUT = 1;
const SET_ANSWER = 2;
const SET_ERROR = 4;
const SET_SKIPPED_BY = 8;
const CLAIM = 16;
const CLEAR_LEASE = 32;
const FINISHED = 64;
const WAITS = 128;
const RUN_NOW = 256;
const RELATIVE = 512;

/** A node write's switches, as the bits the statement reads. */
function flags(n: NodeWrite): number {
  return (
    (n.set_output ? SET_OUTPUT : 0) |
    (n.set_answer ? SET_ANSWER : 0) |
    (n.set_error ? SET_ERROR : 0) |
    (n.set_skipped_by ? SET_SKIPPED_BY : 0) |
    (n.claim ? CLAIM : 0) |
    (n.clear_lease ? CLEAR_LEASE : 0) |
    (n.finished ? FINISHED : 0) |
    (n.waits ? WAITS : 0) |
    (n.run_after_delay === 0 ? RUN_NOW : 0) |
    (n.relative ? RELATIVE : 0)
  );
}

function build(shape: StepShape): string {
  const ctes: string[] = [];
  ctes.push(
    `v AS (SELECT * FROM unnest(CAST(? AS int[]), CAST(? AS text[]), CAST(? AS int[]), CAST(? AS int[]), CAST(? AS text[]), CAST(? AS text[]), ` +
      `CAST(? AS int[]), CAST(? AS int[]), CAST(? AS int[]), CAST(? AS text[]), CAST(? AS int[])` +
      (shape.full ? `, CAST(? AS text[]), CAST(? AS text[]), CAST(? AS bigint[]), CAST(? AS text[]), CAST(? AS text[])` : '') +
      `) AS v(id, exp_status, exp_waiting, exp_taken, exp_token, status, waiting, taken, f, output, attempts` +
      (shape.full ? `, answer, error, run_after_delay, skipped_by, attributes` : '') +
      `))`,
  );
  const rare = shape.full
    ? `answer = CASE WHEN ${on(SET_ANSWER)} THEN v.answer ELSE nodes.answer END, error = CASE WHEN ${on(SET_ERROR)} THEN v.error ELSE nodes.error END, ` +
      `run_after = CASE WHEN v.run_after_delay IS NULL THEN nodes.run_after WHEN v.run_after_delay = 0 THEN 0 ELSE NOW + v.run_after_delay END, ` +
      `skipped_by = CASE WHEN ${on(SET_SKIPPED_BY)} THEN v.skipped_by ELSE nodes.skipped_by END, attributes = COALESCE(v.attributes, nodes.attributes), ` +
      `waiting_since = CASE WHEN ${on(WAITS)} THEN NOW ELSE nodes.waiting_since END, remind_at = CASE WHEN ${on(WAITS)} THEN NULL ELSE nodes.remind_at END, ` +
      `timeout_at = CASE WHEN ${on(WAITS)} THEN NULL ELSE nodes.timeout_at END, `
    : `run_after = CASE WHEN ${on(RUN_NOW)} THEN 0 ELSE nodes.run_after END, `;
  // The id list (`nodes.id = ANY(…)`) besides the join with `v` keeps the generic plan's estimate near the custom
  // plans': without it, on a database of 10,000 nodes, PostgreSQL planned the statement afresh on every call, a chain
  // step's write twice as long (test/store/step-plan.db.test.ts).
  ctes.push(
    `u AS (UPDATE nodes SET status = v.status, ` +
      `waiting = CASE WHEN ${on(RELATIVE)} THEN nodes.waiting + v.waiting - v.exp_waiting ELSE v.waiting END, ` +
      `taken = CASE WHEN ${on(RELATIVE)} THEN nodes.taken + v.taken - v.exp_taken ELSE v.taken END, ` +
      `output = CASE WHEN ${on(SET_OUTPUT)} THEN v.output ELSE nodes.output END, attempts = COALESCE(v.attempts, nodes.attempts), ${rare}` +
      `lease_owner = CASE WHEN ${on(CLAIM)} THEN CAST(? AS text) WHEN ${on(CLEAR_LEASE)} THEN NULL ELSE nodes.lease_owner END, ` +
      `lease_token = CASE WHEN ${on(CLAIM)} THEN nodes.id || '.' || replace(gen_random_uuid()::text, '-', '') WHEN ${on(CLEAR_LEASE)} THEN NULL ELSE nodes.lease_token END, ` +
      `lease_expires_at = CASE WHEN ${on(CLAIM)} THEN NOW + CAST(? AS bigint) WHEN ${on(CLEAR_LEASE)} THEN NULL ELSE nodes.lease_expires_at END, ` +
      `started_at = CASE WHEN ${on(CLAIM)} THEN NOW ELSE nodes.started_at END, finished_at = CASE WHEN ${on(FINISHED)} THEN NOW ELSE nodes.finished_at END, updated_at = NOW ` +
      `FROM v WHERE nodes.id = v.id AND nodes.id = ANY(CAST(? AS int[])) AND nodes.status = v.exp_status ` +
      `AND CASE WHEN ${on(RELATIVE)} THEN nodes.waiting + v.waiting - v.exp_waiting > 0 ELSE nodes.waiting = v.exp_waiting AND nodes.taken = v.exp_taken END ` +
      `AND (v.exp_token IS NULL OR nodes.lease_token = v.exp_token) ` +
      `RETURNING ${on(CLAIM)} AS claim, ${CLAIMED_COLUMNS}, CASE WHEN ${on(CLAIM)} THEN ${BASIS_DEPENDENTS} END AS "dependents")`,
  );
  if (shape.expect === 'many') {
    ctes.push(
      `pl AS (SELECT p.id FROM unnest(CAST(? AS text[]), CAST(? AS text[]), CAST(? AS int[])) AS x(plan_id, status, revision) ` +
        `JOIN plans p ON p.id = x.plan_id AND p.status = x.status AND (x.revision IS NULL OR p.revision = x.revision) ` +
        `WHERE p.id = ANY(CAST(? AS text[])) FOR KEY SHARE OF p)`,
    );
  } else if (shape.expect !== 'none') {
    const revision = shape.expect === 'revision' ? ` AND p.revision = CAST(? AS int)` : '';
    ctes.push(`pl AS (SELECT p.id FROM plans p WHERE p.id = CAST(? AS text) AND p.status = CAST(? AS text)${revision} FOR KEY SHARE OF p)`);
  }
  if (shape.moves) {
    ctes.push(
      `pv AS (SELECT * FROM unnest(CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[]), CAST(? AS boolean[]), CAST(? AS text[]), CAST(? AS boolean[])) ` +
        `AS pv(plan_id, from_status, to_status, set_error, error, waits))`,
      `pu AS (UPDATE plans SET status = pv.to_status, error = CASE WHEN pv.set_error THEN pv.error ELSE plans.error END, updated_at = NOW, ` +
        `waiting_since = CASE WHEN pv.waits THEN NOW ELSE plans.waiting_since END, remind_at = CASE WHEN pv.waits THEN NULL ELSE plans.remind_at END, ` +
        `timeout_at = CASE WHEN pv.waits THEN NULL ELSE plans.timeout_at END ` +
        `FROM pv WHERE plans.id = pv.plan_id AND plans.id = ANY(CAST(? AS text[])) AND plans.status = pv.from_status RETURNING plans.id)`,
    );
  }
  ctes.push(
    `ev AS (SELECT * FROM unnest(CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[]), ` +
      `CAST(? AS text[]), CAST(? AS text[]), CAST(? AS text[])) WITH ORDINALITY AS ev(plan_id, node_id, kind, driver, actor, from_status, to_status, reason, detail, k))`,
  );
  if (shape.claims) {
    // The claim cannot see this statement's own writes: leave out the rows it writes and plans it moves away from running.
    ctes.push(
      `c AS (SELECT n.id FROM nodes n WHERE ${DUE} AND n.id NOT IN (SELECT id FROM v)` +
        (shape.moves ? ` AND n.plan_id NOT IN (SELECT plan_id FROM pv WHERE to_status <> 'running')` : '') +
        ` ORDER BY n.run_after, n.id LIMIT CAST(? AS int) FOR UPDATE OF n SKIP LOCKED)`,
      `cu AS (UPDATE nodes SET status = 'running', lease_owner = CAST(? AS text), lease_token = nodes.id || '.' || replace(gen_random_uuid()::text, '-', ''), ` +
        `lease_expires_at = NOW + CAST(? AS bigint), attempts = nodes.attempts + 1, started_at = NOW, updated_at = NOW FROM c WHERE nodes.id = c.id ` +
        `RETURNING ${CLAIMED_COLUMNS}, ${BASIS_DEPENDENTS} AS "dependents")`,
    );
  }
  // The plans whose nodes or events this statement writes, unless it moves them (pu sets updated_at then).
  // (One plan's nodes and events: the plan of the first node row written.)
  const touched =
    shape.onePlan && !shape.claims
      ? '(SELECT "planId" FROM u LIMIT 1)'
      : ['SELECT "planId" FROM u', ...(shape.claims ? ['SELECT "planId" FROM cu'] : []), 'SELECT plan_id FROM ev'].join(' UNION ');
  ctes.push(pgTouch(shape.moves ? `${touched} EXCEPT SELECT plan_id FROM pv` : touched));
  // A plan move's event (no node, kind status) is written only if the move was.
  const planMove = `ev.node_id IS NULL AND ev.kind = 'status'`;
  ctes.push(
    `e AS (INSERT INTO events (plan_id, node_id, kind, driver, actor, from_status, to_status, reason, detail, at) ` +
      `SELECT plan_id, node_id, kind, driver, actor, from_status, to_status, reason, detail, NOW FROM (` +
      `SELECT ev.k, ev.plan_id, ev.node_id, ev.kind, ev.driver, ev.actor, ev.from_status, ev.to_status, ev.reason, ev.detail FROM ev ` +
      `WHERE NOT (${planMove})${shape.moves ? ` OR ev.plan_id IN (SELECT id FROM pu)` : ''}` +
      (shape.claims
        ? ` UNION ALL SELECT 1000000000 + cu."rowId", cu."planId", cu."nodeId", 'status', 'engine', CAST(? AS text), 'ready', 'running', CAST(? AS text), NULL FROM cu`
        : '') +
      `) x ORDER BY k)`,
  );
  if (shape.notify) ctes.push(`nt AS (SELECT pg_notify(CAST(? AS text), p) FROM unnest(CAST(? AS text[])) AS p)`);

  const holds =
    `(SELECT count(*) FROM u) = CAST(? AS int)` +
    (shape.expect === 'many' ? ` AND (SELECT count(*) FROM pl) = CAST(? AS int)` : shape.expect !== 'none' ? ` AND EXISTS (SELECT FROM pl)` : '');
  const columns = `"rowId", "planId", "nodeId", type, label, attributes, attempts, waiting, taken, token, "leaseExpiresAt", "dependents"`;
  const out = [
    `SELECT 'h' AS kind, ${columns} FROM u WHERE claim`,
    ...(shape.claims ? [`SELECT 'c', ${columns} FROM cu`] : []),
    ...(shape.moves ? [`SELECT 'p', NULL, id, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM pu`] : []),
  ].join(' UNION ALL ');
  // The plan columns of each node handed or claimed, unless the caller knows them (then only the claimed nodes' are read).
  const read = shape.known ? (shape.claims ? `x.kind = 'c'` : undefined) : `x.kind <> 'p'`;
  const planColumns = read
    ? `, p.params, p.attributes AS "planAttributes", p.status AS "planStatus", p.mode AS "planMode", p.revision AS "planRevision", ` +
      `p.root_plan_id AS "planRoot", p.agent_code AS "planAgent"`
    : '';
  return (
    `WITH ${ctes.join(', ')} ` +
    `SELECT x.*${planColumns}${shape.notify ? `, (SELECT count(*) FROM nt) AS "notified"` : ''} ` +
    `FROM (SELECT dotplan_step_holds(${holds}) AS holds) chk LEFT JOIN (${out}) x ON true` +
    (read ? ` LEFT JOIN plans p ON p.id = x."planId" AND ${read}` : '')
  );
}

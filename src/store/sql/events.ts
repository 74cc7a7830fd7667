import type { EventInput } from '../../engine/step.js';
import { EVENT_COLUMNS, toEventRecord, type EventRow } from '../rows.js';
import type { EventKind } from '../../model/types.js';
import type { EventRecord } from '../types.js';
import { chunk, repeated, rowParams, type Queryable, type Statement } from './executor.js';
import { toEventWrites, type EventWrite } from './persist-rows.js';

/** The audit log's rows: written in order (ids follow it), read oldest first. */
const INSERT = `INSERT INTO events (plan_id, node_id, kind, driver, actor, from_status, to_status, reason, detail, at) VALUES `;

export async function insertEvents(q: Queryable, events: readonly EventInput[]): Promise<void> {
  await insertEventRows(q, toEventWrites(events));
}

/** One multi-row INSERT per 400 events. */
export async function insertEventRows(q: Queryable, rows: readonly EventWrite[]): Promise<void> {
  for (const write of eventStatements(rows)) await q.run(write.sql, write.params);
}

/** The INSERT of `count` event rows (at most 400), made once per count: the same text, which the statement cache finds at once. */
const inserts: string[] = [];
const insertOf = (count: number) => (inserts[count] ??= INSERT + repeated('(?, ?, ?, ?, ?, ?, ?, ?, ?, NOW)', count));

/** The INSERTs of event rows, 400 a statement (ids follow the order). */
export function eventStatements(rows: readonly EventWrite[]): Statement[] {
  return chunk(rows, 400).map((part) => ({
    sql: insertOf(part.length),
    params: rowParams(part, (e) => [e.plan_id, e.node_id, e.kind, e.driver, e.actor, e.from_status, e.to_status, e.reason, e.detail]),
  }));
}

export async function listEvents(
  q: Queryable,
  filter: { planId?: string; nodeId?: string; rootPlanId?: string; after?: number; upTo?: number; kind?: EventKind; limit?: number },
): Promise<EventRecord[]> {
  const where = [
    filter.planId !== undefined ? 'plan_id = ?' : '',
    filter.nodeId !== undefined ? 'node_id = ?' : '',
    // A tree's events: its root's and every child plan's, interleaved in commit order.
    filter.rootPlanId !== undefined ? '(plan_id = ? OR plan_id IN (SELECT id FROM plans WHERE root_plan_id = ?))' : '',
    'id > ?',
    filter.upTo !== undefined ? 'id <= ?' : '',
    filter.kind !== undefined ? 'kind = ?' : '',
  ].filter(Boolean);
  const params = [
    ...(filter.planId !== undefined ? [filter.planId] : []),
    ...(filter.nodeId !== undefined ? [filter.nodeId] : []),
    ...(filter.rootPlanId !== undefined ? [filter.rootPlanId, filter.rootPlanId] : []),
    filter.after ?? 0,
    ...(filter.upTo !== undefined ? [filter.upTo] : []),
    ...(filter.kind !== undefined ? [filter.kind] : []),
  ];
  const limit = filter.limit !== undefined ? ` LIMIT ${Math.max(1, Math.floor(filter.limit))}` : '';
  const rows = await q.all<EventRow>(`SELECT ${EVENT_COLUMNS} FROM events WHERE ${where.join(' AND ')} ORDER BY id${limit}`, params);
  return rows.map(toEventRecord);
}

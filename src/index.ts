/**
 * dotplan as a library (`import { openDotplan } from 'dotplan'`): `openDotplan()` gives the use
 * cases (create, answer, retry, skip, cancel, pause, resume, reads), the event feed and an
 * in-process worker running the application's tools. See the README's "Programmatic API".
 */
export { openDotplan, withDefaults, type OpenDotplanOptions, type ConfigOverrides } from './operations/open.js';
export { Dotplan, type CommandOptions, type WorkerStartOptions } from './operations/dotplan.js';
export type { FromDot, FromTemplate } from './plans/prepare-plan.js';
export { Worker, type WorkerEventMap, type QuestionAsked } from './worker/worker.js';
export type { Tool, ToolContext, ToolCatalogue } from './tools/types.js';
export { Announcer, type AnnouncerOptions } from './notify/announcer.js';
export type { Notice } from './notify/notice.js';
export type { NotifierConfig } from './notify/targets.js';
export type { Config } from './config/defaults.js';
export type { EventFeed, EventRecord, Following, NodeRecord, PlanRecord, EdgeRecord, RevisionRecord, WakeEvent } from './store/types.js';
export { NODE_STATUSES, PLAN_STATUSES, NODE_TYPES, DRIVERS, EVENT_KINDS } from './model/types.js';
export type { NodeStatus, PlanStatus, Driver, EventKind, NodeType, RevisionAuthor } from './model/types.js';
export { DotplanError, NotFoundError, ConflictError, InvalidInputError, UsageError, ToolError, type ErrorCode } from './errors/errors.js';
export { ValidationError, type Diagnostic } from './model/diagnostics.js';

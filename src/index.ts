/**
 * dotplan as a library (`import { openDotplan } from 'dotplan'`): {@link openDotplan} gives a
 * {@link Dotplan} — the use cases (create, answer, retry, skip, cancel, pause, resume, review, edits,
 * reads, validate, render, report), the audit log ({@link DotplanEvents}) and an in-process
 * {@link Worker} running the application's tools. Every method checks its arguments and refuses a
 * wrong one with an {@link InvalidArgumentError}; every refusal is a {@link DotplanError} with a `code`.
 *
 * @packageDocumentation
 */

// Opening dotplan, and its use cases.
export { openDotplan, withDefaults, type OpenDotplanOptions, type ConfigOverrides } from './operations/open.js';
export { Dotplan, type CreatedPlan, type InboxEntry, type Modification } from './operations/dotplan.js';
export { DotplanReads } from './operations/dotplan-reads.js';
export type {
  ApplyOptions,
  CommandOptions,
  CreateOptions,
  RenderInput,
  RerunOptions,
  RevertOptions,
  RevisionDiff,
  RevisionEntry,
  WorkerStartOptions,
} from './operations/options.js';
export { DotplanEvents, type EventQuery } from './operations/events.js';
export type { RenderFormat, ReportFormat } from './operations/views.js';
export type { FromDot, FromGoal, FromTemplate } from './plans/prepare-plan.js';
export type { ApplyReport, EditProblem } from './operations/decide-revision.js';
export type { RightsProblem } from './revisions/rights.js';
export type { Conflict } from './revisions/merge.js';
export type { EdgeKey, PlanChange } from './revisions/diff.js';
export type { ValidationResult } from './validate/types.js';
export type { Waiting } from './model/waiting.js';
export type { Wait } from './plans/waits-for.js';

// Running plans in the application's process.
export { Worker, type WorkerEventMap, type QuestionAsked } from './worker/worker.js';
export type { ToolLog } from './worker/tool-logs.js';
export type { Tool, ToolContext, ToolCatalogue, ToolInputSchema } from './tools/types.js';
export { Announcer, type AnnouncerOptions } from './notify/announcer.js';
export type { Notice } from './notify/notice.js';
export { NOTIFIER_TYPES, type NotifierConfig, type NotifierType } from './notify/targets.js';
export type { Config } from './config/defaults.js';

// Tokens: the API tokens of `dotplan serve`, each with a scope.
export { DotplanTokens, TOKEN_SCOPES, scopeAllows, type TokenScope, type TokenRecord } from './operations/tokens.js';

// The HTTP API (`dotplan.http()`, `dotplan serve`).
export type { HttpApi, HttpOptions } from './http/app.js';
export type { HttpEnv, Principal } from './http/auth.js';
export { TooManyStreamsError, type EventHub, type EventHubOptions, type HubFilter } from './http/event-hub.js';
export type { OpenStreams, StreamOptions } from './http/routes/streams.js';

// What the methods return.
export type { Backend, EdgeRecord, EventRecord, Following, NodeRecord, ParentNode, PlanRecord, RevisionRecord } from './store/types.js';
export type { AgentDefinition, AgentKind } from './agents/types.js';
export type { McpHttpServer, McpServerConfig, McpStdioServer } from './mcp/servers.js';
export type { AgentHistory, TreeEntry, TreeView } from './operations/tree-views.js';
export type { LlmCallRecord, LlmCallInput, LlmPurpose, LlmOutcome } from './store/llm-queue.js';
export type { EventInput } from './engine/step.js';
export type { Attributes, GraphCluster, GraphEdge, GraphNode, PlanGraph, SourceLocation } from './model/types.js';
export { NODE_STATUSES, PLAN_STATUSES, NODE_TYPES, DRIVERS, EVENT_KINDS, REVISION_AUTHORS } from './model/types.js';
export type { NodeStatus, PlanStatus, Driver, EventKind, NodeType, RevisionAuthor } from './model/types.js';

// Errors.
export {
  DotplanError,
  NotFoundError,
  ConflictError,
  InvalidInputError,
  InvalidArgumentError,
  UsageError,
  ToolError,
  ERROR_CODES,
  type ErrorCode,
} from './errors/errors.js';
export { ValidationError, type Diagnostic, type Severity } from './model/diagnostics.js';

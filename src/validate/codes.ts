/**
 * Every diagnostic code the DOT reader, the validator, the LLM reply codec and the revision path produce, with what it
 * means. Codes are stable: scripts and the README rely on them.
 */
export const DIAGNOSTIC_CODES = {
  // reading DOT (src/dot)
  DOT_EMPTY: 'the input is empty, white space or comments only',
  DOT_SYNTAX: 'the DOT text cannot be parsed (line and column given)',
  DOT_MULTIPLE_GRAPHS: 'more than one graph in one input',
  DOT_UNDIRECTED: 'an undirected `graph` instead of a `digraph`',
  DOT_TOO_LARGE: 'the input is over a limit (settings limits.maxDotBytes, limits.maxDotElements)',
  DOT_TOO_DEEP: 'subgraphs or {...} groups nested more than 100 levels deep (line given), an HTML label nested too deeply, or an edge chain too long',
  // structure
  GRAPH_NO_NODES: 'warning: the plan has no nodes',
  NODE_DUPLICATE: 'two nodes with one id (hand-built graphs only)',
  NODE_UNDECLARED: 'a node only mentioned in an edge, with no attributes',
  EDGE_UNKNOWN_NODE: 'an edge names a node that is not in the plan (hand-built graphs only)',
  TYPE_MISSING: 'a node without `type`',
  TYPE_UNKNOWN: '`type` is not function, multiFunction, confirm or agent',
  NODE_TYPE_NOT_SUPPORTED: 'an agent node where agents are not allowed',
  STATUS_UNKNOWN: '`status` is neither a canonical status nor a seed alias',
  SELF_LOOP: 'an edge from a node to itself',
  CYCLE: 'a cycle of edges (nodes named in order)',
  // per-type attributes
  TOOL_CODE_MISSING: 'a function node without `toolCode` (error when ready/running, warning when pending)',
  TOOL_CALLS_MISSING: 'a multiFunction node without `toolCalls` (error when ready/running, warning when pending)',
  TOOL_CALLS_INVALID: '`toolCalls` is not a JSON array of {"toolCode", "toolInput"?}',
  TOOL_UNKNOWN: 'a `toolCode` that is not a registered tool',
  TOOL_INPUT_INVALID: "a literal `toolInput` (no references) that the tool's input schema refuses (an MCP tool's JSON schema, a tool's zod schema)",
  QUESTION_MISSING: 'a node waiting for a person without `question` (warning for a pending confirm node)',
  QUESTION_EMPTY: 'a node waiting for (or about to ask) a person with an empty `question`',
  AGENT_CODE_MISSING: 'an agent node without `agentCode` (error when ready/running, warning when pending)',
  AGENT_TASK_MISSING: 'an agent node without `task` (error when ready/running, warning when pending)',
  GROUP_PARALLEL_INVALID: "a cluster's `parallel` is not true or false (line given)",
  GROUP_ORDER_CONFLICT: 'an edge from a later to an earlier member of a serial group (parallel=false)',
  AGENT_UNKNOWN: 'an `agentCode` that is not a registered agent (dotplan agent list)',
  AGENT_NOT_ALLOWED: "an agent node in a child plan naming an agent its plan's agent may not call (its `agents`)",
  AGENT_PARAMS_INVALID: '`agentParams` is not a JSON object, or `detach` is not true/false',
  RETRIES_INVALID: '`retries` is not a non-negative whole number',
  DURATION_INVALID: '`retryDelay`, `timeout`, `remindEvery`, `answerTimeout` or `reviewTimeout` is not a duration (500ms, 10s, 5m, 1h, 1d, plain ms)',
  // references, edges, plan settings
  REFERENCE_INVALID: 'a malformed {{params...}} or {{nodes...}} reference (any other `{{...}}` is text left for the tool)',
  REFERENCE_UNKNOWN_NODE: '{{nodes.X...}} names a node that is not in the plan',
  REFERENCE_NOT_UPSTREAM: '{{nodes.X...}} names a node that is not upstream (add an edge)',
  PARAM_UNDECLARED: "{{params.x}} names a parameter the graph's `params` does not declare",
  WHEN_INVALID: 'an edge `when` condition that cannot be read',
  WHEN_TOO_COMPLEX: 'an edge `when` regular expression over the limits (1,000 compiled instructions; 10 unbounded repetitions alive at once, e.g. /(.*a){11}/)',
  GRAPH_ATTRIBUTE_INVALID:
    '`mode`, `onFailure`, `review`, `onReviewTimeout` or `verify` has a value that is not allowed, or a reflection limit (`maxRewriteAttempts`, `maxReplans`, `maxTokens`, `resultChars`) is not a whole number',
  ATTRIBUTE_INVALID: "a node's `verify` or `multiple` has a value that is not allowed",
  PARAMS_INVALID: "the graph's `params` declaration cannot be read",
  // LLM replies (src/llm/reply.ts, reply-rules.ts)
  REPLY_TOO_LARGE: 'the reply is larger than the setting reflection.maxReplyBytes; refused before it is read',
  REPLY_NO_PLAN: 'the reply has no @EP@ block',
  REPLY_UNCLOSED: 'an @EP@ block is never closed',
  REPLY_TWO_PLANS: 'the reply has more than one @EP@ block',
  REPLY_NOT_DIGRAPH: 'the @EP@ block holds something that is not a digraph (nothing, JSON, an undirected graph, ...)',
  REPLY_LOG_UNCLOSED: 'an @epupdatelog@ block is never closed',
  REPLY_NOTHING_TO_RUN: 'a reflection plan left with pending nodes but none ready, running or waiting (it would stall)',
  REPLY_ID_REUSED: 'a new node reuses the id of a node an earlier revision removed',
  // creating and revising a stored plan (src/plans/reset-history.ts, src/revisions, src/operations/decide-revision.ts)
  EDIT_BASE_INVALID: "an edit's `revision` or `asOfEvent` (what it was made from) is not a number",
  MERGE_CONFLICT: 'an edit changes what changed in the plan since the edit was made',
  HISTORY_RESET:
    'warning: a new plan given a running, done, failed or cancelled node, or a toolOutput, answer or error (e.g. another plan as plan show wrote it), or a node written ready or awaiting_input before its parents finished: the node starts pending, the value is left out',
  PLAN_CLOSED: 'a revision of a cancelled or rejected plan (or, by the LLM or a reviewer, of a plan that has ended): run it again with plan rerun',
} as const;

export type DiagnosticCode = keyof typeof DIAGNOSTIC_CODES;

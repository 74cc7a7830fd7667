import { readFile } from 'node:fs/promises';
import { InvalidInputError } from '../errors/errors.js';

/**
 * The script of the scripted OpenAI-compatible server (see scripted-server.ts): which replies it
 * gives, in which order or to which prompts. Read from a JSON file or given as an object, and
 * checked before the server starts, so that a typo is an error naming the file, the entry and the
 * fix rather than a reply that never comes.
 */
export interface ScriptedReply {
  /** A regular expression tested against the content of the request's last message; without it the entry answers in order. */
  match?: string;
  /** A regular expression tested against the text of every message of the request (an agent instance's task, say). */
  matchAny?: string;
  /** Native tool calls the assistant asks for (`finish_reason: "tool_calls"`), each with generated ids; with or without `content`. */
  toolCalls?: Array<{ name: string; arguments: unknown }>;
  /** The assistant's text; with `status`, the error's message. */
  content?: string;
  /** Structured output: returned as the message content, JSON-stringified. */
  json?: unknown;
  /** Answer with this HTTP error status (400–599) and an OpenAI-style error body instead. */
  status?: number;
  /** Token counts reported; default: a rough count (characters / 4). */
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** The `usage` object sent exactly as given, unchecked (a broken endpoint: `{"prompt_tokens": "abc"}`); instead of `usage`. */
  rawUsage?: unknown;
  /** Wait this long before answering. */
  delayMs?: number;
  /** With `status` (429, 503): the `Retry-After` header sent, in seconds. */
  retryAfter?: number;
  /** Stays usable after it answered. */
  repeat?: boolean;
}

export interface Script {
  /** The model named in replies; default: the model the request asked for. */
  model?: string;
  replies: ScriptedReply[];
}

const REPLY_KEYS = ['match', 'matchAny', 'content', 'json', 'toolCalls', 'status', 'usage', 'rawUsage', 'delayMs', 'retryAfter', 'repeat'] as const;

/** Reads and checks a script file; a file that cannot be read, is not JSON or is not a valid script is an InvalidInputError naming it. */
export async function loadScript(path: string): Promise<Script> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InvalidInputError(`cannot read script ${path}: ${code === 'ENOENT' ? 'no such file' : (error as Error).message}`, { cause: error });
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new InvalidInputError(`script ${path} is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  return checkScript(data, `script ${path}`);
}

/** Checks a script (from a file or code); `source` names it in errors, e.g. `script replies.json`. */
export function checkScript(data: unknown, source = 'script'): Script {
  const fail = (where: string, problem: string, fix: string): never => {
    throw new InvalidInputError(`${source}${where}: ${problem}; ${fix}`);
  };
  if (!isObject(data)) return fail('', 'must be a JSON object', 'write { "replies": [{ "content": "..." }] }');
  for (const key of Object.keys(data)) {
    if (key !== 'model' && key !== 'replies' && key !== '$schema') fail('', `"${key}" is not a script key`, 'use "model" and "replies"');
  }
  if (data.model !== undefined && (typeof data.model !== 'string' || data.model.trim() === '')) {
    fail(': "model"', 'must be a non-empty string', 'give the model name replies should report, or leave it out');
  }
  if (!Array.isArray(data.replies) || data.replies.length === 0) {
    fail(': "replies"', 'must be a non-empty array', 'list the replies, e.g. "replies": [{ "content": "..." }]');
  }
  const replies = (data.replies as unknown[]).map((entry, index) => checkReply(entry, (problem, fix) => fail(`: replies[${index}]`, problem, fix)));
  return { ...(data.model !== undefined ? { model: data.model as string } : {}), replies };
}

function checkReply(entry: unknown, fail: (problem: string, fix: string) => never): ScriptedReply {
  if (!isObject(entry)) return fail('must be an object', 'write { "content": "..." } or { "json": {...} } or { "status": 500 }');
  for (const key of Object.keys(entry)) {
    if (!(REPLY_KEYS as readonly string[]).includes(key)) fail(`"${key}" is not a reply key`, `use ${REPLY_KEYS.join(', ')}`);
  }
  const { match, matchAny, content, json, toolCalls, status, usage, rawUsage, delayMs, retryAfter, repeat } = entry;
  for (const [key, pattern] of [
    ['match', match],
    ['matchAny', matchAny],
  ] as const) {
    if (pattern === undefined) continue;
    if (typeof pattern !== 'string') fail(`"${key}" must be a string`, 'give a regular expression as a JSON string');
    try {
      new RegExp(pattern);
    } catch (error) {
      fail(`"${key}" is not a regular expression (${(error as Error).message})`, 'escape special characters with \\\\ (e.g. "\\\\(" for a parenthesis)');
    }
  }
  if (toolCalls !== undefined && !(Array.isArray(toolCalls) && toolCalls.length > 0 && toolCalls.every((c) => isObject(c) && typeof c.name === 'string'))) {
    fail('"toolCalls" must be a non-empty array of { "name": "...", "arguments": {...} }', 'name each tool the assistant calls, with its arguments');
  }
  if (content !== undefined && typeof content !== 'string')
    fail('"content" must be a string', 'give the assistant text as a string, or use "json" for structured output');
  if (status !== undefined && !(Number.isInteger(status) && (status as number) >= 400 && (status as number) <= 599)) {
    fail('"status" must be an HTTP error status from 400 to 599', 'e.g. 429 or 500; leave it out for a normal reply');
  }
  if (json !== undefined && (content !== undefined || status !== undefined)) {
    fail('"json" cannot be combined with "content" or "status"', 'give the structured reply in "json" alone');
  }
  if (content === undefined && json === undefined && status === undefined && toolCalls === undefined)
    fail('gives no reply', 'add "content", "json", "toolCalls" or "status"');
  if (usage !== undefined && !(isObject(usage) && isCount(usage.prompt_tokens) && isCount(usage.completion_tokens))) {
    fail('"usage" must be { "prompt_tokens": n, "completion_tokens": n }', 'give both as whole numbers of at least 0, or leave "usage" out');
  }
  if (usage !== undefined && rawUsage !== undefined)
    fail('"usage" and "rawUsage" cannot both be given', 'keep "usage" for counts, "rawUsage" for a broken endpoint');
  if (delayMs !== undefined && !isCount(delayMs)) fail('"delayMs" must be a whole number of at least 0', 'give the delay in milliseconds');
  if (retryAfter !== undefined && (!isCount(retryAfter) || status === undefined))
    fail('"retryAfter" must be a whole number of seconds, with "status"', 'give "status": 429 and the seconds to wait');
  if (repeat !== undefined && typeof repeat !== 'boolean') fail('"repeat" must be true or false', 'write "repeat": true');
  return entry;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

import { randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InvalidInputError } from '../errors/errors.js';
import { checkScript, type Script, type ScriptedReply } from './script.js';
import { historyProblem } from './history.js';

export { checkScript, loadScript, type Script, type ScriptedReply } from './script.js';

/**
 * An OpenAI-compatible HTTP server that answers from a script, for tests and the offline demo: the
 * real `openai` client talks to it as to any endpoint. `POST /v1/chat/completions` takes the first
 * entry not used yet (or marked `repeat`) whose `match` fits the last message; an entry can answer
 * with text, structured output (`json`), an HTTP error, after a delay. Nothing matching is a 500 that
 * says so. Every request is recorded, in memory and optionally as JSON lines in a file.
 */
export interface RecordedRequest {
  at: string;
  method: string;
  path: string;
  /** The parsed JSON body (undefined for GET, the raw text when it is not JSON). */
  body: unknown;
  /** Index of the script entry that answered; `unmatched` when none fitted; null when no entry was asked (model list, a refused request). */
  reply: number | 'unmatched' | null;
  /** The HTTP status answered. */
  status: number;
  /** The client gave up (closed the connection: its timeout, an abort) before the scripted answer went out. */
  aborted?: boolean;
}

export interface ScriptedServerOptions {
  script: Script;
  /** Default 0: any free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Append each request to this file as a JSON line. */
  recordFile?: string;
}

export interface ScriptedServer {
  /** Base URL ending in /v1 (what OPENAI_BASE_URL takes). */
  url: string;
  requests: RecordedRequest[];
  /** Script entries that have not answered yet. */
  remaining(): number;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 16 * 1024 * 1024;

export async function startScriptedServer(options: ScriptedServerOptions): Promise<ScriptedServer> {
  const script = checkScript(options.script);
  const patterns = script.replies.map((r) => (r.match === undefined ? undefined : new RegExp(r.match)));
  const anywhere = script.replies.map((r) => (r.matchAny === undefined ? undefined : new RegExp(r.matchAny)));
  const used = script.replies.map(() => false);
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const host = options.host ?? '127.0.0.1';

  const record = (entry: Omit<RecordedRequest, 'at'>): RecordedRequest => {
    const recorded = { at: new Date().toISOString(), ...entry };
    requests.push(recorded);
    if (options.recordFile) appendFileSync(options.recordFile, `${JSON.stringify(recorded)}\n`);
    return recorded;
  };

  const choose = (last: string, all: string): number | undefined => {
    const index = script.replies.findIndex(
      (reply, i) => (!used[i] || reply.repeat === true) && (patterns[i]?.test(last) ?? true) && (anywhere[i]?.test(all) ?? true),
    );
    if (index < 0) return undefined;
    used[index] = true;
    return index;
  };

  /** A request the server refuses without asking the script. */
  const refuse = (res: ServerResponse, method: string, path: string, body: unknown, status: number, message: string) => {
    record({ method, path, body, reply: null, status });
    sendError(res, status, message, 'invalid_request_error');
  };

  const completions = (res: ServerResponse, path: string, body: unknown) => {
    if (!isObject(body) || !Array.isArray(body.messages) || body.messages.length === 0) {
      return refuse(res, 'POST', path, body, 400, 'the body must be a JSON object with a non-empty "messages" array');
    }
    if (body.stream === true) return refuse(res, 'POST', path, body, 400, 'the scripted server does not stream: call without "stream": true');
    // A conversation the real API would refuse is refused here too (src/llm/history.ts).
    const problem = historyProblem(body.messages);
    if (problem !== undefined) return refuse(res, 'POST', path, body, 400, problem);
    const last = messageText(body.messages[body.messages.length - 1]);
    const index = choose(last, body.messages.map(messageText).join('\n'));
    if (index === undefined) {
      record({ method: 'POST', path, body, reply: 'unmatched', status: 500 });
      const unused = used.filter((u) => !u).length;
      return sendError(res, 500, `no scripted reply matches this request (${unused} unused); last message: ${last.slice(0, 200)}`, 'server_error');
    }
    const reply = script.replies[index]!;
    const recorded = record({ method: 'POST', path, body, reply: index, status: reply.status ?? 200 });
    let answered = false;
    const answer = () => {
      answered = true;
      if (res.destroyed) return;
      if (reply.status !== undefined) {
        if (reply.retryAfter !== undefined) res.setHeader('retry-after', String(reply.retryAfter));
        return sendError(
          res,
          reply.status,
          reply.content ?? `scripted error ${reply.status}`,
          errorType(reply.status),
          reply.status === 429 ? 'rate_limit_exceeded' : null,
        );
      }
      sendJson(res, 200, completion(script, reply, body));
    };
    if (!reply.delayMs) return answer();
    const timer = setTimeout(() => {
      timers.delete(timer);
      answer();
    }, reply.delayMs);
    timers.add(timer);
    // A client that gives up (its timeout, an abort) does not keep the timer.
    res.on('close', () => {
      if (!answered) recorded.aborted = true;
      clearTimeout(timer);
      timers.delete(timer);
    });
  };

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    readBody(req)
      .then((text) => {
        const body = parseBody(text);
        if (req.method === 'POST' && (path === '/v1/chat/completions' || path === '/chat/completions')) return completions(res, path, body);
        if (req.method === 'GET' && (path === '/v1/models' || path === '/models')) {
          record({ method: 'GET', path, body, reply: null, status: 200 });
          return sendJson(res, 200, { object: 'list', data: [{ id: script.model ?? 'scripted', object: 'model', created: 0, owned_by: 'dotplan' }] });
        }
        refuse(res, req.method ?? '', path, body, 404, `the scripted server answers POST /v1/chat/completions and GET /v1/models, not ${req.method} ${path}`);
      })
      .catch((error: Error) => refuse(res, req.method ?? '', path, undefined, 400, error.message));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(new InvalidInputError(`cannot listen on ${host}:${options.port ?? 0}: ${error.code === 'EADDRINUSE' ? 'the port is in use' : error.message}`)),
    );
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/v1`,
    requests,
    remaining: () => used.filter((u) => !u).length,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A chat completion as the real API shapes it. */
function completion(script: Script, reply: ScriptedReply, body: Record<string, unknown>) {
  const content = reply.json !== undefined ? JSON.stringify(reply.json) : (reply.content ?? '');
  const prompt = (body.messages as unknown[]).map(messageText).join('\n');
  const usage = reply.usage ?? { prompt_tokens: Math.ceil(prompt.length / 4), completion_tokens: Math.ceil(content.length / 4) };
  return {
    id: `chatcmpl-${randomUUID()}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: script.model ?? (typeof body.model === 'string' ? body.model : 'scripted'),
    choices: [
      reply.toolCalls
        ? {
            index: 0,
            message: {
              role: 'assistant',
              content: reply.content ?? null,
              refusal: null,
              tool_calls: reply.toolCalls.map((c) => ({
                id: `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
                type: 'function',
                function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {}) },
              })),
            },
            finish_reason: 'tool_calls',
            logprobs: null,
          }
        : { index: 0, message: { role: 'assistant', content, refusal: null }, finish_reason: 'stop', logprobs: null },
    ],
    usage:
      reply.rawUsage !== undefined
        ? reply.rawUsage
        : { prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}

/** A message's text: a string content, or the text parts of an array content. */
function messageText(message: unknown): string {
  const content = isObject(message) ? message.content : undefined;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => (isObject(part) && typeof part.text === 'string' ? part.text : '')).join('');
  return '';
}

function errorType(status: number): string {
  if (status === 429) return 'requests';
  if (status === 401) return 'authentication_error';
  return status >= 500 ? 'server_error' : 'invalid_request_error';
}

function sendError(res: ServerResponse, status: number, message: string, type: string, code: string | null = null): void {
  sendJson(res, status, { error: { message, type, param: null, code } });
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  if (res.destroyed || res.headersSent) return;
  const text = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error(`the body is larger than ${MAX_BODY_BYTES} bytes`));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

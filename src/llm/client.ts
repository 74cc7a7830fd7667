import type OpenAI from 'openai';
import type { z } from 'zod';
import type { Config } from '../config/defaults.js';
import { DotplanError, InvalidInputError } from '../errors/errors.js';
import { usageCount } from './call-record.js';
import type { ChatMessage } from './prompt.js';
import { registerSecret } from '../secrets/redact.js';

/**
 * The engine's one way to the LLM (SPEC §6), on the `openai` package against any OpenAI-compatible
 * endpoint: plain chat for plans and answers, structured output checked by a zod schema for
 * judgements. Retries on 429, 5xx, network errors and timeouts are the package's own (exponential
 * backoff, `maxRetries`, per-attempt `timeout`); what still fails is an LlmError whose message names
 * the endpoint, the status and the model's own error text.
 */
export interface LlmSettings {
  /** An OpenAI-compatible endpoint; default: OpenAI's. */
  baseURL?: string;
  /** Not needed by local servers when `baseURL` is set. */
  apiKey?: string;
  /** The variable the key comes from, named in the error when it is missing. Default OPENAI_API_KEY. */
  apiKeyEnv?: string;
  model: string;
  /** Per attempt. */
  timeoutMs: number;
  /** Further attempts after a retryable failure. */
  maxRetries: number;
}

export interface LlmResult<T> {
  value: T;
  /** The reply's text as the model wrote it. */
  text: string;
  /** The model that answered, as the endpoint names it. */
  model: string;
  promptTokens: number;
  completionTokens: number;
  /** From the first attempt to the answer, retries and their backoff included. */
  ms: number;
}

export interface CallOptions {
  signal?: AbortSignal;
}

export interface LlmClient {
  /** The configured model. */
  readonly model: string;
  /** The chat completions URL, as errors name it. */
  readonly endpoint: string;
  chat(messages: ChatMessage[], options?: CallOptions): Promise<LlmResult<string>>;
  /** Structured output: the reply parsed and checked against `schema`; `name` is the schema's name sent to the model. */
  judge<T>(messages: ChatMessage[], schema: z.ZodType<T>, name: string, options?: CallOptions): Promise<LlmResult<T>>;
  /** Native tool calling (a ReAct turn): the conversation as the API takes it, the tools offered; the assistant's message. */
  chatWithTools(messages: readonly unknown[], tools: readonly ToolOffer[], options?: CallOptions & { model?: string }): Promise<LlmResult<AssistantTurn>>;
}

/** A tool offered to the model: its name, what it does, its input as a JSON schema. */
export interface ToolOffer {
  name: string;
  description?: string;
  parameters: Record<string, unknown>;
}

/** The assistant's message of a tool-calling turn: its text, and the calls it asks for (arguments as the model wrote them). */
export interface AssistantTurn {
  content: string | null;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
}

/** What went wrong with a call, for callers that treat them differently. */
export type LlmFailure = 'status' | 'connection' | 'timeout' | 'cancelled' | 'reply';

/** An LLM call that failed after the client's retries (or whose reply could not be used). */
export class LlmError extends DotplanError {
  readonly endpoint: string;
  readonly failure: LlmFailure;
  /** The HTTP status, when the endpoint answered with an error. */
  readonly status: number | undefined;
  constructor(message: string, details: { endpoint: string; failure: LlmFailure; status?: number; cause?: unknown }) {
    super('LLM_FAILED', message, { cause: details.cause });
    this.name = 'LlmError';
    this.endpoint = details.endpoint;
    this.failure = details.failure;
    this.status = details.status;
  }
}

const OPENAI_BASE_URL = 'https://api.openai.com/v1';
/** Local OpenAI-compatible servers ignore the key, but the package insists on one. */
const PLACEHOLDER_KEY = 'no-key-needed';

/** The client settings from the resolved config (its `openai.apiKey` is read from the variable named by `openai.apiKeyEnv`). */
export function llmSettings(config: Config): LlmSettings {
  const { baseURL, apiKey, apiKeyEnv, model, timeoutMs, maxRetries } = config.openai;
  return { ...(baseURL ? { baseURL } : {}), ...(apiKey ? { apiKey } : {}), apiKeyEnv, model, timeoutMs, maxRetries };
}

/** Why these settings reach no LLM endpoint (neither a base URL nor an API key), or undefined when they do. */
export function missingEndpoint(settings: Pick<LlmSettings, 'baseURL' | 'apiKey' | 'apiKeyEnv'>): string | undefined {
  if (settings.baseURL || settings.apiKey) return undefined;
  const variable = settings.apiKeyEnv ?? 'OPENAI_API_KEY';
  return `no LLM endpoint is configured: set ${variable} to use OpenAI, or OPENAI_BASE_URL (setting openai.baseURL) to use an OpenAI-compatible server`;
}

export function createLlmClient(settings: LlmSettings): LlmClient {
  const missing = missingEndpoint(settings);
  if (missing !== undefined) throw new InvalidInputError(missing);
  registerSecret(settings.apiKey); // redacted wherever stored (src/secrets/redact.ts)
  const baseURL = (settings.baseURL ?? OPENAI_BASE_URL).replace(/\/+$/, '');
  // The package (some 200 modules) is loaded at the first call, not when every command starts.
  let loaded: Promise<{ openai: OpenAI; sdk: OpenAiSdk }> | undefined;
  const client = () =>
    (loaded ??= loadSdk().then((sdk) => ({
      sdk,
      // Everything passed explicitly: the package would otherwise read OPENAI_* from the environment itself.
      openai: new sdk.OpenAI({ baseURL, apiKey: settings.apiKey ?? PLACEHOLDER_KEY, timeout: settings.timeoutMs, maxRetries: settings.maxRetries }),
    })));
  const endpoint = `${baseURL}/chat/completions`;
  const { model } = settings;

  const call = async <T>(
    prompt: string,
    send: (openai: OpenAI) => Promise<OpenAI.ChatCompletion>,
    read: (message: OpenAI.ChatCompletionMessage) => T,
  ): Promise<LlmResult<T>> => {
    const { openai, sdk } = await client();
    const started = Date.now();
    let completion: OpenAI.ChatCompletion;
    try {
      completion = await send(openai);
    } catch (error) {
      throw describeFailure(error, endpoint, settings, sdk.OpenAI);
    }
    const message = completion.choices[0]?.message;
    if (!message) throw new LlmError(`LLM endpoint ${endpoint} answered with no choices`, { endpoint, failure: 'reply' });
    if (message.refusal) throw new LlmError(`the model refused (${endpoint}): ${message.refusal}`, { endpoint, failure: 'reply' });
    return {
      value: read(message),
      text: message.content ?? '',
      model: completion.model || model,
      // What the endpoint says it used, sanitised: a bad `usage` must neither break the record nor lift the budget.
      promptTokens: usageCount(completion.usage?.prompt_tokens, prompt),
      completionTokens: usageCount(completion.usage?.completion_tokens, message.content ?? ''),
      ms: Date.now() - started,
    };
  };

  return {
    model,
    endpoint,
    chat: (messages, options = {}) =>
      call(
        promptText(messages),
        (openai) => openai.chat.completions.create({ model, messages }, { signal: options.signal ?? null }),
        (message) => message.content ?? '',
      ),
    chatWithTools: (messages, tools, options = {}) =>
      call(
        JSON.stringify(messages),
        (openai) =>
          openai.chat.completions.create(
            {
              model: options.model ?? model,
              messages: messages as OpenAI.ChatCompletionMessageParam[],
              ...(tools.length > 0
                ? {
                    tools: tools.map((t) => ({
                      type: 'function' as const,
                      function: { name: t.name, ...(t.description ? { description: t.description } : {}), parameters: t.parameters },
                    })),
                  }
                : {}),
            },
            { signal: options.signal ?? null },
          ),
        (message) => ({
          content: message.content ?? null,
          toolCalls: (message.tool_calls ?? []).flatMap((c) =>
            c.type === 'function' ? [{ id: c.id, name: c.function.name, arguments: c.function.arguments }] : [],
          ),
        }),
      ),
    judge: async <T>(messages: ChatMessage[], schema: z.ZodType<T>, name: string, options: CallOptions = {}) => {
      // Outside the call: a schema the helper cannot express is a bug, not a failed call.
      const format = (await client()).sdk.zodResponseFormat(schema, name);
      return call(
        promptText(messages),
        (openai) => openai.chat.completions.parse({ model, messages, response_format: format }, { signal: options.signal ?? null }),
        (message) => {
          const parsed = (message as OpenAI.ChatCompletionMessage & { parsed?: T | null }).parsed;
          if (parsed === null || parsed === undefined) {
            throw new LlmError(`LLM endpoint ${endpoint} gave no ${name} (an empty reply)`, { endpoint, failure: 'reply' });
          }
          return parsed;
        },
      );
    },
  };
}

/** The messages' text, for a token estimate when the endpoint reports no usable count. */
function promptText(messages: readonly ChatMessage[]): string {
  return messages.map((m) => m.content).join('\n');
}

/** The `openai` package's client class and its zod helper, loaded once per process on first use. */
interface OpenAiSdk {
  OpenAI: typeof OpenAI;
  zodResponseFormat: (typeof import('openai/helpers/zod'))['zodResponseFormat'];
}

let sdkLoaded: Promise<OpenAiSdk> | undefined;
function loadSdk(): Promise<OpenAiSdk> {
  return (sdkLoaded ??= Promise.all([import('openai'), import('openai/helpers/zod')]).then(([openai, helpers]) => ({
    OpenAI: openai.default,
    zodResponseFormat: helpers.zodResponseFormat,
  })));
}

/** One line for the user: where, what status or failure, and the model's own message; never a stack. */
function describeFailure(error: unknown, endpoint: string, settings: LlmSettings, OpenAI: OpenAiSdk['OpenAI']): LlmError {
  if (error instanceof LlmError) return error;
  const retries = settings.maxRetries === 1 ? '1 retry' : `${settings.maxRetries} retries`;
  if (error instanceof OpenAI.APIUserAbortError)
    return new LlmError(`the call to LLM endpoint ${endpoint} was cancelled`, { endpoint, failure: 'cancelled', cause: error });
  if (error instanceof OpenAI.APIConnectionTimeoutError) {
    return new LlmError(`LLM endpoint ${endpoint} did not answer within ${settings.timeoutMs} ms (after ${retries}; setting openai.timeoutMs)`, {
      endpoint,
      failure: 'timeout',
      cause: error,
    });
  }
  if (error instanceof OpenAI.APIConnectionError) {
    const cause = rootCause(error);
    return new LlmError(`cannot reach LLM endpoint ${endpoint} (after ${retries}): ${cause}`, { endpoint, failure: 'connection', cause: error });
  }
  const answered = httpFailure(error, OpenAI);
  if (answered) {
    const { status, said } = answered;
    const retried = status === 408 || status === 409 || status === 429 || status >= 500 ? ` (after ${retries})` : '';
    const hint =
      status === 401 || status === 403
        ? `; check the API key in ${settings.apiKeyEnv ?? 'OPENAI_API_KEY'}`
        : status === 404
          ? '; check the model name (setting openai.model) and the base URL'
          : '';
    return new LlmError(`LLM endpoint ${endpoint} answered HTTP ${status}${retried}: ${said}${hint}`, { endpoint, failure: 'status', status, cause: error });
  }
  // The reply came but could not be used: JSON that does not parse, or does not fit the schema.
  const reason = isZodError(error)
    ? error.issues.map((i) => `${i.path.length > 0 ? i.path.join('.') : '(root)'}: ${i.message}`).join('; ')
    : error instanceof Error
      ? error.message
      : String(error);
  return new LlmError(`LLM endpoint ${endpoint} gave a reply that cannot be used: ${reason}`, { endpoint, failure: 'reply', cause: error });
}

/** The HTTP status of an error answer and the model's own message (the body's `error.message`). */
function httpFailure(error: unknown, OpenAI: OpenAiSdk['OpenAI']): { status: number; said: string } | undefined {
  if (!(error instanceof OpenAI.APIError)) return undefined;
  const { status, error: body, message } = error as { status?: unknown; error?: unknown; message: string };
  if (typeof status !== 'number') return undefined;
  const said = body !== null && typeof body === 'object' && 'message' in body && typeof body.message === 'string' ? body.message : message.replace(/^\d+ /, '');
  return { status, said };
}

/** The innermost cause's message (`connect ECONNREFUSED 127.0.0.1:9`), not the package's "Connection error." */
function rootCause(error: Error): string {
  let current: unknown = error;
  while (current instanceof Error && current.cause instanceof Error) current = current.cause;
  const code = (current as NodeJS.ErrnoException).code;
  const message = (current as Error).message;
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}

function isZodError(error: unknown): error is { issues: Array<{ path: PropertyKey[]; message: string }> } {
  return error instanceof Error && error.name === 'ZodError' && Array.isArray((error as { issues?: unknown }).issues);
}

export type { ChatMessage } from './prompt.js';

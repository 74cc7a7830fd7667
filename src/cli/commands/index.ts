import type { Command } from 'commander';
import type { CliContext } from '../context.js';

export type GetContext = (command: Command) => Promise<CliContext>;
type Register = (program: Command, getContext: GetContext) => void;

/**
 * Each top-level command and the module that defines it, loaded only when its command runs: a
 * command pays for the code it uses, not for every other's (the LLM client, the worker, Graphviz …).
 */
const COMMANDS: Record<string, () => Promise<Register>> = {
  validate: async () => (await import('./validate.js')).registerValidateCommand,
  render: async () => (await import('./render.js')).registerRenderCommand,
  template: async () => (await import('./template.js')).registerTemplateCommands,
  plan: async () => (await import('./plan.js')).registerPlanCommands,
  inbox: async () => (await import('./plan.js')).registerPlanCommands,
  answer: async () => (await import('./operate.js')).registerOperateCommands,
  node: async () => (await import('./operate.js')).registerOperateCommands,
  worker: async () => (await import('./worker.js')).registerWorkerCommand,
  demo: async () => (await import('./demo.js')).registerDemoCommand,
  bench: async () => (await import('./bench.js')).registerBenchCommand,
  'parse-reply': async () => (await import('./parse-reply.js')).registerParseReplyCommand,
  llm: async () => (await import('./llm.js')).registerLlmCommands,
  notify: async () => (await import('./notify.js')).registerNotifyCommands,
  agent: async () => (await import('./agent.js')).registerAgentCommands,
  token: async () => (await import('./token.js')).registerTokenCommands,
  serve: async () => (await import('./serve.js')).registerServeCommand,
  mcp: async () => (await import('./mcp.js')).registerMcpCommands,
};

/**
 * Registers the commands the command line needs: only `name`'s module when it names a command,
 * none for a bare `--version` (`name` '--version'), every one otherwise (help, a mistyped command and its suggestions).
 */
export async function registerCommands(program: Command, getContext: GetContext, name: string | undefined): Promise<void> {
  if (name === '--version') return;
  const loaders = name !== undefined && COMMANDS[name] ? [COMMANDS[name]] : Object.values(COMMANDS);
  const registers = new Set(await Promise.all(loaders.map((load) => load())));
  for (const register of registers) register(program, getContext);
}

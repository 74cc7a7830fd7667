import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { registerPlanCommands } from './plan.js';
import { registerRenderCommand } from './render.js';
import { registerTemplateCommands } from './template.js';
import { registerValidateCommand } from './validate.js';
import { registerOperateCommands } from './operate.js';
import { registerWorkerCommand } from './worker.js';
import { registerDemoCommand } from './demo.js';
import { registerBenchCommand } from './bench.js';
import { registerParseReplyCommand } from './parse-reply.js';
import { registerLlmCommands } from './llm.js';
import { registerNotifyCommands } from './notify.js';
import { registerAgentCommands } from './agent.js';

export type GetContext = (command: Command) => Promise<CliContext>;

export function registerCommands(program: Command, getContext: GetContext): void {
  registerValidateCommand(program, getContext);
  registerRenderCommand(program, getContext);
  registerTemplateCommands(program, getContext);
  registerPlanCommands(program, getContext);
  registerOperateCommands(program, getContext);
  registerWorkerCommand(program, getContext);
  registerDemoCommand(program, getContext);
  registerBenchCommand(program, getContext);
  registerParseReplyCommand(program, getContext);
  registerLlmCommands(program, getContext);
  registerNotifyCommands(program, getContext);
  registerAgentCommands(program, getContext);
}

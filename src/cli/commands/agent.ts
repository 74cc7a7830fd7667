import type { Command } from 'commander';
import { formatTable, printJson } from '../io.js';
import type { GetContext } from './index.js';

export function registerAgentCommands(program: Command, getContext: GetContext): void {
  const agent = program.command('agent').description('the registered agents, and what their instances said to the model');
  agent
    .command('list')
    .description('list the agents agent nodes may name (the config file\'s "agents")')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }, command: Command) => {
      const ctx = await getContext(command);
      const agents = (await ctx.dotplan()).agents.list();
      if (opts.json) {
        printJson(ctx.io, agents);
        return;
      }
      if (agents.length === 0) {
        ctx.io.err(
          'no agents are configured: add "agents": [{"code": "searcher", "kind": "react", "description": "...", "tools": ["http"]}] to the config file (--config)',
        );
        return;
      }
      const rows = agents.map((a) => [a.code, a.kind, (a.tools ?? []).join(',') || '-', (a.agents ?? []).join(',') || '-', a.template ?? '-', a.description]);
      ctx.io.out(formatTable([['CODE', 'KIND', 'TOOLS', 'AGENTS', 'TEMPLATE', 'DESCRIPTION'], ...rows]));
    });
  agent
    .command('history')
    .description("an agent instance's conversation with the model, message by message")
    .argument('<instance>', 'an instance id (searcher_001) or its child plan id')
    .option('--root <id>', 'the tree, when several trees have this instance id')
    .option('--json', 'print JSON')
    .action(async (instance: string, opts: { root?: string; json?: boolean }, command: Command) => {
      const ctx = await getContext(command);
      const history = await (await ctx.reads()).agentHistory(instance, opts.root !== undefined ? { root: opts.root } : {});
      if (opts.json) {
        printJson(ctx.io, history);
        return;
      }
      ctx.io.out(`${history.instance ?? history.planId} (${history.mode}, plan ${history.planId}): ${history.messages.length} messages`);
      for (const m of history.messages as Array<{
        role?: string;
        content?: string | null;
        tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
        tool_call_id?: string;
      }>) {
        const calls = (m.tool_calls ?? []).map((c) => `\n    → ${c.function.name}(${c.function.arguments}) [${c.id}]`).join('');
        const to = m.tool_call_id ? ` [${m.tool_call_id}]` : '';
        ctx.io.out(`- ${m.role ?? '?'}${to}: ${m.content ?? ''}${calls}`);
      }
    });
}

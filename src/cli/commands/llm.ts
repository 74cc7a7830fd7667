import type { Command } from 'commander';
import { resolve } from 'node:path';
import { UsageError } from '../../errors/errors.js';
import { loadScript, startScriptedServer } from '../../llm/scripted-server.js';
import type { GetContext } from './index.js';
import { plural } from '../../model/plural.js';

/**
 * `dotplan llm ...`: helpers around the LLM endpoint. `llm serve` runs the scripted
 * OpenAI-compatible server (src/llm/scripted-server.ts) so that reflection mode, the demo and tests
 * work with no internet: point OPENAI_BASE_URL at it.
 */
export function registerLlmCommands(program: Command, getContext: GetContext): void {
  const llm = program.command('llm').description('the LLM endpoint: a scripted OpenAI-compatible server for offline runs and tests');
  llm
    .command('serve')
    .description('answer POST /v1/chat/completions from a script of replies (JSON) until stopped (SIGINT/SIGTERM)')
    .requiredOption(
      '--script <file>',
      'JSON script: { "model"?: "...", "replies": [{ "match"?, "content"?, "json"?, "status"?, "usage"?, "delayMs"?, "repeat"? }] }',
    )
    .option('--port <n>', 'port to listen on (0: any free port)', '0')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--record <file>', 'append every request to this file as a JSON line')
    .action(async (opts: { script: string; port: string; host: string; record?: string }, command: Command) => {
      const port = Number(opts.port);
      if (!/^\d+$/.test(opts.port.trim()) || port > 65535) throw new UsageError(`--port "${opts.port}": must be a port number from 0 to 65535`);
      const { io } = await getContext(command);
      const script = await loadScript(resolve(io.cwd, opts.script));
      const server = await startScriptedServer({ script, port, host: opts.host, ...(opts.record ? { recordFile: resolve(io.cwd, opts.record) } : {}) });
      const count = script.replies.length;
      io.err(`listening on ${server.url} (${plural(count, 'scripted reply', 'scripted replies')})`);
      io.err(`export OPENAI_BASE_URL=${server.url}`);
      io.err('export OPENAI_API_KEY=unused   # any value; the scripted server ignores it');
      let unsubscribe = () => undefined as void;
      const signal = await new Promise<string>((stopped) => (unsubscribe = io.onStop(stopped)));
      unsubscribe();
      await server.close();
      const unused = server.remaining();
      const unmatched = server.requests.filter((r) => r.reply === 'unmatched').length;
      io.err(
        `${signal}: stopped after ${plural(server.requests.length, 'request')}; ${count - unused} of ${plural(count, 'reply', 'replies')} used, ${unused} unused` +
          (unmatched > 0 ? `; ${plural(unmatched, 'request')} matched no reply` : ''),
      );
    });
}

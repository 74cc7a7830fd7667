import type { Dotplan } from '../../operations/dotplan.js';
import { endsPlan, type EventRecord, type NodeRecord } from '../../store/index.js';
import { ProgressPrinter } from '../../worker/progress.js';
import type { CliIO } from '../io.js';

/** How a demo answers a question: the text, and who answers (default: the OS user). */
export type DemoAnswer = (node: NodeRecord) => Promise<{ text: string; by?: string }>;

/**
 * Runs a demo's plan to its end on a worker of this process: each of its events printed as it comes
 * (JSON lines on stdout with `json`, else lines on stderr), each question answered by `answer`.
 * Returns the plan's last event (its end).
 */
export async function runDemoPlan(
  dotplan: Dotplan,
  planId: string,
  after: number,
  io: CliIO,
  json: boolean,
  answer: DemoAnswer,
): Promise<EventRecord | undefined> {
  const printer = new ProgressPrinter((line) => (json ? io.out(line) : io.err(line)), json);
  const worker = dotplan.worker().start();
  worker.on('worker:error', (error) => io.err(`worker: ${error instanceof Error ? error.message : String(error)}`));
  const watcher = dotplan.events.follow({ planId, after }, async (event) => {
    printer.print(event);
    if (event.nodeId !== undefined && event.kind === 'status' && event.to === 'awaiting_input') {
      const node = await dotplan.node(planId, event.nodeId);
      const { text, by } = await answer(node);
      await dotplan.answer(planId, node.id, text, by !== undefined ? { by } : {});
    }
    return endsPlan(event);
  });
  return watcher.ended.finally(() => worker.stop());
}

import type { ToolContext } from '../../src/tools/types.js';

/** A tool context as the worker would build it, collecting log lines. */
export function toolContext(overrides: Partial<ToolContext> = {}): ToolContext & { logs: string[] } {
  const logs: string[] = [];
  return {
    planId: 'plan-1',
    nodeId: 'node-1',
    attempt: 1,
    signal: new AbortController().signal,
    log: (message) => logs.push(message),
    logs,
    ...overrides,
  };
}

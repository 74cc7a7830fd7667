import { createRequire } from 'node:module';

type NodeCron = typeof import('node-cron');

const load = createRequire(import.meta.url);
let loaded: NodeCron | undefined;

/**
 * node-cron, loaded the first time it is used, and one copy of it per process: the settings check a
 * schedule with it, a worker's poller runs one. Most commands set no schedule and never load the
 * scheduler (26 ms to import on its own here). Its CommonJS build, because a setting is checked
 * synchronously; the poller takes the same one, so a worker does not load the ES build beside it.
 */
export function nodeCron(): NodeCron {
  return (loaded ??= load('node-cron') as NodeCron);
}

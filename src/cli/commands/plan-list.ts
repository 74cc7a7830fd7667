import type { Command } from 'commander';
import { Option } from 'commander';
import { PLAN_STATUSES, type PlanStatus } from '../../model/types.js';
import type { PlanRecord } from '../../store/types.js';
import { plansWithWaiting } from '../../operations/inbox.js';
import { formatTable, printJson } from '../io.js';
import type { GetContext } from './index.js';

/**
 * `plan list`: root plans, newest first (`--all`: child plans too), each with how many things wait for a
 * person in it and in the plans below it — so a root whose question waits two levels down says so.
 */
export function registerPlanListCommand(plan: Command, getContext: GetContext): void {
  plan
    .command('list')
    .description("list root plans, newest first, with what waits for a person in each and below it (--all: agent nodes' child plans too, with their parent)")
    .addOption(new Option('--status <status>', 'only plans in this status').choices([...PLAN_STATUSES]))
    .option('--all', 'child plans too, with a PARENT column (plan/node)')
    .option('--json', 'print JSON')
    .action(async (opts: { status?: PlanStatus; json?: boolean; all?: boolean }, command: Command) => {
      const ctx = await getContext(command);
      // Every plan, for the counts to reach each root from the children below it whatever is listed.
      const { plans: every, waiting } = await plansWithWaiting(await ctx.reads());
      const plans = every.reverse().filter((p) => (opts.status === undefined || p.status === opts.status) && (opts.all === true || !p.parent));
      const count = (p: PlanRecord) => waiting.get(p.id) ?? 0;
      if (opts.json) {
        printJson(
          ctx.io,
          plans.map((p) => ({
            id: p.id,
            status: p.status,
            title: p.title,
            template: p.template,
            error: p.error,
            createdAt: p.createdAt.toISOString(),
            updatedAt: p.updatedAt.toISOString(),
            waiting: count(p),
            ...(p.rerunOf !== undefined ? { rerunOf: p.rerunOf } : {}),
            ...(p.parent ? { parent: p.parent, rootPlanId: p.rootPlanId, instance: p.instance } : {}),
          })),
        );
        return;
      }
      if (plans.length === 0) {
        ctx.io.err(
          opts.status !== undefined
            ? `no ${opts.status} plans (plan list without --status shows them all)`
            : 'no plans yet: dotplan plan create --template <name> (see dotplan template list)',
        );
        return;
      }
      const shown = (p: PlanRecord) => (count(p) > 0 ? String(count(p)) : '-');
      if (opts.all) {
        const rows = plans.map((p) => [
          p.id,
          p.status,
          p.updatedAt.toISOString(),
          shown(p),
          p.parent ? `${p.parent.planId}/${p.parent.nodeId}` : '-',
          p.instance ?? '-',
          p.title,
        ]);
        ctx.io.out(formatTable([['ID', 'STATUS', 'UPDATED', 'WAITING', 'PARENT', 'INSTANCE', 'TITLE'], ...rows]));
      } else
        ctx.io.out(
          formatTable([['ID', 'STATUS', 'UPDATED', 'WAITING', 'TITLE'], ...plans.map((p) => [p.id, p.status, p.updatedAt.toISOString(), shown(p), p.title])]),
        );
    });
}

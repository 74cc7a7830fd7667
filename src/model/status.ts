import { NODE_STATUSES, type NodeStatus } from './types.js';

/** The seed's Chinese status names (design note 004), accepted as aliases on input. */
export const STATUS_ALIASES: Readonly<Record<string, NodeStatus>> = {
  待初始化: 'pending',
  待运行: 'ready',
  运行中: 'running',
  待用户输入中: 'awaiting_input',
  已完成: 'done',
  失败: 'failed',
  已跳过: 'skipped',
  已取消: 'cancelled',
};

/** Statuses after which a node never runs again without an operator. */
export const TERMINAL_NODE_STATUSES: ReadonlySet<NodeStatus> = new Set(['done', 'failed', 'skipped', 'cancelled']);

export function isNodeStatus(value: string): value is NodeStatus {
  return (NODE_STATUSES as readonly string[]).includes(value);
}

/** Canonical status for a canonical name or a seed alias; undefined when unknown. */
export function normaliseStatus(value: string): NodeStatus | undefined {
  const trimmed = value.trim();
  if (isNodeStatus(trimmed)) return trimmed;
  return STATUS_ALIASES[trimmed];
}

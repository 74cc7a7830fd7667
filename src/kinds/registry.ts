import type { NodeType } from '../model/types.js';
import { agentKind } from './agent.js';
import { confirmKind } from './confirm.js';
import { functionKind, multiFunctionKind } from './tools.js';
import type { NodeKind } from './types.js';

/** What each node type does when claimed, looked up by `type` (like tools by `toolCode`): one entry per kind. */
export const NODE_KINDS: ReadonlyMap<NodeType, NodeKind> = new Map([functionKind, multiFunctionKind, confirmKind, agentKind].map((kind) => [kind.type, kind]));

export function nodeKind(type: NodeType): NodeKind | undefined {
  return NODE_KINDS.get(type);
}

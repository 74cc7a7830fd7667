import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildAgentRegistry } from '../../agents/registry.js';
import type { AgentDefinition } from '../../agents/types.js';
import { startDemoA2aAgent, DEMO_SKILL } from '../../demo/a2a-agent.js';
import { startDemoMcpServer } from '../../demo/mcp-server.js';
import { Dotplan } from '../../operations/dotplan.js';
import { graphOrder } from '../../plans/graph-order.js';
import { openStore, type EventRecord, type NodeRecord } from '../../store/index.js';
import { createRegistry } from '../../tools/registry.js';
import { formatMs } from '../../worker/progress.js';
import type { CliContext } from '../context.js';
import { formatTable, type CliIO } from '../io.js';
import { displayPath } from './demo-intro.js';
import { runDemoPlan } from './demo-run.js';

/** The demo's own database: its worker knows only the demo's MCP server and agent, so it must run no other plan. */
const OWN_DATABASE = join('.dotplan', 'demo-interop.db');
const SERVER = 'shop';
const AGENT = 'courier';
/** The contact details in the task: the wrapper redacts them before the task leaves for the agent. */
const CONTACT = 'ops@example.com or +44 20 7946 0958';

const PLAN = `digraph interop {
  label="Interop demo: a failed delivery"
  lookup  [type=function shape=record label="look up the order (MCP)" toolCode="mcp:${SERVER}/lookup_order" toolInput="{\\"orderId\\": \\"A-1042\\"}"]
  rebook  [type=agent label="book a redelivery (A2A)" agentCode=${AGENT} task="Order {{nodes.lookup.output.orderId}}: {{nodes.lookup.output.item}}, {{nodes.lookup.output.status}} from the {{nodes.lookup.output.depot}} depot. Book a new delivery. Questions: contact ${CONTACT}."]
  lookup -> rebook
}
`;

/**
 * `dotplan demo --interop`: one plan, two protocols, offline. Its function node calls `lookup_order`
 * on an MCP server (streamable HTTP) and its agent node hands the order to an A2A agent, which asks
 * which delivery slot to book — asked on the terminal, or its first option when standard input is
 * not one — and completes. Both servers run in this process on 127.0.0.1 (src/demo/): real protocol
 * traffic through dotplan's own MCP client and A2A wrapper, which redacts the task's e-mail address
 * and phone number before it leaves and audits every exchange. What the agent received is printed
 * from the agent's side; the audit trail after the run. A database of its own, made afresh.
 */
export async function runInteropDemo(ctx: CliContext, json: boolean): Promise<void> {
  const started = Date.now();
  const file = join(ctx.io.cwd, OWN_DATABASE);
  const say = (line: string) => {
    if (!json) ctx.io.err(line);
  };
  say('dotplan demo --interop: a plan that calls a tool of an MCP server and hands a task to an A2A agent, both served by this process on 127.0.0.1');
  say(`  opening the database: SQLite ${displayPath(ctx.io.cwd, file)} (the demo's own, made afresh: its worker knows the demo's server and agent only)`);
  mkdirSync(join(ctx.io.cwd, '.dotplan'), { recursive: true });
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${file}${suffix}`, { force: true });
  // The MCP tools' cache goes in a folder of the demo's: the user's own (.dotplan/mcp-tools.json) is not touched.
  const scratch = mkdtempSync(join(tmpdir(), 'dotplan-demo-interop-'));
  const closing: Array<() => Promise<void>> = [];
  try {
    const mcp = await startDemoMcpServer((tool, args) => say(`  [MCP server ${SERVER}] called: ${tool} ${JSON.stringify(args)}`));
    closing.push(() => mcp.close());
    const remote = await startDemoA2aAgent((text, turn) => say(`  [A2A agent ${AGENT}] received ${turn === 'task' ? 'the task' : 'the reply'}: "${text}"`));
    closing.push(() => remote.close());
    const servers = { [SERVER]: { url: mcp.url } };
    const agent: AgentDefinition = {
      code: AGENT,
      kind: 'a2a',
      description: 'the demo courier desk: books a new delivery, asking which slot',
      url: remote.url,
      allowSkills: [DEMO_SKILL],
      skill: DEMO_SKILL,
    };
    const tools = await createRegistry({ http: ctx.config.http, mcp: servers, cwd: scratch });
    const dotplan = new Dotplan(
      await openStore({ url: `file:${file}`, cwd: ctx.io.cwd, retryDefaults: ctx.config.retry }),
      tools,
      { ...ctx.config, mcp: servers, agents: [agent] },
      ctx.io.cwd,
      buildAgentRegistry([agent], tools),
    );
    // Closed first: its MCP connections before the servers.
    closing.unshift(() => dotplan.close());
    const listed = tools.list().filter((t) => t.code.startsWith('mcp:'));
    say(`  MCP server "${SERVER}" at ${mcp.url} (tools: ${listed.map((t) => t.code).join(', ')})`);
    say(`  A2A agent "${AGENT}" at ${remote.url} (skill ${DEMO_SKILL}); the task names ${CONTACT}`);
    const after = await dotplan.events.lastId();
    const plan = await dotplan.create({ dot: PLAN });
    say(`  plan ${plan.id} "${plan.title}" on ${dotplan.backend}; one line per event:`);
    // A person at the terminal answers as themselves (the OS user); otherwise the demo does.
    const last = await runDemoPlan(dotplan, plan.id, after, ctx.io, json, async (node) => ({
      text: await askPerson(node, ctx.io, json),
      ...(ctx.io.stdin.isTTY ? {} : { by: 'demo' }),
    }));
    if (!json) await printSummary(dotplan, plan.id, Date.now() - started, ctx.io, displayPath(ctx.io.cwd, file));
    if (last?.to !== 'completed') ctx.exitCode = 1;
  } finally {
    for (const close of closing) await close().catch((error: unknown) => ctx.io.err(`closing: ${error instanceof Error ? error.message : String(error)}`));
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The agent's question, asked on a terminal until the answer is one of its options (empty: the first);
 * when standard input is not a terminal, its first option.
 */
async function askPerson(node: NodeRecord, io: CliIO, quiet: boolean): Promise<string> {
  const question = node.attributes.question ?? `Answer for ${node.id}?`;
  const options = (node.attributes.options ?? '').split(',').filter((o) => o !== '');
  const fallback = options[0] ?? 'yes';
  const offered = options.length > 0 ? `  options: ${options.join(' | ')}` : '';
  if (!io.stdin.isTTY) {
    if (!quiet)
      io.err(`  ? ${question}${offered}\n  → ${fallback} (${options.length > 0 ? 'the first option' : 'the default'}: standard input is not a terminal)`);
    return fallback;
  }
  for (;;) {
    const typed = (await io.stdin.ask(`  ? ${question}${offered} [${fallback}] `)).trim();
    if (typed === '') return fallback;
    const chosen = options.length === 0 ? typed : options.find((o) => o.toLowerCase() === typed.toLowerCase());
    if (chosen !== undefined) return chosen;
    io.err(`  "${typed}" is not one of the options: ${options.join(', ')}`);
  }
}

/** The nodes, what the tool returned and the agent answered, and the audit trail of the exchanges with the agent. */
async function printSummary(dotplan: Dotplan, planId: string, elapsedMs: number, io: CliIO, db: string): Promise<void> {
  const [plan, unordered, edges, remote] = await Promise.all([
    dotplan.plan(planId),
    dotplan.nodes(planId),
    dotplan.edges(planId),
    dotplan.events.list({ planId, kind: 'remote' }),
  ]);
  const nodes = graphOrder(unordered, edges);
  io.out(`\nPlan ${plan.id} ${plan.status} in ${formatMs(elapsedMs)}`);
  if (plan.error) io.out(`Error: ${plan.error}`);
  io.out(formatTable([['NODE', 'TYPE', 'STATUS', 'ATTEMPTS', 'ANSWER'], ...nodes.map((n) => [n.id, n.type, n.status, String(n.attempts), n.answer ?? ''])]));
  for (const n of nodes)
    if (n.output !== undefined) io.out(`\nOutput of ${n.id} (${n.type === 'agent' ? `agent ${AGENT}, A2A` : `mcp:${SERVER}, MCP`}):\n${n.output}`);
  io.out(`\nAudit trail: what went to agent ${AGENT} and came back, as the audit log keeps it (redacted before it left):`);
  io.out(formatTable([['AT', 'NODE', 'DIRECTION', 'STATE', 'TEXT'], ...remote.map(auditRow)]));
  const prefix = `dotplan --db file:${db}`;
  io.out(`\nInspect it: ${prefix} plan events ${plan.id} · ${prefix} plan show ${plan.id} · ${prefix} plan report ${plan.id}`);
}

function auditRow(event: EventRecord): string[] {
  const detail = event.detail ?? {};
  const text = (key: string) => (typeof detail[key] === 'string' ? detail[key] : '-');
  return [event.at.toISOString().slice(11, 23), event.nodeId ?? '', text('direction'), text('state'), text('text').replace(/\s+/g, ' ')];
}

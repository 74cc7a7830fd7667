/**
 * `dotplan demo --interop`, as a user runs it, offline: a plan whose function node calls `lookup_order`
 * on the demo's MCP server and whose agent node hands the order to the demo's A2A agent (both served
 * in the demo's process on loopback), which asks which delivery slot to book and then completes. It
 * runs in a SQLite database of its own whatever the configured one is (on a PostgreSQL run,
 * DATABASE_URL names a PostgreSQL database, which it must leave untouched).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanEnv, runDotplan } from '../support/cli.js';
import { createPostgresDatabase, testBackend } from '../support/db.js';

const CONTACT = /ops@example\.com|\+44 20 7946 0958|7946/;

describe('dotplan demo --interop', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  function freshDir(): string {
    const dir = mkdtempSync(join(tmpdir(), 'dotplan-demo-interop-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    return dir;
  }

  /** The environment of the run's backend: on PostgreSQL, DATABASE_URL names a fresh database of its own. */
  async function backendEnv(): Promise<NodeJS.ProcessEnv> {
    if (testBackend() !== 'postgres') return cleanEnv();
    const database = await createPostgresDatabase();
    cleanups.push(() => database.drop());
    return cleanEnv({ DATABASE_URL: database.url });
  }

  /** What the agent printed it received, one line per message, as it arrived at the agent. */
  function agentReceived(stderr: string): string[] {
    return [...stderr.matchAll(/^ {2}\[A2A agent courier\] received (?:the task|the reply): "(.*)"$/gm)].map((m) => m[1]!);
  }

  it("runs offline to completion without a terminal: the tool's result in the agent's task, its question answered with the first option, the contact redacted in what the agent got and in the audit trail", async () => {
    const dir = freshDir();
    const env = await backendEnv();
    const result = await runDotplan(['demo', '--interop'], { cwd: dir, env, timeoutMs: 60_000 });
    expect(result.code, result.stderr).toBe(0);
    expect(result.elapsedMs).toBeLessThan(30_000);
    const { stdout, stderr } = result;

    // It says what it does and where, then the two servers on loopback.
    expect(stderr.split('\n')[0]).toMatch(/^dotplan demo --interop: a plan that calls a tool of an MCP server and hands a task to an A2A agent/);
    expect(stderr).toMatch(/^ {2}opening the database: SQLite \.dotplan\/demo-interop\.db \(the demo's own, made afresh/m);
    expect(stderr).toMatch(/^ {2}MCP server "shop" at http:\/\/127\.0\.0\.1:\d+\/mcp \(tools: mcp:shop\/lookup_order\)$/m);
    expect(stderr).toMatch(/^ {2}A2A agent "courier" at http:\/\/127\.0\.0\.1:\d+ \(skill redelivery\)/m);

    // The MCP call, and its structured result, which the agent node's task is made from.
    expect(stderr).toMatch(/^ {2}\[MCP server shop\] called: lookup_order \{"orderId":"A-1042"\}$/m);
    expect(stdout).toMatch(
      /^Output of lookup \(mcp:shop, MCP\):\n\{"orderId":"A-1042","item":"an anvil \(40 kg\)","status":"delivery failed","depot":"Lyon","attempts":1\}$/m,
    );
    const received = agentReceived(stderr);
    expect(received).toEqual([
      'Order A-1042: an anvil (40 kg), delivery failed from the Lyon depot. Book a new delivery. Questions: contact [redacted email] or [redacted phone].',
      'tomorrow morning',
    ]);

    // The agent's question with its options, and the answer taken for nobody at a terminal.
    expect(stderr).toMatch(/^ {2}\? Which delivery slot should the courier book for A-1042\? {2}options: tomorrow morning \| tomorrow afternoon \| Friday$/m);
    expect(stderr).toMatch(/^ {2}→ tomorrow morning \(the first option: standard input is not a terminal\)$/m);
    expect(stderr).toMatch(/node rebook\s+running → awaiting_input/);

    // Completed; the agent's artifact is the node's output, quoting the task as it arrived.
    expect(stdout).toMatch(/^Plan p_\S+ completed in [\d.]+m?s$/m);
    expect(stdout).toMatch(/^lookup\s+function\s+done\s+1\s*$/m);
    expect(stdout).toMatch(/^rebook\s+agent\s+done\s+\d+\s+tomorrow morning$/m);
    expect(stdout).toMatch(/^Output of rebook \(agent courier, A2A\):\nRedelivery of A-1042 booked for tomorrow morning; the courier will call ahead\./m);

    // The audit trail: each exchange, redacted, in order.
    const audit = stdout.slice(stdout.indexOf('Audit trail'));
    const rows = [...audit.matchAll(/^\d\d:\d\d:\d\d\.\d{3} {2}rebook {2}(sent|received) +(\S+) +(.*)$/gm)].map((m) => [m[1], m[2], m[3]]);
    expect(rows).toEqual([
      ['sent', '-', received[0]],
      ['received', 'input-required', 'Which delivery slot should the courier book for A-1042?'],
      ['sent', '-', 'tomorrow morning'],
      ['received', 'completed', expect.stringMatching(/^Redelivery of A-1042 booked for tomorrow morning; .*\[redacted email\] or \[redacted phone\]\."$/)],
    ]);
    // The contact is in the plan (the intro names it), never in what reached the agent or what came back.
    expect(stderr).toMatch(/the task names ops@example\.com or \+44 20 7946 0958/);
    for (const text of received) expect(text).not.toMatch(CONTACT);
    expect(stdout).not.toMatch(CONTACT);
    expect(stderr).not.toMatch(/\n\s+at /); // no stack trace

    // Its own database; the configured one (default SQLite, or the run's PostgreSQL database) is left alone.
    expect(existsSync(join(dir, '.dotplan', 'demo-interop.db'))).toBe(true);
    expect(existsSync(join(dir, '.dotplan', 'dotplan.db'))).toBe(false);
    expect(existsSync(join(dir, '.dotplan', 'mcp-tools.json'))).toBe(false);
    const list = await runDotplan(['plan', 'list', '--json'], { cwd: dir, env });
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([]);
    const events = await runDotplan(['--db', 'file:.dotplan/demo-interop.db', 'plan', 'events', /^Plan (p_\S+)/m.exec(stdout)![1]!, '--json'], { cwd: dir });
    const remote = (JSON.parse(events.stdout) as Array<{ kind: string; detail?: { direction?: string; text?: string } }>).filter((e) => e.kind === 'remote');
    expect(remote.map((e) => e.detail?.direction)).toEqual(['sent', 'received', 'sent', 'received']);
    expect(remote[0]?.detail?.text).toBe(received[0]);
  });

  it.runIf(testBackend() === 'sqlite')(
    "on a terminal it asks the agent's question, again when the answer is not an option, and sends the person's answer",
    async () => {
      const dir = freshDir();
      const result = await runDotplan(['demo', '--interop'], { cwd: dir, env: cleanEnv(), answers: ['next week', 'friday'], timeoutMs: 60_000 });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toMatch(
        /^ {2}\? Which delivery slot should the courier book for A-1042\? {2}options: tomorrow morning \| tomorrow afternoon \| Friday \[tomorrow morning\] next week$/m,
      );
      expect(result.stderr).toMatch(/^ {2}"next week" is not one of the options: tomorrow morning, tomorrow afternoon, Friday$/m);
      expect(result.stderr).not.toMatch(/standard input is not a terminal/);
      // The option as the agent wrote it, sent back on the same task.
      expect(agentReceived(result.stderr)[1]).toBe('Friday');
      expect(result.stdout).toMatch(/^rebook\s+agent\s+done\s+\d+\s+Friday$/m);
      expect(result.stdout).toMatch(/^Redelivery of A-1042 booked for Friday; /m);
    },
  );

  it.runIf(testBackend() === 'sqlite')('--json prints the events as JSON lines, the remote ones redacted; --interop takes no other demo flag', async () => {
    const dir = freshDir();
    const result = await runDotplan(['demo', '--interop', '--json'], { cwd: dir, env: cleanEnv(), timeoutMs: 60_000 });
    expect(result.code, result.stderr).toBe(0);
    const events = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { kind: string; to: string; nodeId?: string; detail?: { text?: string } });
    expect(events.at(-1)).toMatchObject({ kind: 'status', to: 'completed' });
    const sent = events.find((e) => e.kind === 'remote');
    expect(sent?.detail?.text).toMatch(/contact \[redacted email\] or \[redacted phone\]\.$/);
    expect(result.stdout).not.toMatch(CONTACT);

    const usage = await runDotplan(['demo', '--interop', '--agents'], { cwd: dir, env: cleanEnv() });
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/--interop runs its own plan: it takes no --template, --set, --reflection or --agents/);
  });
});

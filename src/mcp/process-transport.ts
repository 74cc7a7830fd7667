import { spawn, type ChildProcess } from 'node:child_process';
import { ReadBuffer, serializeMessage, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import { getDefaultEnvironment } from '@modelcontextprotocol/client/stdio';

/** How long a server has to exit once its input closes, before its process group gets SIGTERM. */
const INPUT_CLOSED_GRACE_MS = 300;
/** How long it then has before the group gets SIGKILL. */
const EXIT_GRACE_MS = 2_000;
/** The last this many characters of the server's standard error are kept for error messages. */
const STDERR_TAIL = 2_000;

export interface ProcessServer {
  command: string;
  args: readonly string[];
  env: Record<string, string>;
  cwd?: string;
}

/**
 * The MCP stdio transport, with the server in a process group of its own: closing it ends the
 * server and whatever the server started (an `npx` wrapper's child, a shell's command), which the
 * SDK's transport — signalling only the process it spawned — would leave behind. Its standard error
 * is kept (the last {@link STDERR_TAIL} characters) for the message when it dies, not printed.
 */
export class ProcessGroupTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  #child: ChildProcess | undefined;
  #exited: Promise<void> = Promise.resolve();
  readonly #buffer = new ReadBuffer();
  #stderr = '';

  constructor(private readonly server: ProcessServer) {}

  /** What the server last wrote to its standard error. */
  get stderr(): string {
    return this.#stderr.trim();
  }

  /** Its process id while it runs. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.server.command, [...this.server.args], {
        env: { ...getDefaultEnvironment(), ...this.server.env },
        cwd: this.server.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true,
        shell: false,
      });
      this.#child = child;
      this.#exited = new Promise((done) => child.once('exit', () => done()));
      child.once('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.once('spawn', () => resolve());
      child.once('close', () => {
        this.#child = undefined;
        this.onclose?.();
      });
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => {
        try {
          this.#buffer.append(chunk);
        } catch (error) {
          // A line longer than the buffer's limit: the server is broken; its calls fail and the next one starts it again.
          this.onerror?.(error instanceof Error ? error : new Error(String(error)));
          void this.close();
          return;
        }
        this.#drain();
      });
      child.stderr?.on('data', (chunk: Buffer) => {
        this.#stderr = (this.#stderr + chunk.toString('utf8')).slice(-STDERR_TAIL);
      });
    });
  }

  #drain(): void {
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.#buffer.readMessage();
      } catch (error) {
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.#child?.stdin;
      if (!stdin || stdin.destroyed) return reject(new Error('the MCP server process is not running'));
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /**
   * Ends the server as the MCP spec asks: its input closes; if it has not exited shortly after, its
   * process group gets SIGTERM, and after a grace period SIGKILL. Whatever it started dies with it.
   */
  async close(): Promise<void> {
    const child = this.#child;
    if (!child || child.pid === undefined) return;
    const exitsWithin = (ms: number) => Promise.race([this.#exited.then(() => true), delay(ms).then(() => false)]);
    child.stdin?.end();
    if (!(await exitsWithin(INPUT_CLOSED_GRACE_MS))) {
      signalGroup(child.pid, 'SIGTERM');
      await exitsWithin(EXIT_GRACE_MS);
    }
    // Its children may outlive it: the group is killed in any case (and the process itself, should it have left the group).
    signalGroup(child.pid, 'SIGKILL');
    child.kill('SIGKILL');
    await this.#exited;
    this.#buffer.clear();
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is gone already
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

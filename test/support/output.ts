/**
 * What a running `dotplan` command has printed so far, in-process or in a subprocess: its stdout
 * and stderr, and waiting for a line that matches.
 */
export class Output {
  stdout = '';
  stderr = '';
  private ended: string | undefined;
  private readonly watchers = new Set<() => void>();

  constructor(private readonly what: string) {}

  write(stream: 'stdout' | 'stderr', text: string): void {
    this[stream] += text;
    this.changed();
  }

  /** The command is over (`why` says how); waiting for output that has not come is now an error. */
  end(why: string): void {
    this.ended = why;
    this.changed();
  }

  /** Resolves with the first line of stdout or stderr that matches; rejects after `timeoutMs` or once the command has ended without it. */
  waitFor(pattern: RegExp, timeoutMs = 20_000): Promise<string> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const line = `${this.stdout}\n${this.stderr}`.split('\n').find((l) => pattern.test(l));
        if (line !== undefined) finish(() => resolve(line));
        else if (this.ended !== undefined) finish(() => reject(new Error(`${this.what} ${this.ended} before printing ${pattern}\n${this.printed()}`)));
      };
      const timer = setTimeout(
        () => finish(() => reject(new Error(`${this.what}: no output matching ${pattern} within ${timeoutMs} ms\n${this.printed()}`))),
        timeoutMs,
      );
      const finish = (settle: () => void) => {
        clearTimeout(timer);
        this.watchers.delete(check);
        settle();
      };
      this.watchers.add(check);
      check();
    });
  }

  private printed(): string {
    return `stdout:\n${this.stdout}\nstderr:\n${this.stderr}`;
  }

  private changed(): void {
    this.watchers.forEach((w) => w());
  }
}

/**
 * Wakes a worker's loop at a time it names — the earliest asked for since the last wake-up — for
 * notices and timeouts due (the attention sweep). A time later than the one set already is ignored.
 */
export class WakeTimer {
  #timer: NodeJS.Timeout | undefined;
  #at = 0;

  constructor(private readonly wake: () => void) {}

  /** Wakes the loop at `at` (5 ms after, so that what is due then is due), unless it is to wake earlier already. */
  at(at: Date): void {
    if (this.#timer && this.#at <= at.getTime()) return;
    clearTimeout(this.#timer);
    this.#at = at.getTime();
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        this.wake();
      },
      Math.min(Math.max(0, at.getTime() - Date.now()) + 5, 2 ** 31 - 1),
    );
  }

  clear(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

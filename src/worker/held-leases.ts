/**
 * The leases a worker holds, in memory its lease thread shares: the main thread writes a token into a
 * slot when it claims a node and clears the slot when the node's result is written; the thread reads
 * the slots when it renews. Nothing is sent between the threads per node (a message per claim woke
 * the thread each time: some 0.01 ms of a 0.2 ms SQLite chain step), and the thread is no more up to
 * date than it needs to be: a renewal reads what is held then.
 *
 * One writer (the main thread), one reader (the lease thread). Each slot has a sequence number that
 * is odd while the writer changes the slot (a seqlock): a reader that sees it odd, or changed across
 * its read, reads the slot again. A token that does not fit (more leases held than slots, or a longer
 * token) is refused by `add`, and the caller tells the thread of it by message instead.
 */
export class HeldLeases {
  /** Bytes per token: `<row id>.<32 hex digits>` is at most 52. */
  static readonly TOKEN_BYTES = 64;
  readonly #sequence: Int32Array;
  readonly #length: Int32Array;
  readonly #bytes: Uint8Array;
  readonly #slots: number;
  /** What the table is kept in: the lease thread builds its own HeldLeases on it (workerData). */
  readonly memory: SharedArrayBuffer;
  /** Writer side: where each token is, and the free slots (the lowest taken first). */
  readonly #slotOf = new Map<string, number>();
  readonly #free: number[];

  /** Memory for `slots` tokens, to hand to the lease thread (workerData) and to `new HeldLeases` on both sides. */
  static memory(slots: number): SharedArrayBuffer {
    return new SharedArrayBuffer(slots * (8 + HeldLeases.TOKEN_BYTES));
  }

  constructor(memory: SharedArrayBuffer) {
    this.memory = memory;
    this.#slots = memory.byteLength / (8 + HeldLeases.TOKEN_BYTES);
    if (!Number.isInteger(this.#slots)) throw new RangeError('HeldLeases: the memory was not made by HeldLeases.memory');
    this.#sequence = new Int32Array(memory, 0, this.#slots);
    this.#length = new Int32Array(memory, 4 * this.#slots, this.#slots);
    this.#bytes = new Uint8Array(memory, 8 * this.#slots);
    this.#free = Array.from({ length: this.#slots }, (_, i) => this.#slots - 1 - i);
  }

  /** Writer: holds `token`; false when it does not fit (no free slot, or longer than TOKEN_BYTES, or not ASCII). */
  add(token: string): boolean {
    if (this.#slotOf.has(token)) return true;
    if (token.length > HeldLeases.TOKEN_BYTES || !/^[\x20-\x7e]*$/.test(token)) return false;
    const slot = this.#free.pop();
    if (slot === undefined) return false;
    this.#slotOf.set(token, slot);
    this.#write(slot, () => {
      const at = slot * HeldLeases.TOKEN_BYTES;
      for (let i = 0; i < token.length; i++) this.#bytes[at + i] = token.charCodeAt(i);
      Atomics.store(this.#length, slot, token.length);
    });
    return true;
  }

  /** Writer: whether `token` is in a slot. */
  has(token: string): boolean {
    return this.#slotOf.has(token);
  }

  /** Writer: lets `token` go; false when it was not in a slot (it was told by message, or never held). */
  delete(token: string): boolean {
    const slot = this.#slotOf.get(token);
    if (slot === undefined) return false;
    this.#slotOf.delete(token);
    this.#write(slot, () => Atomics.store(this.#length, slot, 0));
    this.#free.push(slot);
    return true;
  }

  /** Reader: the tokens held now. */
  read(): string[] {
    const tokens: string[] = [];
    for (let slot = 0; slot < this.#slots; slot++) {
      const token = this.#readSlot(slot);
      if (token !== undefined) tokens.push(token);
    }
    return tokens;
  }

  #write(slot: number, change: () => void): void {
    Atomics.add(this.#sequence, slot, 1); // odd: being written
    change();
    Atomics.add(this.#sequence, slot, 1); // even again
  }

  /**
   * One slot's token, or undefined when it is free. The writer changes a slot in a few steps on its
   * own thread, so a read that overlaps one is simply read again; after many tries in a row (the
   * writer's thread stopped by the system mid-change) the slot is left out of this renewal, which
   * the lease's length allows (a renewal every third of it).
   */
  #readSlot(slot: number): string | undefined {
    for (let tries = 0; tries < 10_000; tries++) {
      const before = Atomics.load(this.#sequence, slot);
      if (before % 2 === 1) continue;
      const length = Atomics.load(this.#length, slot);
      const at = slot * HeldLeases.TOKEN_BYTES;
      const token = length === 0 ? undefined : String.fromCharCode(...this.#bytes.subarray(at, at + length));
      if (Atomics.load(this.#sequence, slot) === before) return token;
    }
    return undefined;
  }
}

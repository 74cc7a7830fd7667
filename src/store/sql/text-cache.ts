/**
 * A map from SQL text to what was made of it once (a prepared statement, a rewritten text), for texts
 * built afresh on every call: the same text, a new string each time. A `Map` hashes a new string
 * whole before it can look it up (about 2 µs per KB on these machines, and an agent step runs some
 * twenty statements of one to two KB); this looks it up by the text's length and 32 of its
 * characters, spread over it, and then compares the whole text with the few that share that key.
 * Equal to a `Map` of the texts (test/sql/text-cache.property.test.ts). When it holds `limit`
 * texts, the next new one empties it first (statement texts are few; an unbounded number means a
 * caller spells values into its SQL, and should not keep them all).
 */
export class TextCache<T> {
  readonly #buckets = new Map<number, Array<{ text: string; value: T }>>();
  #size = 0;

  constructor(private readonly limit: number) {}

  get size(): number {
    return this.#size;
  }

  /** The value made for `text`, made now by `make` if there is none yet. */
  getOrMake(text: string, make: (text: string) => T): T {
    const key = sampleKey(text);
    let bucket = this.#buckets.get(key);
    if (bucket !== undefined) for (const entry of bucket) if (entry.text === text) return entry.value;
    const value = make(text);
    if (this.#size >= this.limit) {
      this.#buckets.clear();
      this.#size = 0;
      bucket = undefined;
    }
    if (bucket === undefined) this.#buckets.set(key, (bucket = []));
    bucket.push({ text, value });
    this.#size++;
    return value;
  }
}

/** The length and 32 characters spread over the text (all of a text up to 64 characters), mixed. */
export function sampleKey(text: string): number {
  const length = text.length;
  const step = length > 64 ? Math.floor(length / 32) : 1;
  let key = length;
  for (let i = 0; i < length; i += step) key = (Math.imul(key, 31) + text.charCodeAt(i)) | 0;
  return key;
}

/**
 * HeldLeases: the leases a worker holds, in memory its lease thread reads. Against a Set as the
 * model, and read by a real thread while the main thread changes it (no token read half-written).
 */
import { randomUUID } from 'node:crypto';
import { Worker as Thread } from 'node:worker_threads';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HeldLeases } from '../../src/worker/held-leases.js';
import { waitUntil } from '../support/wait.js';

const token = (row: number) => `${row}.${randomUUID().replaceAll('-', '')}`;

describe('HeldLeases', () => {
  it('holds what a Set holds, within its slots; a token that does not fit is refused and not held', () => {
    const pool = [...Array.from({ length: 12 }, (_, i) => token(i)), `${'9'.repeat(40)}.${'f'.repeat(32)}`, 'x'.repeat(65), '12.\u00e9'];
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 8 }),
        fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: pool.length - 1 })), { maxLength: 80 }),
        (slots, ops) => {
          const held = new HeldLeases(HeldLeases.memory(slots));
          const model = new Set<string>();
          for (const [add, i] of ops) {
            const t = pool[i]!;
            if (add) {
              const fits = t.length <= HeldLeases.TOKEN_BYTES && /^[\x20-\x7e]*$/.test(t) && (model.has(t) || model.size < slots);
              expect(held.add(t)).toBe(fits);
              if (fits) model.add(t);
            } else {
              expect(held.delete(t)).toBe(model.delete(t));
            }
            expect(held.has(t)).toBe(model.has(t));
            expect(held.read().sort()).toEqual([...model].sort());
          }
        },
      ),
    );
  });

  it('is read whole by another thread while this one changes it', async () => {
    const universe = Array.from({ length: 64 }, (_, i) => token(i));
    const memory = HeldLeases.memory(16);
    const flags = new Int32Array(new SharedArrayBuffer(8)); // [reader started, writer done]
    const source = new URL('../../src/worker/held-leases.ts', import.meta.url).href;
    const reader = `
      const { workerData, parentPort } = require('node:worker_threads');
      import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))})
        .then(({ tsImport }) => tsImport(${JSON.stringify(source)}, ${JSON.stringify(source)}))
        .then(({ HeldLeases }) => {
          const held = new HeldLeases(workerData.memory);
          const known = new Set(workerData.universe);
          const flags = new Int32Array(workerData.flags);
          const bad = new Set();
          let reads = 0;
          Atomics.store(flags, 0, 1);
          while (Atomics.load(flags, 1) === 0) {
            for (const t of held.read()) if (!known.has(t)) bad.add(t);
            reads++;
          }
          parentPort.postMessage({ bad: [...bad], reads, last: held.read() });
        });`;
    const thread = new Thread(reader, { eval: true, workerData: { memory, universe, flags: flags.buffer } });
    const answer = new Promise<{ bad: string[]; reads: number; last: string[] }>((resolve, reject) => {
      thread.once('message', resolve);
      thread.once('error', reject);
    });
    await waitUntil(() => Atomics.load(flags, 0) === 1, 'the reader to start');

    const held = new HeldLeases(memory);
    const mine = new Set<string>();
    let state = 1;
    for (let i = 0; i < 200_000; i++) {
      state = (state * 1103515245 + 12345) % 2 ** 31; // a fixed pseudo-random walk
      const t = universe[state % universe.length]!;
      if (mine.has(t)) {
        held.delete(t);
        mine.delete(t);
      } else if (held.add(t)) mine.add(t);
    }
    Atomics.store(flags, 1, 1);
    const { bad, reads, last } = await answer;
    await thread.terminate();
    expect(bad).toEqual([]);
    expect(reads).toBeGreaterThan(0);
    expect(last.sort()).toEqual([...mine].sort());
  });
});

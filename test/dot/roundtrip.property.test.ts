import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readDot, writeDot } from '../../src/dot/index.js';
import { anyText, planGraph, withoutLocations } from './arbitraries.js';

describe('writeDot → readDot round trip', () => {
  it('gives back the same plan graph, whatever its ids and values hold', () => {
    fc.assert(
      fc.property(planGraph, (graph) => {
        const text = writeDot(graph);
        expect(withoutLocations(readDot(text))).toEqual(graph);
      }),
      { numRuns: 300 },
    );
  });

  it('writes the same text for a graph read back from its own output', () => {
    fc.assert(
      fc.property(planGraph, (graph) => {
        const text = writeDot(graph);
        expect(writeDot(readDot(text))).toBe(text);
      }),
      { numRuns: 100 },
    );
  });

  it('keeps any single value exactly, as a node id, an attribute value and the graph name', () => {
    fc.assert(
      fc.property(anyText, (value) => {
        const graph = {
          name: value,
          strict: false,
          attributes: { goal: value },
          nodes: [{ id: value, attributes: { toolInput: value, label: value } }],
          edges: [{ from: value, to: value, attributes: { when: value } }],
          clusters: [],
        };
        expect(withoutLocations(readDot(writeDot(graph)))).toEqual(graph);
      }),
      { numRuns: 300 },
    );
  });
});

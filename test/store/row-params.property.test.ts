import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rowParams } from '../../src/store/sql/executor.js';

describe('rowParams', () => {
  it("lists each row's values in order, as flatMap does", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.array(fc.integer(), { maxLength: 2 })), { maxLength: 12 }), {
          maxLength: 40,
        }),
        (rows) => {
          // A value that is itself an array stays one parameter (flatMap flattens one level, the callback's own list).
          expect(rowParams(rows, (row) => row)).toEqual(rows.flatMap((row) => row));
        },
      ),
    );
  });
});

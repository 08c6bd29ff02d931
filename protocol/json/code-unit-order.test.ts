import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sortCodeUnitOrder } from './code-unit-order.ts';

const SEED = 20261206;

describe('sortCodeUnitOrder', () => {
  it('orders as Array#sort does, by UTF-16 code units, short and long lists alike', () => {
    process.stdout.write(`code-unit order: fast-check seed ${String(SEED)}\n`);
    // Astral characters sort by their surrogates: '\u{1F600}' (D83D…) before '\uFF5E'.
    const name = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 4 }),
      fc.constantFrom('', 'a', 'B', '\uFF5E', '\u{1F600}', '\u00e9', '10', '9'),
    );
    fc.assert(
      fc.property(fc.uniqueArray(name, { maxLength: 60, size: 'max' }), (names) => {
        const sorted = [...names];
        sortCodeUnitOrder(sorted);
        expect(sorted).toEqual([...names].sort());
      }),
      { seed: SEED, numRuns: 500 },
    );
  });
});

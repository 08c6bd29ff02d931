import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { TextWindow } from './text-window.ts';

describe('TextWindow', () => {
  it('answers like one flat string of what it keeps, however the text was appended and cut', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: fc.constantFrom('a', '<', '>', 'é') }), { maxLength: 12 }),
        fc.nat(),
        fc.nat(),
        fc.nat(),
        (pieces, cut, from, length) => {
          const window = new TextWindow();
          for (const piece of pieces) window.append(piece);
          const flat = pieces.join('');
          const discardAt = flat.length === 0 ? 0 : cut % (flat.length + 1);
          window.discardBefore(discardAt);
          const start = discardAt + (flat.length === discardAt ? 0 : from % (flat.length - discardAt + 1));
          expect([window.start, window.end]).toEqual([discardAt, flat.length]);
          expect(window.slice(start, start + length)).toBe(flat.slice(start, start + length));
          const lt = flat.indexOf('<', start);
          expect(window.indexOf('<', start)).toBe(lt);
        },
      ),
    );
  });
});

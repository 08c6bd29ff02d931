import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// `npx prettier --stdin-filepath canonicalize.js < package/lib/canonicalize.js` of the
// canonicalize 5.1.0 tarball: any other content is an edit, not the vendored release.
const PRETTIER_FORMATTED_5_1_0 = '2dc44708e46d789037b62f623367afd60d7e3c084ea11097c536be459c33241c';

describe('vendored canonicalize', () => {
  it('is canonicalize 5.1.0 as formatted by prettier, byte for byte', () => {
    const source = readFileSync(new URL('./canonicalize.js', import.meta.url));
    expect(createHash('sha256').update(source).digest('hex')).toBe(PRETTIER_FORMATTED_5_1_0);
  });
});

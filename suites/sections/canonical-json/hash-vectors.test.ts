// The literal hash vectors (hash-vectors.ts) are what the canonical-json cases compare a
// gateway's hashes against at run time. Here, at test time only, they are checked twice more:
// the literal is the sha-256 of the hand-written bytes, and the project's canonicalizer turns
// each sent text into exactly those bytes (so a wrong literal and a wrong canonicalizer cannot
// both hide), and each refused vector is refused by the strict parser.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../harness/repo-root.ts';
import { canonicalJson } from '../../../protocol/json/canonical.ts';
import { JsonRejection } from '../../../protocol/json/json-rejection.ts';
import { parseStrictJson } from '../../../protocol/json/strict-json.ts';
import {
  fillVector,
  HASH_VECTORS,
  REFUSED_VECTORS,
  SPEC_FULL_MANIFEST_CANONICAL,
  SPEC_FULL_MANIFEST_HASH,
  SPEC_MINIMAL_MANIFEST_CANONICAL,
  SPEC_MINIMAL_MANIFEST_HASH,
  SPEC_MINIMAL_MANIFEST_SENT,
  VECTOR_LITERAL_DOMAIN,
  VECTOR_LOCALPART,
} from './hash-vectors.ts';

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('base64');
const JID = `${VECTOR_LOCALPART}@${VECTOR_LITERAL_DOMAIN}`;

describe('literal hash vectors', () => {
  it.each(HASH_VECTORS)('$name: the literal is the sha-256 of the hand-written canonical bytes', (vector) => {
    expect(sha256(fillVector(vector.canonical, JID))).toBe(vector.hash);
  });

  it.each(HASH_VECTORS)(
    '$name: the sent text canonicalizes to those bytes, and differs from them',
    (vector) => {
      const sent = fillVector(vector.sent, JID);
      expect(canonicalJson(parseStrictJson(sent))).toBe(fillVector(vector.canonical, JID));
      expect(sent).not.toBe(fillVector(vector.canonical, JID));
    },
  );

  it.each(REFUSED_VECTORS)('$name is refused by the strict parser', (vector) => {
    expect(() => parseStrictJson(fillVector(vector.sent, JID))).toThrow(JsonRejection);
  });

  it("the spec's examples: the full manifest is fFqw…, the minimal one K2/… (interp-01)", () => {
    expect(sha256(SPEC_FULL_MANIFEST_CANONICAL)).toBe(SPEC_FULL_MANIFEST_HASH);
    expect(sha256(SPEC_MINIMAL_MANIFEST_CANONICAL)).toBe(SPEC_MINIMAL_MANIFEST_HASH);
    const full = readFileSync(join(REPO_ROOT, 'fixtures', 'manifests', 'weather-full.json'), 'utf8');
    expect(canonicalJson(parseStrictJson(full))).toBe(SPEC_FULL_MANIFEST_CANONICAL);
    // The register-1 example's text: the same canonical bytes, however it is indented.
    expect(canonicalJson(parseStrictJson(SPEC_MINIMAL_MANIFEST_SENT))).toBe(SPEC_MINIMAL_MANIFEST_CANONICAL);
  });
});

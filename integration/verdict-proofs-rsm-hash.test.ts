// Issue 14, items 6 and 7, Done when: each new family fails against a deliberately broken
// variant of the reference gateway (harness/sut/source-variant.ts), each run on a --grep subset
// (a subset can prove a failure, never a pass).
import { describe, expect, it } from 'vitest';
import { variantPatches, type GatewayVariant } from './variants/gateway-variants.ts';
import { caseOf, describeRun, verdictOf } from './variants/run-agentconf.ts';
import { useVariantRun } from './variants/use-variant-run.ts';

/** Directory and tool collections ordered by UTF-16 code units (JavaScript string order), not octets. */
const UTF16_ORDER: GatewayVariant = {
  name: 'utf16-order',
  change: 'directory, search and tool collections sorted and positioned by UTF-16 code units',
  patches: variantPatches('utf16-order'),
};

/** Serves canonical bytes but hashes the document as JSON.stringify indents it (member order as parsed). */
const NONCANONICAL_HASH: GatewayVariant = {
  name: 'noncanonical-hash',
  change: 'manifest and schema hashes computed over indented JSON.stringify bytes instead of RFC 8785 bytes',
  patches: variantPatches('noncanonical-hash'),
};

describe('a directory and tool collections ordered by UTF-16 code units', () => {
  const run = useVariantRun(UTF16_ORDER, { grep: ['rsm-random'] });

  it('FAILS every random-path case (﨎/𠀀 and the random worlds in the directory and search, surrogate-pair tool names in the toolbox)', () => {
    for (const id of [
      'list-agents.rsm-random-paths',
      'list-agents.rsm-random-world',
      'list-tools.rsm-random-paths',
      'search.rsm-random-paths',
    ]) {
      expect(caseOf(run(), id).outcome, `${id}\n${describeRun(run())}`).toBe('failed');
    }
    expect(verdictOf(run(), 'core-directory').verdict).toBe('failed');
    expect(verdictOf(run(), 'tool-discovery').verdict).toBe('failed');
    expect(verdictOf(run(), 'jabber-search').verdict).toBe('failed');
  });
});

describe('manifest hashes over non-canonical bytes', () => {
  const run = useVariantRun(NONCANONICAL_HASH, { grep: ['canonical-json'] });

  it('FAILS every literal-vector case', () => {
    for (const id of [
      'canonical-json.spec-example-endpoint-hash',
      'canonical-json.spec-example-served-hash',
      'canonical-json.registered-literal-vectors',
    ]) {
      expect(caseOf(run(), id).outcome, `${id}\n${describeRun(run())}`).toBe('failed');
    }
  });
});

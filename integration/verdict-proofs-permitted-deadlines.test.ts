// Issue 22, item 2 (deadlines beyond bounds): interp-32 lets a gateway either clamp a deadline
// above a tool's maximumTimeoutSeconds (task state then shows the clamped one: the reference
// gateway) or refuse the invocation with not-acceptable. invocation.model-deadlines invokes
// script.bounded (maximum 600 s, below the gateway's own 3600 s) at deadlines around and beyond
// it. The refusing gateway passes every claimed profile on a full run; a gateway that bounds
// deadlines by its own maximum only, keeping 720 s for a tool whose maximum is 600 s, fails.
import { describe, expect, it } from 'vitest';
import { readPatchFile } from '../harness/sut/patch-file.ts';
import { variantPatches, type GatewayVariant } from './variants/gateway-variants.ts';
import { itPassesEveryClaimedProfile } from './variants/permitted-proofs.ts';
import { caseOf, describeRun, violated } from './variants/run-agentconf.ts';
import { useVariantRun } from './variants/use-variant-run.ts';

const CASE = 'invocation.model-deadlines';

const REFUSES_DEADLINE_ABOVE_MAXIMUM: GatewayVariant = {
  name: 'refuses-deadline-above-maximum',
  change: "a requested deadline beyond the tool's or the gateway's maximum is refused with not-acceptable",
  patches: variantPatches('refuses-deadline-above-maximum'),
};

describe('a gateway refusing deadlines above the maximum (interp-32: permitted)', () => {
  const run = useVariantRun(REFUSES_DEADLINE_ABOVE_MAXIMUM);
  itPassesEveryClaimedProfile(run);

  it(`passes ${CASE}, having been refused above the tool maximum`, () => {
    const result = caseOf(run(), CASE);
    expect(result.outcome, describeRun(run())).toBe('passed');
    expect(result.attempts.at(-1)?.transcriptText ?? '').toMatch(/not-acceptable/);
  });
});

/** The wave-22 mutant: only the gateway's own maximum bounds a deadline. */
const TOOL_MAXIMUM_IGNORED: GatewayVariant = {
  name: 'tool-maximum-ignored',
  change: "a tool's maximumTimeoutSeconds is ignored: only the gateway's own maximum clamps a deadline",
  patches: readPatchFile('mutants/patches/tool-maximum-timeout-ignored.patch'),
};

describe('a gateway ignoring the tool maximum (broken)', () => {
  const run = useVariantRun(TOOL_MAXIMUM_IGNORED, { grep: [CASE] });

  it(`FAILS ${CASE} on rules.resource-bounds: task state keeps a deadline past script.bounded's 600 s`, () => {
    expect(caseOf(run(), CASE).outcome, describeRun(run())).toBe('failed');
    expect(violated(run(), CASE)[0]).toBe('rules.resource-bounds');
  });
});

// A presence case may only pass on what it saw arrive. The probe comparison (hidden endpoint vs
// a JID that names nothing) is fenced by the visible endpoint's answer to a probe sent after
// them; a gateway that answers no probe at all leaves no fence, so "answered alike" would rest on
// a timeout alone. Silence to a probe from a sender without a subscription is not forbidden
// (RFC 6121 §4.3.2), so the case cannot tell there; the reference gateway, which answers, passes
// it in every full run (verdict-proofs-single-profile, the default run).
import { describe, expect, it } from 'vitest';
import { variantPatches, type GatewayVariant } from './variants/gateway-variants.ts';
import { caseOf, describeRun } from './variants/run-agentconf.ts';
import { useVariantRun } from './variants/use-variant-run.ts';

const PROBES_UNANSWERED: GatewayVariant = {
  name: 'probes-unanswered',
  change: 'presence probes to the gateway and its endpoints are ignored (no answer of any kind)',
  patches: variantPatches('probes-unanswered'),
};

describe('a gateway that answers no presence probe', () => {
  const run = useVariantRun(PROBES_UNANSWERED, { grep: ['identity-presence.probe'] });

  it('cannot tell whether a hidden endpoint is probed like a missing one, and misses the SHOULD answer', () => {
    const fenced = caseOf(run(), 'identity-presence.probe-hidden-like-nonexistent');
    expect(fenced.outcome, describeRun(run())).toBe('cantTell');
    expect(fenced.reason).toMatch(/answered no probe/);
    expect(caseOf(run(), 'identity-presence.probe-answered').outcome, describeRun(run())).not.toBe('passed');
  });
});

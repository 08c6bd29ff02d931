// Issue 22: the provisioning and registration-rate verdicts added for the wave-22 survivors
// (admin-registers-unhosted-domain, self-registration-not-rate-limited) accept what the spec
// leaves open. The broken side is the mutant catalog (npm run mutants -- --only NAME).
// - #errors names no condition for registering a JID the gateway does not host: forbidden passes
//   as well as the reference gateway's not-allowed.
// - #security says registration MUST be rate-limited, not whether a refused request is charged:
//   a gateway that charges a self-registrant only once authorized passes.
import { describe, expect, it } from 'vitest';
import { variantPatches, type GatewayVariant } from './variants/gateway-variants.ts';
import { itPassesEveryClaimedProfile } from './variants/permitted-proofs.ts';
import { caseOf, describeRun } from './variants/run-agentconf.ts';
import { useVariantRun } from './variants/use-variant-run.ts';

const PERMITTED_PROVISIONING_ALTERNATIVES: GatewayVariant = {
  name: 'permitted-provisioning-alternatives',
  change:
    'an administrator registering a JID the gateway does not host gets forbidden; a self-registrant is charged a registration token only once authorized',
  patches: variantPatches('permitted-provisioning-alternatives'),
};

describe('provisioning alternatives the spec allows', () => {
  const run = useVariantRun(PERMITTED_PROVISIONING_ALTERNATIVES);
  itPassesEveryClaimedProfile(run);

  it('judges the refusals and the uncharged registrations, and passes them', () => {
    const provisioning = caseOf(run(), 'registration-flow.model-provisioning');
    expect(provisioning.outcome, describeRun(run())).toBe('passed');
    // The administrator's registration of another domain's JID was sent and refused as forbidden.
    const transcript = provisioning.attempts.at(-1)?.transcriptText ?? '';
    expect(transcript).toMatch(/"jid":"model-absent@example\.com"/);
    expect(transcript).toMatch(/<forbidden xmlns='urn:ietf:params:xml:ns:xmpp-stanzas'\/>/);
    const rate = caseOf(run(), 'security.model-registration-rate-limit');
    expect(rate.outcome, describeRun(run())).toBe('passed');
    expect(rate.attempts.at(-1)?.decided).toEqual(
      expect.arrayContaining(['security.rate-limits', 'errors.not-found-equivalence']),
    );
  });
});

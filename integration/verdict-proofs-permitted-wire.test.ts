// Issue 12 ("Honest verdicts"), item 3 and Done when: the reference gateway changed in ways the
// spec allows passes every claimed profile. Wire-level variants here (the clock and progress
// variants are in verdict-proofs-permitted-time.test.ts, so that the two files run in parallel).
// What each variant changes and which text allows it: integration/variants/README.md.
import { describe } from 'vitest';
import {
  ECHO_IN_ERRORS,
  PAGE_MAX_2,
  PREFIXED_IDS,
  TRANSIENT_OUTAGE_WAIT,
} from './variants/gateway-variants.ts';
import {
  itPassesEveryClaimedProfile,
  itPassesEveryClaimedProfileOnceTheSuitesAllowIt,
} from './variants/permitted-proofs.ts';
import { useVariantRun } from './variants/use-variant-run.ts';

describe('a. the request payload echoed in IQ errors (#errors: MAY be included)', () => {
  const run = useVariantRun(ECHO_IN_ERRORS);
  // False fails today: the equivalence cases compare the whole error reply, echo included, of
  // requests that differ (another JID, node, tool or manifest), so the echoes differ:
  // errors.unauthorized-like-nonexistent, security.deny-by-default,
  // tool-info.unknown-or-hidden-like-nonexistent, schemas.unknown-or-hidden-like-nonexistent,
  // manifest-retrieval.invoke-permission-insufficient (errors.not-found-equivalence),
  // invocation.unauthorized-like-nonexistent (invocation.unauthorized-item-not-found),
  // task-recovery.other-caller-like-nonexistent (task-recovery.indistinguishable-not-found),
  // security.admin-authentication (two register requests for different JIDs); and
  // json-encoding.authorize-before-limits judges json-encoding.no-reflection (MUST, #json-encoding:
  // for a rejection *because a limit is exceeded*) on the forbidden answer to an unauthorized
  // sender, where only the SHOULD of #errors applies.
  itPassesEveryClaimedProfileOnceTheSuitesAllowIt(run, [
    'errors.unauthorized-like-nonexistent',
    'invocation.unauthorized-like-nonexistent',
    'json-encoding.authorize-before-limits',
    'manifest-retrieval.invoke-permission-insufficient',
    'schemas.unknown-or-hidden-like-nonexistent',
    'security.admin-authentication',
    'security.deny-by-default',
    'task-recovery.other-caller-like-nonexistent',
    'tool-info.unknown-or-hidden-like-nonexistent',
  ]);
});

describe('b. identifiers: a fixed prefix, then 128 random bits (#invocation grammar)', () => {
  // The fixed 'gw-node-0001.task-' before 128 CSPRNG bits: invocation.identifiers-unpredictable
  // fails only equal IDs or consecutive ones differing in too few characters, and its statistical
  // estimate (a warning) finds the 128 bits behind the prefix.
  itPassesEveryClaimedProfile(useVariantRun(PREFIXED_IDS));
});

describe('d. pages of at most 2 items, fewer than <max/> asks (limits.rsmPageMax 2, documented)', () => {
  itPassesEveryClaimedProfile(useVariantRun(PAGE_MAX_2));
});

describe("e. service-unavailable typed 'wait' for transient outages (interp-42)", () => {
  // No case drives the engine into a transient outage, so this proves only that the variant
  // changes nothing else, not that the suites accept 'wait' on that path.
  itPassesEveryClaimedProfile(useVariantRun(TRANSIENT_OUTAGE_WAIT));
});

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
import { itPassesEveryClaimedProfile } from './variants/permitted-proofs.ts';
import { useVariantRun } from './variants/use-variant-run.ts';

describe('a. the request payload echoed in IQ errors (#errors: MAY be included)', () => {
  // The equivalence cases compare the <error/> element and whether the request is echoed, not
  // the echoes of requests that differ; json-encoding.authorize-before-limits warns (#errors'
  // SHOULD) about an echo in the refusal of an unauthorized sender, since #json-encoding's MUST
  // NOT reflect covers rejections for a limit.
  itPassesEveryClaimedProfile(useVariantRun(ECHO_IN_ERRORS));
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

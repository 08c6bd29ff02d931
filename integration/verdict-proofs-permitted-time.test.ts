// Issue 12 ("Honest verdicts"), item 3 and Done when: the reference gateway changed in ways the
// spec allows passes every claimed profile. Time-related variants here: a gateway clock 2 s off
// the driver's, and progress rate-limited by coalescing (the wire variants are in
// verdict-proofs-permitted-wire.test.ts, so that the two files run in parallel). What each
// variant changes and which text allows it: integration/variants/README.md.
import { describe } from 'vitest';
import { CLOCK_AHEAD, CLOCK_BEHIND, PROGRESS_COALESCING } from './variants/gateway-variants.ts';
import { itPassesEveryClaimedProfile } from './variants/permitted-proofs.ts';
import { useVariantRun } from './variants/use-variant-run.ts';

describe("c. the gateway's clock 2 s ahead of the driver's", () => {
  // The deadline cases measure the gateway's clock from the created times it reports and place
  // their deadlines on it, so a clock 2 s ahead finds them in its future, as it should.
  itPassesEveryClaimedProfile(useVariantRun(CLOCK_AHEAD));
});

describe("c. the gateway's clock 2 s behind the driver's", () => {
  itPassesEveryClaimedProfile(useVariantRun(CLOCK_BEHIND));
});

describe('f. progress rate-limited: a held update dropped when a transition comes first (#security)', () => {
  // events.revisions-one-per-commit takes each progress event for one scripted update, unchanged
  // and in order, and lets a gateway drop any: #events counts only committed updates.
  itPassesEveryClaimedProfile(useVariantRun(PROGRESS_COALESCING));
});

// Issue 22, item 2: the task-side model cases (invocation.model-capacity, invocation.model-deadlines,
// security.model-rate-limits) fail against gateway bugs written without reference to the model
// (the wave-22 independent bug hunt, patches copied to integration/variants/patches/model-*.patch),
// each on a --grep subset (a subset proves a failure, never a pass) and --deep; and two hollow
// passes of issue 22: a task state without its deadline, and a surface whose limit refuses everything.
import { describe, expect, it } from 'vitest';
import { readPatchFile } from '../harness/sut/patch-file.ts';
import type { GatewayVariant } from './variants/gateway-variants.ts';
import { caseOf, describeRun, violated } from './variants/run-agentconf.ts';
import { useVariantRun } from './variants/use-variant-run.ts';

interface Proof {
  readonly bug: string;
  readonly change: string;
  readonly caseId: string;
  readonly requirements: readonly string[];
}

const PROOFS: readonly Proof[] = [
  {
    bug: 'capacity-freed-at-cancelling',
    change: 'an accepted cancellation frees the task slot, and its settlement frees it again',
    caseId: 'invocation.model-capacity',
    requirements: ['rules.resource-bounds'],
  },
  {
    bug: 'capacity-leaks-on-failure',
    change: 'only a completed task returns its slot',
    caseId: 'invocation.model-capacity',
    requirements: ['rules.resource-bounds'],
  },
  {
    bug: 'requested-deadline-unbounded',
    change: 'a requested deadline is clamped neither to the tool maximum nor to the task duration limit',
    caseId: 'invocation.model-deadlines',
    requirements: ['rules.resource-bounds'],
  },
  {
    bug: 'state-omits-deadline',
    change: 'task state never shows the deadline a task was admitted with',
    caseId: 'invocation.model-deadlines',
    requirements: ['task-recovery.state-contents'],
  },
  {
    bug: 'metadata-limit-refuses-all',
    change: "a sender's own schema-retrieval rate limit refuses every request, however long it waited",
    caseId: 'security.model-rate-limits',
    requirements: ['security.rate-limits'],
  },
  {
    bug: 'invoke-rate-limit-before-authorization',
    change: 'the invocation rate limit is answered before authorization',
    caseId: 'security.model-rate-limits',
    requirements: ['json-encoding.authorize-before-limits'],
  },
];

for (const proof of PROOFS) {
  describe(`the task-side model case against ${proof.bug}`, () => {
    const variant: GatewayVariant = {
      name: `model-${proof.bug}`,
      change: proof.change,
      patches: readPatchFile(`integration/variants/patches/model-${proof.bug}.patch`),
    };
    const run = useVariantRun(variant, { grep: [proof.caseId], deep: true });

    // A capacity bug that leaks slots leaves the re-run of a failed attempt a caller already at
    // its limit before any task of it ended, which the case cannot tell from an earlier case's
    // leftover: the re-run is then cantTell, and the first attempt's violation is the evidence.
    it(`does not pass ${proof.caseId}: its first attempt violates ${proof.requirements.join(' or ')}`, () => {
      expect(['failed', 'cantTell'], describeRun(run())).toContain(caseOf(run(), proof.caseId).outcome);
      expect(proof.requirements, describeRun(run())).toContain(violated(run(), proof.caseId)[0]);
    });
  });
}

// Issue 22, item 2: the cases that judge random operations with the spec model (`model-` in their
// IDs) fail against broken variants of the reference gateway, each run on a --grep subset (a
// subset proves a failure, never a pass) and --deep so the verdict does not hang on one seed's
// sample: catalog mutants the older cases already kill, and the three only these cases kill
// (tool-grant-covers-endpoint, search-matches-description, tool-grants-last-wins: the world's tool
// grantee holds three per-tool grants on toolbox), and a non-admin administering for the
// provisioning case. A permitted variant (a documented page maximum of 2) passes them.
import { describe, expect, it } from 'vitest';
import { readPatchFile } from '../harness/sut/patch-file.ts';
import { ALL_SUITES } from '../suites/index.ts';
import { PAGE_MAX_2, type GatewayVariant } from './variants/gateway-variants.ts';
import { caseOf, describeRun } from './variants/run-agentconf.ts';
import { useVariantRun } from './variants/use-variant-run.ts';

const MODEL_CASE_IDS = ALL_SUITES.flatMap((suite) => suite.cases.map((testCase) => testCase.id))
  .filter((id) => id.includes('.model-'))
  .toSorted();

/** A catalog mutant (mutants/patches/<name>.patch) as a gateway variant. */
function mutantVariant(name: string, change: string): GatewayVariant {
  return { name, change, patches: readPatchFile(`mutants/patches/${name}.patch`) };
}

interface Proof {
  readonly mutant: string;
  readonly change: string;
  readonly caseId: string;
  /** The requirements the model may cite for this bug (the first failing step decides which). */
  readonly requirements: readonly string[];
}

const PROOFS: readonly Proof[] = [
  {
    mutant: 'hidden-endpoints-listed',
    change: 'hidden endpoints are visible under the local defaults',
    caseId: 'list-agents.model-directory',
    requirements: ['list-agents.visibility-filter'],
  },
  {
    mutant: 'grant-widened-to-all-endpoints',
    change: 'a grant of some endpoints sees every endpoint that is not hidden',
    caseId: 'list-agents.model-directory',
    requirements: ['list-agents.visibility-filter'],
  },
  {
    mutant: 'rsm-count-of-page',
    change: '<count/> is the page length',
    caseId: 'list-agents.model-directory',
    requirements: ['list-agents.count-visible-only'],
  },
  {
    mutant: 'search-results-reversed',
    change: 'search results in descending JID order',
    caseId: 'search.model-search',
    // Reversed pages also break the matched set the driver rebuilds by paging, so depending on the
    // generated world the first violation found is the order or the nick match built on it.
    requirements: ['search.octet-order', 'search.legacy-nick'],
  },
  {
    mutant: 'tool-info-input-hash-of-output',
    change: 'tool info shows the output schema hash as the input one',
    caseId: 'list-tools.model-tools',
    requirements: ['tool-info.disco-info'],
  },
  {
    mutant: 'schema-stale-hash-served',
    change: 'a schema request with a stale manifest hash is served',
    caseId: 'manifest-retrieval.model-metadata',
    requirements: ['schemas.canonical-bytes'],
  },
  {
    mutant: 'invoke-needs-visibility',
    change: 'invoking needs visibility as well',
    caseId: 'invocation.model-authorization',
    requirements: ['invocation.invoke-without-visibility'],
  },
  {
    mutant: 'tool-grant-covers-endpoint',
    change: 'a grant of some tools covers every tool of the endpoint',
    caseId: 'invocation.model-authorization',
    requirements: ['invocation.unauthorized-item-not-found'],
  },
  {
    mutant: 'tool-grants-last-wins',
    change: 'of several per-tool grants of one subject on one endpoint only the last counts',
    caseId: 'invocation.model-authorization',
    requirements: ['invocation.invoke-without-visibility'],
  },
  {
    mutant: 'non-admin-administers',
    change: 'administration requests are not restricted to admins',
    caseId: 'registration-flow.model-provisioning',
    requirements: ['security.admin-authentication'],
  },
  {
    mutant: 'search-matches-description',
    change: 'nick search also matches description words',
    caseId: 'search.model-search',
    requirements: ['search.legacy-nick'],
  },
];

/**
 * Run seeds a proof once met a verdict on: with 2295397938 the re-run of the failed first attempt
 * drew another world and other steps, passed, and the case ended flaky. A re-run now repeats the
 * experiment on fresh names (model-driver/experiment.ts), so the bug fails it again.
 */
const REGRESSION_SEEDS: readonly { readonly mutant: string; readonly seed: number }[] = [
  { mutant: 'schema-stale-hash-served', seed: 2295397938 },
];

const RUNS = [
  ...PROOFS.map((proof) => ({ proof, seed: undefined })),
  ...REGRESSION_SEEDS.flatMap(({ mutant, seed }) =>
    PROOFS.filter((proof) => proof.mutant === mutant).map((proof) => ({ proof, seed })),
  ),
];

for (const { proof, seed } of RUNS) {
  describe(`the model-driven case against ${proof.mutant}${seed === undefined ? '' : ` (run seed ${String(seed)})`}`, () => {
    const run = useVariantRun(mutantVariant(proof.mutant, proof.change), {
      grep: [proof.caseId],
      deep: true,
      ...(seed === undefined ? {} : { seed }),
    });

    // Failed, never flaky: a re-run repeats the failed attempt's world shape and steps on names
    // the gateway has not seen, so the bug shows on both attempts.
    it(`FAILS ${proof.caseId} citing ${proof.requirements.join(' or ')} on every attempt`, () => {
      const result = caseOf(run(), proof.caseId);
      expect(result.outcome, describeRun(run())).toBe('failed');
      for (const attempt of result.attempts)
        expect(proof.requirements, describeRun(run())).toContain(attempt.violation?.requirement);
    });
  });
}

describe('the model-driven cases against a gateway with a documented page maximum of 2', () => {
  const run = useVariantRun(PAGE_MAX_2, { grep: ['.model-'], deep: true });

  it('passes every one of them (short pages are what the model allows under rsmPageMax)', () => {
    const ids = run()
      .result.cases.map((result) => result.case.id)
      .filter((id) => id.includes('.model-'));
    // Every model case the suites hold ran: none was left out of the --grep.
    expect(ids.toSorted()).toEqual(MODEL_CASE_IDS);
    for (const id of ids) expect(caseOf(run(), id).outcome, `${id}\n${describeRun(run())}`).toBe('passed');
  });
});

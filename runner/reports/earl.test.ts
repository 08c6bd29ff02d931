import jsonld from 'jsonld';
import { describe, expect, it } from 'vitest';
import { DCT, DOAP, EARL, earlReport } from './earl.ts';
import { reportContext } from './report-context.ts';
import { caseIri, requirementIri, specAnchorUrl } from './spec-links.ts';
import { earlTriples, offlineLoader, type Triple } from './test-support/earl-triples.ts';
import { BASELINE, CASE_IDS, syntheticRunResult } from './test-support/synthetic-run.ts';

const XSD_DATETIME = 'http://www.w3.org/2001/XMLSchema#dateTime';
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';

describe('earl.jsonld', () => {
  const result = syntheticRunResult();
  const document: unknown = JSON.parse(String(earlReport(result, reportContext(result)).content));

  async function triples(): Promise<Triple[]> {
    const { triples: all, requested } = await earlTriples(document);
    expect(requested).toEqual([]);
    return all;
  }

  const objectsOf = (all: readonly Triple[], subject: string, predicate: string): string[] =>
    all.filter((t) => t.subject === subject && t.predicate === predicate).map((t) => t.object);

  const one = (all: readonly Triple[], subject: string, predicate: string): string => {
    const [first, ...rest] = objectsOf(all, subject, predicate);
    if (first === undefined || rest.length > 0) throw new Error(`expected one ${predicate} of ${subject}`);
    return first;
  };

  /** The assertion about a case, with its result node and outcome. */
  function assertionOf(all: readonly Triple[], caseId: string) {
    const [assertion, ...rest] = all
      .filter((t) => t.predicate === `${EARL}test` && t.object === caseIri(caseId))
      .map((t) => t.subject);
    if (assertion === undefined || rest.length > 0) throw new Error(`expected one assertion about ${caseId}`);
    const resultNode = one(all, assertion, `${EARL}result`);
    return { assertion, resultNode, outcome: one(all, resultNode, `${EARL}outcome`) };
  }

  it('expands offline in safe mode (nothing dropped, no remote context) to one assertion per case', async () => {
    const all = await triples();
    const assertions = all.filter((t) => t.predicate === RDF_TYPE && t.object === `${EARL}Assertion`);
    expect(assertions).toHaveLength(result.cases.length);
    for (const { subject } of assertions) {
      expect(one(all, subject, `${EARL}mode`)).toBe(`${EARL}automatic`);
    }
  });

  it('a passed case: earl:passed, dated, by the suite, about the SUT, testing the case', async () => {
    const all = await triples();
    const { assertion, resultNode, outcome } = assertionOf(all, CASE_IDS.passed);
    expect(outcome).toBe(`${EARL}passed`);
    expect(objectsOf(all, resultNode, RDF_TYPE)).toEqual([`${EARL}TestResult`]);
    expect(one(all, resultNode, `${DCT}date`)).toBe(`"2026-11-29T10:00:00.000Z"^^${XSD_DATETIME}`);
    expect(one(all, resultNode, `${DCT}description`)).toBe('"passed"');

    const suite = one(all, assertion, `${EARL}assertedBy`);
    expect(objectsOf(all, suite, RDF_TYPE)).toEqual(
      expect.arrayContaining([`${EARL}Assertor`, `${EARL}Software`, `${DOAP}Project`]),
    );
    expect(one(all, suite, `${DOAP}name`)).toBe('"agentconf"');
    expect(one(all, one(all, suite, `${DOAP}release`), `${DOAP}revision`)).toBe('"0.1.0"');

    const subject = one(all, assertion, `${EARL}subject`);
    expect(subject).toBe('https://gateway.example/');
    expect(objectsOf(all, subject, RDF_TYPE)).toEqual(
      expect.arrayContaining([`${EARL}TestSubject`, `${DOAP}Project`]),
    );
    expect(one(all, subject, `${DOAP}name`)).toBe(`"${result.subject.name}"`);
    expect(one(all, subject, `${DOAP}homepage`)).toBe('https://gateway.example/');
    expect(one(all, one(all, subject, `${DOAP}release`), `${DOAP}revision`)).toBe('"2.1.0"');

    const test = caseIri(CASE_IDS.passed);
    expect(objectsOf(all, test, RDF_TYPE)).toEqual([`${EARL}TestCase`]);
    expect(one(all, test, `${DCT}title`)).toBe(`"${CASE_IDS.passed}"`);
    expect(one(all, test, `${DCT}source`)).toBe(specAnchorUrl('gateway-info'));
    expect(objectsOf(all, test, `${DCT}isPartOf`)).toEqual([requirementIri('gateway-info.identity')]);
    const requirement = requirementIri('gateway-info.identity');
    expect(objectsOf(all, requirement, RDF_TYPE)).toEqual([`${EARL}TestRequirement`]);
    expect(one(all, requirement, `${DCT}source`)).toBe(specAnchorUrl('gateway-info'));
    expect(one(all, requirement, `${DCT}description`)).toMatch(/^"MUST: /);
  });

  it('a failed case: earl:failed with the violated requirement, expected and received', async () => {
    const all = await triples();
    const { resultNode, outcome } = assertionOf(all, CASE_IDS.failed);
    expect(outcome).toBe(`${EARL}failed`);
    const description = one(all, resultNode, `${DCT}description`);
    expect(description).toContain('violated: gateway-info.features');
    expect(description).toContain("expected:\n<feature var='jabber:iq:search'/>");
    expect(description).toContain("received:\n<iq type='result'");
    expect(objectsOf(all, caseIri(CASE_IDS.failed), `${DCT}isPartOf`).sort()).toEqual(
      [requirementIri('gateway-info.features'), requirementIri('schema.base-structures-valid')].sort(),
    );
  });

  it('the other outcomes map one to one: flaky → cantTell, inapplicable, untested', async () => {
    const all = await triples();
    expect(assertionOf(all, CASE_IDS.flaky).outcome).toBe(`${EARL}cantTell`);
    expect(assertionOf(all, CASE_IDS.inapplicable).outcome).toBe(`${EARL}inapplicable`);
    expect(assertionOf(all, CASE_IDS.untested).outcome).toBe(`${EARL}untested`);
    const untested = assertionOf(all, CASE_IDS.untested).resultNode;
    expect(one(all, untested, `${DCT}date`)).toBe(`"${result.startedAt}"^^${XSD_DATETIME}`);
  });

  it('keeps the true outcome of a baselined failure and a stale entry, and says so in earl:info', async () => {
    const baselined = syntheticRunResult({ baseline: true });
    const { triples: all } = await earlTriples(
      JSON.parse(String(earlReport(baselined, reportContext(baselined)).content)),
    );
    const failed = assertionOf(all, CASE_IDS.failed);
    expect(failed.outcome).toBe(`${EARL}failed`);
    expect(one(all, failed.resultNode, `${EARL}info`)).toContain(
      `baseline: ${BASELINE[CASE_IDS.failed]} (an expected failure)`,
    );
    const stale = assertionOf(all, CASE_IDS.passed);
    expect(stale.outcome).toBe(`${EARL}passed`);
    expect(one(all, stale.resultNode, `${EARL}info`)).toContain('stale baseline entry: ');
  });

  it('refuses to pass when the document asks for a remote context', async () => {
    const requested: string[] = [];
    const remote = {
      ...(document as Record<string, unknown>),
      '@context': 'https://example.org/earl-context.jsonld',
    };
    await expect(
      jsonld.expand(remote, { documentLoader: offlineLoader(requested), safe: true }),
    ).rejects.toThrow();
    expect(requested).toEqual(['https://example.org/earl-context.jsonld']);
  });
});

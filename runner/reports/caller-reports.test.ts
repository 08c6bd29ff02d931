// The caller cases in every report format beside conformance.md (docs/caller.md): JUnit maps
// their outcomes exactly as a gateway case's, EARL asserts them about the caller under test,
// Allure lists them under "caller:<section>" with their assessments as features and a result per
// judged assessment, transcripts/ holds theirs; each format names the assessments as not spec
// profiles.
import type { Element } from '@xmpp/xml';
import { describe, expect, it } from 'vitest';

import { attributeOf, characterDataOf, childElementsOf, parseXml } from '../../protocol/stanza/index.ts';

import { allureResultFiles } from './allure-results.ts';
import { DCT, EARL, earlDocument } from './earl.ts';
import { junitXml } from './junit.ts';
import { childrenNamed, onlyChild } from './test-support/xml-children.ts';
import { reportContext } from './report-context.ts';
import { caseIri } from './spec-links.ts';
import { earlTriples, type Triple } from './test-support/earl-triples.ts';
import { validateJunit } from './test-support/junit-schema.ts';
import {
  CALLER_CANT_TELL_REASON,
  CALLER_CASE_IDS,
  CALLER_CASES,
  CALLER_FAILED_RECEIVED,
  CALLER_NAME,
  syntheticCallerRun,
} from './test-support/synthetic-caller-run.ts';
import { CASE_IDS } from './test-support/synthetic-run.ts';
import { transcriptFiles } from './transcripts.ts';

const DOAP_NAME = 'http://usefulinc.com/ns/doap#name';

async function earlOf(gateway: boolean): Promise<Triple[]> {
  const run = syntheticCallerRun({ gateway });
  const { triples, requested } = await earlTriples(earlDocument(run, reportContext(run)));
  expect(requested).toEqual([]);
  return triples;
}

const objects = (all: readonly Triple[], subject: string, predicate: string): string[] =>
  all.filter((t) => t.subject === subject && t.predicate === predicate).map((t) => t.object);

function assertionAbout(all: readonly Triple[], caseId: string): { subject: string; result: string } {
  const [assertion, ...more] = all
    .filter((t) => t.predicate === `${EARL}test` && t.object === caseIri(caseId))
    .map((t) => t.subject);
  if (assertion === undefined || more.length > 0) throw new Error(`expected one assertion about ${caseId}`);
  const [subject] = objects(all, assertion, `${EARL}subject`);
  const [result] = objects(all, assertion, `${EARL}result`);
  if (subject === undefined || result === undefined) throw new Error(`${caseId}: no subject or result`);
  return { subject, result };
}

describe('EARL with caller cases', () => {
  it('asserts every caller case with its own outcome, naming its assessments as no spec profile', async () => {
    const all = await earlOf(false);
    for (const caller of CALLER_CASES) {
      const { result } = assertionAbout(all, caller.case.id);
      expect(objects(all, result, `${EARL}outcome`)).toEqual([`${EARL}${caller.outcome}`]);
      expect(objects(all, result, `${EARL}info`).join('')).toContain(
        `assessments (assessment, not a spec profile): ${caller.case.assessments.join(', ')}`,
      );
    }
    const failed = assertionAbout(all, CALLER_CASE_IDS.failed);
    expect(objects(all, failed.result, `${DCT}description`).join('')).toContain(CALLER_FAILED_RECEIVED);
    const undecided = assertionAbout(all, CALLER_CASE_IDS.cantTell);
    expect(objects(all, undecided.result, `${DCT}description`).join('')).toContain(CALLER_CANT_TELL_REASON);
  });

  it('a caller-only run is about the caller, described as such and not as a gateway', async () => {
    const all = await earlOf(false);
    const { subject } = assertionAbout(all, CALLER_CASE_IDS.passed);
    expect(objects(all, subject, DOAP_NAME)).toEqual([`"${CALLER_NAME}"`]);
    const description = objects(all, subject, 'http://usefulinc.com/ns/doap#description').join('');
    expect(description).toContain('Caller under test (mcp)');
    expect(description).not.toContain('Gateway');
  });

  it('beside a gateway, caller assertions are about the caller and gateway ones about the gateway', async () => {
    const all = await earlOf(true);
    const caller = assertionAbout(all, CALLER_CASE_IDS.passed).subject;
    const gateway = assertionAbout(all, CASE_IDS.passed).subject;
    expect(caller).not.toBe(gateway);
    expect(objects(all, caller, DOAP_NAME)).toEqual([`"${CALLER_NAME}"`]);
  });
});

interface AllureResult {
  fullName: string;
  status: string;
  statusDetails: { message?: string; trace?: string; expected?: string; actual?: string; flaky?: boolean };
  labels: { name: string; value: string }[];
  attachments: { name: string }[];
}

function allureOf(gateway: boolean) {
  const run = syntheticCallerRun({ gateway });
  const files = allureResultFiles(run, reportContext(run));
  const results = files
    .filter((file) => file.path.endsWith('-result.json'))
    .map((file) => JSON.parse(String(file.content)) as AllureResult);
  const resultFor = (fullName: string): AllureResult => {
    const found = results.find((entry) => entry.fullName === fullName);
    if (found === undefined) throw new Error(`no Allure result ${fullName}`);
    return found;
  };
  const environment = String(files.find((file) => file.path.endsWith('environment.properties'))?.content);
  return { results, resultFor, environment };
}

const labelsOf = (result: AllureResult, name: string): string[] =>
  result.labels.filter((label) => label.name === name).map((label) => label.value);

describe('Allure with caller cases', () => {
  it('writes one result per caller case under caller:<section>, its assessments as features', () => {
    const { resultFor } = allureOf(false);
    for (const caller of CALLER_CASES) {
      const result = resultFor(caller.case.id);
      expect(labelsOf(result, 'suite')).toEqual([`caller:${caller.case.section}`]);
      expect(labelsOf(result, 'feature')).toEqual([...caller.case.assessments]);
      expect(labelsOf(result, 'tag')).toContain('assessment, not a spec profile');
      expect(result.attachments).toHaveLength(caller.attempts.length);
    }
  });

  it('maps caller outcomes as for gateway cases: failed with expected/actual, broken, flaky, skipped', () => {
    const { resultFor } = allureOf(false);
    const failed = resultFor(CALLER_CASE_IDS.failed);
    expect(failed.status).toBe('failed');
    expect(failed.statusDetails.actual).toBe(CALLER_FAILED_RECEIVED);
    expect(failed.statusDetails.trace).toContain('assessments (assessment, not a spec profile): caller-side');
    expect(resultFor(CALLER_CASE_IDS.cantTell)).toMatchObject({
      status: 'broken',
      statusDetails: { message: CALLER_CANT_TELL_REASON },
    });
    expect(resultFor(CALLER_CASE_IDS.flaky)).toMatchObject({
      status: 'broken',
      statusDetails: { flaky: true },
    });
    expect(resultFor(CALLER_CASE_IDS.inapplicable)).toMatchObject({
      status: 'skipped',
      statusDetails: { message: 'inapplicable: no manifest' },
    });
    expect(resultFor(CALLER_CASE_IDS.passed).status).toBe('passed');
  });

  it('writes a result per judged assessment, labelled as not a spec profile, and names the caller', () => {
    const { resultFor, environment } = allureOf(false);
    const failed = resultFor('assessment:caller-side');
    expect(failed.status).toBe('failed');
    expect(failed.statusDetails.message).toBe(
      'Caller side (assessment, not a spec profile): FAILED: 1 case(s) failed',
    );
    expect(failed.statusDetails.trace).toContain(`failed: ${CALLER_CASE_IDS.failed}`);
    expect(resultFor('assessment:mcp-bridge').status).toBe('passed');
    expect(environment).toContain(`Caller\\ under\\ test=${CALLER_NAME} (mcp)`);
  });

  it('keeps the gateway cases and profiles beside them', () => {
    const { results } = allureOf(true);
    expect(results.some((entry) => entry.fullName.startsWith('profile:'))).toBe(true);
    expect(results.some((entry) => entry.fullName === CASE_IDS.passed)).toBe(true);
    expect(results.filter((entry) => entry.fullName.startsWith('assessment:'))).toHaveLength(2);
  });
});

describe('transcripts with caller cases', () => {
  it('writes a transcript file for each caller case that ran, its assessments in the header', () => {
    const run = syntheticCallerRun({ gateway: false });
    const files = new Map(
      transcriptFiles(run, reportContext(run)).map((file) => [file.path, String(file.content)]),
    );
    const ran = CALLER_CASES.filter((caller) => caller.attempts.length > 0);
    expect([...files.keys()].sort()).toEqual(ran.map((caller) => `transcripts/${caller.case.id}.txt`).sort());
    expect(files.get(`transcripts/${CALLER_CASE_IDS.failed}.txt`)).toContain(
      'assessments (assessment, not a spec profile): caller-side',
    );
  });
});

describe('junit.xml with caller cases', () => {
  const run = syntheticCallerRun({ gateway: true });
  const xml = junitXml(run, reportContext(run));
  const suites = childrenNamed(parseXml(xml), 'testsuite');
  const testcase = (id: string): Element => {
    const found = suites
      .flatMap((suite) => childrenNamed(suite, 'testcase'))
      .find((entry) => attributeOf(entry, 'name') === id);
    if (found === undefined) throw new Error(`no testcase ${id}`);
    return found;
  };

  it('validates against the JUnit schema', async () => {
    const { valid, output } = await validateJunit(xml);
    expect(valid, output).toBe(true);
  });

  it('puts each caller case in its caller:<section> suite and classname', () => {
    for (const caller of CALLER_CASES) {
      expect(attributeOf(testcase(caller.case.id), 'classname')).toBe(`caller:${caller.case.section}`);
    }
    const names = suites.map((suite) => attributeOf(suite, 'name'));
    expect(names).toContain('assessments');
    expect(names).toContain('caller:invocation');
  });

  it('maps caller outcomes as gateway ones: failure, error, flaky error, skipped with the reason', () => {
    const failure = onlyChild(testcase(CALLER_CASE_IDS.failed), 'failure');
    expect(attributeOf(failure, 'type')).toBe('RequirementViolation');
    expect(characterDataOf(failure)).toContain(CALLER_FAILED_RECEIVED);
    expect(characterDataOf(failure)).toContain('assessments (assessment, not a spec profile): caller-side');
    expect(attributeOf(onlyChild(testcase(CALLER_CASE_IDS.cantTell), 'error'), 'message')).toBe(
      CALLER_CANT_TELL_REASON,
    );
    const flaky = testcase(CALLER_CASE_IDS.flaky);
    expect(attributeOf(onlyChild(flaky, 'error'), 'type')).toBe('flaky');
    expect(attributeOf(onlyChild(flaky, 'flakyFailure'), 'message')).toBe('a cancel followed');
    expect(attributeOf(onlyChild(testcase(CALLER_CASE_IDS.inapplicable), 'skipped'), 'message')).toBe(
      'inapplicable: no manifest',
    );
    expect(childElementsOf(testcase(CALLER_CASE_IDS.passed))).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import type { Element } from '@xmpp/xml';
import {
  attributeOf,
  characterDataOf,
  childElementsOf,
  localNameOf,
  parseXml,
} from '../../protocol/stanza/index.ts';
import { junitXml } from './junit.ts';
import { reportContext } from './report-context.ts';
import { validateJunit } from './test-support/junit-schema.ts';
import { CASE_IDS, FAILED_EXPECTED, FAILED_RECEIVED, syntheticRunResult } from './test-support/synthetic-run.ts';

function children(element: Element, name: string): Element[] {
  return childElementsOf(element).filter((child) => localNameOf(child) === name);
}

function only(element: Element, name: string): Element {
  const [first, ...rest] = children(element, name);
  if (first === undefined || rest.length > 0) throw new Error(`expected exactly one <${name}/>`);
  return first;
}

describe('junit.xml', () => {
  const result = syntheticRunResult();
  const xml = junitXml(result, reportContext(result));
  const root = parseXml(xml);
  const testcases = children(root, 'testsuite').flatMap((suite) => children(suite, 'testcase'));
  const testcase = (id: string): Element => {
    const found = testcases.find((element) => attributeOf(element, 'name') === id);
    if (found === undefined) throw new Error(`no testcase ${id}`);
    return found;
  };

  it('validates against the JUnit schema, which rejects a testcase without a name', async () => {
    const verdict = await validateJunit(xml);
    expect(verdict.output).toContain('validates');
    expect(verdict.valid).toBe(true);
    const broken = xml.replace(`<testcase classname='gateway-info' name='${CASE_IDS.passed}'`, "<testcase classname='x'");
    expect(broken).not.toBe(xml);
    expect((await validateJunit(broken)).valid).toBe(false);
  });

  it('has one testsuite per section and one testcase per case, classname = section, name = case ID', () => {
    expect(localNameOf(root)).toBe('testsuites');
    expect(children(root, 'testsuite').map((suite) => attributeOf(suite, 'name'))).toEqual([
      'gateway-info',
      'list-agents',
      'search',
      'messaging',
    ]);
    expect(testcases.map((element) => [attributeOf(element, 'classname'), attributeOf(element, 'name')])).toEqual(
      result.cases.map((caseResult) => [caseResult.case.section, caseResult.case.id]),
    );
  });

  it('counts add up per suite and in total', () => {
    let tests = 0;
    for (const suite of children(root, 'testsuite')) {
      const cases = children(suite, 'testcase');
      const count = (name: string) => cases.filter((element) => children(element, name).length > 0).length;
      expect(Number(attributeOf(suite, 'tests'))).toBe(cases.length);
      expect(Number(attributeOf(suite, 'failures'))).toBe(count('failure'));
      expect(Number(attributeOf(suite, 'errors'))).toBe(count('error'));
      expect(Number(attributeOf(suite, 'skipped'))).toBe(count('skipped'));
      tests += cases.length;
    }
    expect(Number(attributeOf(root, 'tests'))).toBe(tests);
    expect(attributeOf(root, 'failures')).toBe('1');
    expect(attributeOf(root, 'errors')).toBe('1');
  });

  it('a failed case carries requirement, expected and received, and its transcripts in system-out', () => {
    const failed = testcase(CASE_IDS.failed);
    const failure = only(failed, 'failure');
    expect(attributeOf(failure, 'type')).toBe('RequirementViolation');
    const body = characterDataOf(failure);
    expect(body).toContain('requirement gateway-info.features [MUST]:');
    expect(body).toContain('violated: gateway-info.features');
    expect(body).toContain(`expected:\n${FAILED_EXPECTED}\nreceived:\n${FAILED_RECEIVED}`);
    expect(body).toContain('#gateway-info');
    const out = characterDataOf(only(failed, 'system-out'));
    expect(out).toContain('--- attempt 1 of 2: failed');
    expect(out).toContain('--- attempt 2 of 2: failed');
    expect(out).toContain(FAILED_RECEIVED);
    // The raw U+0001 the case sent cannot be XML; it is spelled out instead of breaking the file.
    expect(out).toContain('junk\\u{1}<');
  });

  it('marks the flaky case as an error with a flakyFailure, never as a pass', () => {
    const flaky = testcase(CASE_IDS.flaky);
    expect(attributeOf(only(flaky, 'error'), 'type')).toBe('flaky');
    expect(attributeOf(only(flaky, 'flakyFailure'), 'message')).toMatch(/IqTimeout/);
    expect(characterDataOf(only(flaky, 'system-out'))).toContain('--- attempt 2 of 2: passed');
  });

  it('skips inapplicable and untested cases with the reason', () => {
    expect(attributeOf(only(testcase(CASE_IDS.inapplicable), 'skipped'), 'message')).toBe(
      'inapplicable: the SUT does not advertise jabber:iq:search#legacy',
    );
    expect(attributeOf(only(testcase(CASE_IDS.untested), 'skipped'), 'message')).toBe(
      'untested: the SUT claims none of: human-messaging',
    );
  });

  it('a passed case has no verdict child; its warning goes to system-err', () => {
    const passed = testcase(CASE_IDS.passed);
    expect(childElementsOf(passed).map(localNameOf)).toEqual(['system-err']);
    expect(characterDataOf(only(passed, 'system-err'))).toMatch(/^warning: list-agents\.item-name: /);
  });

  it('records the seed, the SUT and the spec revision as suite properties', () => {
    const [firstSuite] = children(root, 'testsuite');
    if (firstSuite === undefined) throw new Error('no testsuite');
    const properties = new Map<string, string | undefined>();
    for (const property of children(only(firstSuite, 'properties'), 'property')) {
      properties.set(attributeOf(property, 'name') ?? '', attributeOf(property, 'value'));
    }
    expect(properties.get('run.seed')).toBe(String(result.seed));
    expect(properties.get('sut.name')).toBe('Example Gateway <beta> & co');
    expect(properties.get('spec.revision')).toBe('0.0.5');
  });
});

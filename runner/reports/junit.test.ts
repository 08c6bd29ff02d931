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
import { childrenNamed, onlyChild } from './test-support/xml-children.ts';
import {
  BASELINE,
  CASE_IDS,
  FAILED_EXPECTED,
  FAILED_RECEIVED,
  PREFLIGHT_MISSING,
  syntheticRunResult,
  type SyntheticRunOptions,
} from './test-support/synthetic-run.ts';

function propertiesOf(suite: Element): Map<string, string | undefined> {
  const properties = new Map<string, string | undefined>();
  for (const property of childrenNamed(onlyChild(suite, 'properties'), 'property')) {
    properties.set(attributeOf(property, 'name') ?? '', attributeOf(property, 'value'));
  }
  return properties;
}

/** A run's junit.xml, parsed, with its testcases by name and its profiles suite. */
function junitOf(options: SyntheticRunOptions = {}) {
  const result = syntheticRunResult(options);
  const xml = junitXml(result, reportContext(result));
  const root = parseXml(xml);
  const suites = childrenNamed(root, 'testsuite');
  const [profiles, ...sections] = suites;
  if (profiles === undefined || attributeOf(profiles, 'name') !== 'profiles')
    throw new Error('no profiles suite first');
  const testcases = sections.flatMap((suite) => childrenNamed(suite, 'testcase'));
  const named = (list: Element[], name: string): Element => {
    const found = list.find((element) => attributeOf(element, 'name') === name);
    if (found === undefined) throw new Error(`no testcase ${name}`);
    return found;
  };
  return {
    result,
    xml,
    root,
    suites,
    profiles,
    sections,
    testcases,
    testcase: (id: string) => named(testcases, id),
    profile: (id: string) => named(childrenNamed(profiles, 'testcase'), id),
  };
}

describe('junit.xml', () => {
  const { result, xml, root, suites, sections, testcases, testcase, profile, profiles } = junitOf();

  it('validates against the JUnit schema, which rejects a testcase without a name', async () => {
    const verdict = await validateJunit(xml);
    expect(verdict.output).toContain('validates');
    expect(verdict.valid).toBe(true);
    const broken = xml.replace(
      `<testcase classname='gateway-info' name='${CASE_IDS.passed}'`,
      "<testcase classname='x'",
    );
    expect(broken).not.toBe(xml);
    expect((await validateJunit(broken)).valid).toBe(false);
  });

  it('has one testsuite per section and one testcase per case, classname = section, name = case ID', () => {
    expect(localNameOf(root)).toBe('testsuites');
    expect(sections.map((suite) => attributeOf(suite, 'name'))).toEqual([
      'gateway-info',
      'list-agents',
      'search',
      'messaging',
    ]);
    expect(
      testcases.map((element) => [attributeOf(element, 'classname'), attributeOf(element, 'name')]),
    ).toEqual(result.cases.map((caseResult) => [caseResult.case.section, caseResult.case.id]));
  });

  it('counts add up per suite and in total', () => {
    let tests = 0;
    for (const suite of suites) {
      const cases = childrenNamed(suite, 'testcase');
      const count = (name: string) =>
        cases.filter((element) => childrenNamed(element, name).length > 0).length;
      expect(Number(attributeOf(suite, 'tests'))).toBe(cases.length);
      expect(Number(attributeOf(suite, 'failures'))).toBe(count('failure'));
      expect(Number(attributeOf(suite, 'errors'))).toBe(count('error'));
      expect(Number(attributeOf(suite, 'skipped'))).toBe(count('skipped'));
      tests += cases.length;
    }
    expect(Number(attributeOf(root, 'tests'))).toBe(tests);
    // The failed case and the failed profile; the flaky case.
    expect(attributeOf(root, 'failures')).toBe('2');
    expect(attributeOf(root, 'errors')).toBe('1');
  });

  it('a testcase per claimed profile, none for an unclaimed one: verdict, reason, counts, the cases that did not pass', () => {
    expect(childrenNamed(profiles, 'testcase').map((element) => attributeOf(element, 'name'))).toEqual([
      'core-directory',
      'jabber-search',
    ]);
    const core = profile('core-directory');
    expect(attributeOf(core, 'classname')).toBe('profiles');
    const failure = onlyChild(core, 'failure');
    expect(attributeOf(failure, 'type')).toBe('ProfileFailed');
    expect(attributeOf(failure, 'message')).toBe(`FAIL: 1 case(s) failed: ${CASE_IDS.failed}`);
    expect(characterDataOf(onlyChild(core, 'system-out'))).toBe(
      [
        `Core Directory: FAIL: 1 case(s) failed: ${CASE_IDS.failed}`,
        'passed 1, failed 1, cantTell 1, inapplicable 0',
        `${CASE_IDS.failed} [MUST] failed: gateway-info.features: a claimed profile has no feature in disco#info`,
        `${CASE_IDS.flaky} [MUST] cantTell: flaky: failed, then passed when re-run alone (first attempt: IqTimeout: no reply to iq-2 within 10000 ms)`,
      ].join('\n'),
    );
    const search = profile('jabber-search');
    expect(childElementsOf(search).map(localNameOf)).toEqual(['system-out']);
    expect(characterDataOf(onlyChild(search, 'system-out'))).toContain(
      `passed 1, failed 0, cantTell 0, inapplicable 1\n${CASE_IDS.inapplicable} [MUST] inapplicable: `,
    );
    const properties = propertiesOf(profiles);
    expect(properties.get('profile.core-directory')).toBe(`FAIL: 1 case(s) failed: ${CASE_IDS.failed}`);
    expect(properties.get('profile.core-directory.counts')).toBe(
      'passed 1, failed 1, cantTell 1, inapplicable 0',
    );
    expect(properties.get('profile.human-messaging')).toBe('not claimed');
    expect(properties.has('profile.human-messaging.counts')).toBe(false);
  });

  it('a failed case carries requirement, expected and received, and its transcripts in system-out', () => {
    const failed = testcase(CASE_IDS.failed);
    const failure = onlyChild(failed, 'failure');
    expect(attributeOf(failure, 'type')).toBe('RequirementViolation');
    const body = characterDataOf(failure);
    expect(body).toContain('requirement gateway-info.features [MUST]:');
    expect(body).toContain('violated: gateway-info.features');
    expect(body).toContain(`expected:\n${FAILED_EXPECTED}\nreceived:\n${FAILED_RECEIVED}`);
    expect(body).toContain('#gateway-info');
    const out = characterDataOf(onlyChild(failed, 'system-out'));
    expect(out).toContain('--- attempt 1 of 2: failed');
    expect(out).toContain('--- attempt 2 of 2: failed');
    expect(out).toContain(FAILED_RECEIVED);
    // The raw U+0001 the case sent cannot be XML; it is spelled out instead of breaking the file.
    expect(out).toContain('junk\\u{1}<');
  });

  it('marks the flaky case as an error with a flakyFailure, never as a pass', () => {
    const flaky = testcase(CASE_IDS.flaky);
    expect(attributeOf(onlyChild(flaky, 'error'), 'type')).toBe('flaky');
    expect(attributeOf(onlyChild(flaky, 'flakyFailure'), 'message')).toMatch(/IqTimeout/);
    expect(characterDataOf(onlyChild(flaky, 'system-out'))).toContain('--- attempt 2 of 2: passed');
  });

  it('skips inapplicable and untested cases with the reason', () => {
    expect(attributeOf(onlyChild(testcase(CASE_IDS.inapplicable), 'skipped'), 'message')).toBe(
      'inapplicable: the SUT does not advertise jabber:iq:search#legacy',
    );
    expect(attributeOf(onlyChild(testcase(CASE_IDS.untested), 'skipped'), 'message')).toBe(
      'untested: the SUT claims none of: human-messaging',
    );
  });

  it('a passed case has no verdict child; its warning goes to system-err', () => {
    const passed = testcase(CASE_IDS.passed);
    expect(childElementsOf(passed).map(localNameOf)).toEqual(['system-err']);
    expect(characterDataOf(onlyChild(passed, 'system-err'))).toMatch(/^warning: list-agents\.item-name: /);
  });

  it('records the seed, the SUT, the spec revision and the run verdict as properties of every suite', () => {
    for (const suite of suites) {
      const properties = propertiesOf(suite);
      expect(properties.get('run.seed')).toBe(String(result.seed));
      expect(properties.get('sut.name')).toBe('Example Gateway <beta> & co');
      expect(properties.get('spec.revision')).toBe('0.0.5');
      expect(properties.get('run.verdict')).toBe('FAILED');
      expect(properties.get('run.partial')).toBe('false');
      expect(properties.get('run.selection')).toBe('all 5 cases');
      expect(properties.get('run.fixtures')).toMatch(/^world-file: /);
    }
  });
});

describe('junit.xml of the other verdicts', () => {
  it('a partial run: PARTIAL in every suite’s properties and on each passing profile, never plain PASSED', async () => {
    const partial = junitOf({ allPass: true, partial: true });
    expect((await validateJunit(partial.xml)).valid).toBe(true);
    for (const suite of partial.suites) {
      const properties = propertiesOf(suite);
      expect(properties.get('run.verdict')).toBe('PARTIAL');
      expect(properties.get('run.partial')).toBe('true');
      expect(properties.get('run.selection')).toBe(
        '5 of 180 cases (--grep gateway-info, --grep list-agents)',
      );
    }
    expect(propertiesOf(partial.profiles).get('profile.core-directory')).toBe('PARTIAL PASS');
    const core = partial.profile('core-directory');
    expect(childElementsOf(core).map(localNameOf)).toEqual(['system-out']);
    expect(characterDataOf(onlyChild(core, 'system-out'))).toMatch(
      /^Core Directory: PARTIAL PASS\nPARTIAL run: 5 of 180 cases \(--grep gateway-info, --grep list-agents\)\n/,
    );
    expect(partial.xml).not.toMatch(/'PASSED'|'PASS'/);
    expect(propertiesOf(junitOf({ partial: true }).profiles).get('run.verdict')).toBe('FAILED (PARTIAL)');
  });

  it('INCOMPLETE and NOT ASSESSED are errors with their reason; a preflight failure is a failure; findings are properties', async () => {
    const gaps = junitOf({ allPass: true, gaps: true, fixtures: 'manual' });
    expect((await validateJunit(gaps.xml)).valid).toBe(true);
    const core = onlyChild(gaps.profile('core-directory'), 'error');
    expect(attributeOf(core, 'type')).toBe('ProfileUndecided');
    expect(attributeOf(core, 'message')).toMatch(
      /^INCOMPLETE: 1 case\(s\) could not be decided \(list-agents\.hidden-endpoint-absent: needs the fixture world/,
    );
    expect(attributeOf(onlyChild(gaps.profile('tool-discovery'), 'error'), 'message')).toBe(
      'NOT ASSESSED: none of its 1 MUST case(s) could run (the SUT does not advertise urn:xmpp:agent-task:0#progress)',
    );
    expect(attributeOf(onlyChild(gaps.profile('self-registration'), 'failure'), 'message')).toBe(
      `FAIL: ${PREFLIGHT_MISSING.message}`,
    );
    expect(onlyChild(gaps.profile('admin-provisioning'), 'error')).toBeDefined();
    const properties = propertiesOf(gaps.profiles);
    expect(properties.get('preflight.self-registration')).toBe(`missing: ${PREFLIGHT_MISSING.message}`);
    expect(properties.get('preflight.admin-provisioning')).toMatch(/^untestable: /);
    expect(properties.get('run.fixtures')).toMatch(/^manual: the operator set up the fixture world/);
    expect(properties.get('profile.tool-discovery')).toMatch(/^NOT ASSESSED: none of its 1 MUST case/);
  });

  it('a NOT ASSESSED profile that a partial run left out is skipped, not an error', () => {
    const run = syntheticRunResult({ allPass: true, partial: true });
    const withUnselected = {
      ...run,
      subject: { ...run.subject, profiles: [...run.subject.profiles, 'task-execution' as const] },
      profiles: run.profiles.map((verdict) =>
        verdict.profile === 'task-execution'
          ? {
              ...verdict,
              claimed: true,
              verdict: 'not-assessed' as const,
              reason: 'no MUST case of it was selected',
            }
          : verdict,
      ),
    };
    const parsed = parseXml(junitXml(withUnselected, reportContext(withUnselected)));
    const [profilesSuite] = childrenNamed(parsed, 'testsuite');
    if (profilesSuite === undefined) throw new Error('no suite');
    const task = childrenNamed(profilesSuite, 'testcase').find(
      (element) => attributeOf(element, 'name') === 'task-execution',
    );
    if (task === undefined) throw new Error('no task-execution testcase');
    expect(attributeOf(onlyChild(task, 'skipped'), 'message')).toBe(
      'NOT ASSESSED: no MUST case of it was selected',
    );
  });

  it('a baselined failure is skipped with "baseline: REASON"; a stale entry is a failure saying to remove it', async () => {
    const baselined = junitOf({ baseline: true });
    expect((await validateJunit(baselined.xml)).valid).toBe(true);
    const failed = baselined.testcase(CASE_IDS.failed);
    expect(childrenNamed(failed, 'failure')).toEqual([]);
    const skipped = onlyChild(failed, 'skipped');
    expect(attributeOf(skipped, 'message')).toBe(`baseline: ${BASELINE[CASE_IDS.failed]}`);
    expect(characterDataOf(skipped)).toContain(`expected:\n${FAILED_EXPECTED}`);
    const stale = onlyChild(baselined.testcase(CASE_IDS.passed), 'failure');
    expect(attributeOf(stale, 'type')).toBe('StaleBaseline');
    expect(attributeOf(stale, 'message')).toBe(
      `stale baseline entry: ${CASE_IDS.passed} passes now; remove it from the baseline (listed because: ${BASELINE[CASE_IDS.passed]})`,
    );
    expect(propertiesOf(baselined.profiles).get('baseline.stale')).toBe(CASE_IDS.passed);
    const [, gatewayInfo] = baselined.suites;
    if (gatewayInfo === undefined) throw new Error('no gateway-info suite');
    expect([attributeOf(gatewayInfo, 'failures'), attributeOf(gatewayInfo, 'skipped')]).toEqual(['1', '1']);
  });
});

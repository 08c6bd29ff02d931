import { describe, expect, it } from 'vitest';
import { ALLURE_RESULTS_DIR, allureResultFiles } from './allure-results.ts';
import { withoutAnalytics } from './allure-html.ts';
import { reportContext } from './report-context.ts';
import { specAnchorUrl } from './spec-links.ts';
import {
  BASELINE,
  CASE_IDS,
  FAILED_EXPECTED,
  FAILED_RECEIVED,
  PREFLIGHT_MISSING,
  syntheticRunResult,
  type SyntheticRunOptions,
} from './test-support/synthetic-run.ts';

interface AllureResult {
  uuid: string;
  name: string;
  fullName: string;
  historyId: string;
  status: string;
  stage: string;
  description: string;
  statusDetails: { message?: string; trace?: string; expected?: string; actual?: string; flaky?: boolean };
  labels: { name: string; value: string }[];
  links: { name?: string; url: string; type?: string }[];
  parameters: { name: string; value: string; excluded?: boolean }[];
  attachments: { name: string; source: string; type?: string }[];
  start: number;
  stop: number;
}

/** A run's Allure results: the case results by case ID, the profile results by profile ID, the files. */
function allureOf(options: SyntheticRunOptions = {}) {
  const run = syntheticRunResult(options);
  const written = allureResultFiles(run, reportContext(run));
  const all = written
    .filter((file) => file.path.endsWith('-result.json'))
    .map((file) => JSON.parse(String(file.content)) as AllureResult);
  const find = (predicate: (entry: AllureResult) => boolean, what: string): AllureResult => {
    const found = all.find(predicate);
    if (found === undefined) throw new Error(`no Allure result for ${what}`);
    return found;
  };
  return {
    run,
    files: written,
    byPath: new Map(written.map((file) => [file.path, file.content])),
    cases: all.filter((entry) => !entry.fullName.startsWith('profile:')),
    profiles: all.filter((entry) => entry.fullName.startsWith('profile:')),
    resultFor: (caseId: string) => find((entry) => entry.fullName === caseId, caseId),
    profileFor: (profile: string) => find((entry) => entry.fullName === `profile:${profile}`, profile),
    environment: String(
      new Map(written.map((file) => [file.path, file.content])).get(
        `${ALLURE_RESULTS_DIR}/environment.properties`,
      ),
    ),
  };
}

const { run: result, files, byPath, cases: results, profiles, resultFor, profileFor } = allureOf();

const labelValues = (entry: AllureResult, name: string): string[] =>
  entry.labels.filter((label) => label.name === name).map((label) => label.value);

describe('allure-results', () => {
  it('one <uuid>-result.json per case and per claimed profile, all under allure-results/', () => {
    expect(results.map((entry) => entry.name).sort()).toEqual(Object.values(CASE_IDS).sort());
    expect(profiles.map((entry) => entry.fullName)).toEqual([
      'profile:core-directory',
      'profile:jabber-search',
    ]);
    expect(files.filter((file) => file.path.endsWith('-result.json'))).toHaveLength(
      results.length + profiles.length,
    );
    for (const entry of [...results, ...profiles]) {
      expect(byPath.has(`${ALLURE_RESULTS_DIR}/${entry.uuid}-result.json`)).toBe(true);
      expect(entry.stage).toBe('finished');
      expect(entry.historyId).toMatch(/^[0-9a-f]{32}/);
    }
  });

  it('labels: suite = section, feature = each profile, story = primary requirement, severity from level', () => {
    const failed = resultFor(CASE_IDS.failed);
    expect(labelValues(failed, 'suite')).toEqual(['gateway-info']);
    expect(labelValues(failed, 'feature')).toEqual(['core-directory']);
    expect(labelValues(failed, 'story')).toEqual(['gateway-info.features']);
    expect(labelValues(failed, 'severity')).toEqual(['critical']);
    expect(labelValues(resultFor(CASE_IDS.passed), 'feature')).toEqual(['core-directory', 'jabber-search']);
    expect(labelValues(resultFor(CASE_IDS.untested), 'feature')).toEqual(['human-messaging']);
  });

  it('links to the spec anchor and carries the seeds as parameters kept out of the history key', () => {
    const passed = resultFor(CASE_IDS.passed);
    expect(passed.links).toEqual([
      { name: '#gateway-info', url: specAnchorUrl('gateway-info'), type: 'link' },
    ]);
    expect(passed.parameters).toEqual([
      { name: 'seed', value: '1001', excluded: true },
      { name: 'run seed', value: String(result.seed), excluded: true },
    ]);
    expect(passed.description).toBe(result.cases[0]?.case.statement);
  });

  it('statuses: passed, failed with expected/actual, broken + flaky, skipped with the reason', () => {
    expect(resultFor(CASE_IDS.passed).status).toBe('passed');
    expect(resultFor(CASE_IDS.passed).statusDetails.message).toMatch(/^warning: list-agents\.item-name/);
    const failed = resultFor(CASE_IDS.failed);
    expect(failed.status).toBe('failed');
    expect(failed.statusDetails).toMatchObject({ expected: FAILED_EXPECTED, actual: FAILED_RECEIVED });
    expect(failed.statusDetails.trace).toContain('violated: gateway-info.features');
    const flaky = resultFor(CASE_IDS.flaky);
    expect(flaky.status).toBe('broken');
    expect(flaky.statusDetails.flaky).toBe(true);
    expect(labelValues(flaky, 'tag')).toContain('flaky');
    expect(resultFor(CASE_IDS.inapplicable)).toMatchObject({
      status: 'skipped',
      statusDetails: { message: 'inapplicable: the SUT does not advertise jabber:iq:search#legacy' },
    });
    expect(resultFor(CASE_IDS.untested).status).toBe('skipped');
  });

  it('attaches every attempt’s transcript as text', () => {
    const failed = resultFor(CASE_IDS.failed);
    expect(failed.attachments.map((attachment) => [attachment.name, attachment.type])).toEqual([
      ['transcript, attempt 1 of 2: failed', 'text/plain'],
      ['transcript, attempt 2 of 2: failed', 'text/plain'],
    ]);
    const [first] = failed.attachments;
    const body = byPath.get(`${ALLURE_RESULTS_DIR}/${first?.source ?? ''}`);
    expect(Buffer.from(body ?? '').toString('utf8')).toContain(FAILED_RECEIVED);
    expect(resultFor(CASE_IDS.untested).attachments).toEqual([]);
  });

  it('times a case from its first transcript over its attempts', () => {
    const flaky = resultFor(CASE_IDS.flaky);
    expect(flaky.start).toBe(Date.parse(result.startedAt) + 60);
    expect(flaky.stop - flaky.start).toBe(10_030);
  });

  it('describes the run in environment.properties: seed, spec, verdict, selection, fixtures, preflight', () => {
    const properties = String(byPath.get(`${ALLURE_RESULTS_DIR}/environment.properties`));
    expect(properties).toContain(`Run\\ seed=${String(result.seed)}`);
    expect(properties).toContain('Spec\\ revision=0.0.5');
    expect(properties).toContain('Run\\ verdict=FAILED');
    expect(properties).toContain('Selection=all 5 cases');
    expect(properties).toMatch(/Fixtures=world-file: the harness wrote the fixture world/);
    expect(properties).toContain('Preflight=no finding');
  });

  it('a result per claimed profile: status from the verdict, message with the reason, counts and cases not passed', () => {
    const core = profileFor('core-directory');
    expect(core).toMatchObject({ name: 'Core Directory: FAIL', status: 'failed' });
    expect(core.statusDetails.message).toBe(`FAIL: 1 case(s) failed: ${CASE_IDS.failed}`);
    expect(core.description).toBe(
      [
        'passed 1, failed 1, cantTell 1, inapplicable 0',
        `${CASE_IDS.failed} [MUST] failed: gateway-info.features: a claimed profile has no feature in disco#info`,
        `${CASE_IDS.flaky} [MUST] cantTell: flaky: failed, then passed when re-run alone (first attempt: IqTimeout: no reply to iq-2 within 10000 ms)`,
      ].join('\n'),
    );
    expect(labelValues(core, 'suite')).toEqual(['profiles']);
    expect(labelValues(core, 'feature')).toEqual(['core-directory']);
    expect(profileFor('jabber-search')).toMatchObject({
      status: 'passed',
      statusDetails: { message: 'PASS' },
    });
    expect(profileFor('jabber-search').description).toContain(
      'passed 1, failed 0, cantTell 0, inapplicable 1',
    );
  });
});

describe('allure-results of the other verdicts', () => {
  it('a partial run: PARTIAL in the environment, a PARTIAL tag on every result, PARTIAL PASS profiles', () => {
    const partial = allureOf({ allPass: true, partial: true });
    expect(partial.environment).toContain('Run\\ verdict=PARTIAL\n');
    expect(partial.environment).toContain(
      'Selection=5 of 180 cases (--grep gateway-info, --grep list-agents)',
    );
    for (const entry of [...partial.cases, ...partial.profiles])
      expect(labelValues(entry, 'tag')).toContain('PARTIAL');
    const core = partial.profileFor('core-directory');
    expect(core).toMatchObject({ name: 'Core Directory: PARTIAL PASS', status: 'passed' });
    expect(core.description).toMatch(/^PARTIAL run: 5 of 180 cases/);
    expect(labelValues(resultFor(CASE_IDS.passed), 'tag')).not.toContain('PARTIAL');
  });

  it('INCOMPLETE and NOT ASSESSED are broken with their reason; a preflight failure fails; findings in the environment', () => {
    const gaps = allureOf({ allPass: true, gaps: true, fixtures: 'manual' });
    expect(gaps.profileFor('core-directory')).toMatchObject({
      status: 'broken',
      statusDetails: {
        message: expect.stringMatching(/^INCOMPLETE: 1 case\(s\) could not be decided/) as string,
      },
    });
    expect(gaps.profileFor('tool-discovery')).toMatchObject({
      status: 'broken',
      statusDetails: {
        message:
          'NOT ASSESSED: none of its 1 MUST case(s) could run (the SUT does not advertise urn:xmpp:agent-task:0#progress)',
      },
    });
    expect(gaps.profileFor('self-registration')).toMatchObject({
      status: 'failed',
      statusDetails: { message: `FAIL: ${PREFLIGHT_MISSING.message}` },
    });
    expect(gaps.profiles.map((entry) => entry.fullName)).not.toContain('profile:human-messaging');
    expect(gaps.environment).toMatch(/Fixtures=manual: the operator set up the fixture world/);
    expect(gaps.environment).toMatch(/Preflight=self-registration missing: Self Registration is claimed/);
  });

  it('a baselined failure is skipped with "baseline: REASON"; a stale entry fails saying to remove it', () => {
    const baselined = allureOf({ baseline: true });
    const failed = baselined.resultFor(CASE_IDS.failed);
    expect(failed).toMatchObject({
      status: 'skipped',
      statusDetails: { message: `baseline: ${BASELINE[CASE_IDS.failed]}`, expected: FAILED_EXPECTED },
    });
    expect(labelValues(failed, 'tag')).toContain('baselined');
    const stale = baselined.resultFor(CASE_IDS.passed);
    expect(stale.status).toBe('failed');
    expect(stale.statusDetails.message).toMatch(
      new RegExp(
        `^stale baseline entry: ${CASE_IDS.passed.replaceAll('.', '\\.')} passes now; remove it from the baseline`,
      ),
    );
    expect(labelValues(stale, 'tag')).toContain('stale baseline');
  });
});

describe('withoutAnalytics', () => {
  it('cuts Allure’s Google tag out of the page and leaves the rest alone', () => {
    const page = [
      '<body><div id="app"></div>',
      '    <script async src="https://www.googletagmanager.com/gtag/js?id=G-X"></script>',
      '    <script>',
      '        window.dataLayer = window.dataLayer || [];',
      "        gtag('config', 'G-X', {});",
      '    </script>',
      '    <script>window.allure = {};</script></body>',
    ].join('\n');
    const cleaned = withoutAnalytics(page);
    expect(cleaned).not.toContain('googletagmanager');
    expect(cleaned).not.toContain('dataLayer');
    expect(cleaned).toContain('<script>window.allure = {};</script>');
  });
});

import { describe, expect, it } from 'vitest';
import { ALLURE_RESULTS_DIR, allureResultFiles } from './allure-results.ts';
import { withoutAnalytics } from './allure-html.ts';
import { reportContext } from './report-context.ts';
import { specAnchorUrl } from './spec-links.ts';
import { CASE_IDS, FAILED_EXPECTED, FAILED_RECEIVED, syntheticRunResult } from './test-support/synthetic-run.ts';

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

const result = syntheticRunResult();
const files = allureResultFiles(result, reportContext(result));
const byPath = new Map(files.map((file) => [file.path, file.content]));
const results = files
  .filter((file) => file.path.endsWith('-result.json'))
  .map((file) => JSON.parse(String(file.content)) as AllureResult);

function resultFor(caseId: string): AllureResult {
  const found = results.find((entry) => entry.name === caseId);
  if (found === undefined) throw new Error(`no Allure result for ${caseId}`);
  return found;
}

const labelValues = (entry: AllureResult, name: string): string[] =>
  entry.labels.filter((label) => label.name === name).map((label) => label.value);

describe('allure-results', () => {
  it('one <uuid>-result.json per case, all under allure-results/', () => {
    expect(results.map((entry) => entry.name).sort()).toEqual(Object.values(CASE_IDS).sort());
    for (const entry of results) {
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
    expect(passed.links).toEqual([{ name: '#gateway-info', url: specAnchorUrl('gateway-info'), type: 'link' }]);
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

  it('describes the run in environment.properties', () => {
    const properties = String(byPath.get(`${ALLURE_RESULTS_DIR}/environment.properties`));
    expect(properties).toContain(`Run\\ seed=${String(result.seed)}`);
    expect(properties).toContain('Spec\\ revision=0.0.5');
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

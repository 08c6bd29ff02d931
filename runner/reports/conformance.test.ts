import { describe, expect, it } from 'vitest';
import { parseStrictJson } from '../../protocol/json/strict-json.ts';
import { conformanceJsonFile, conformanceReport } from './conformance-report.ts';
import { conformanceMarkdown } from './conformance-markdown.ts';
import { ConformanceReportError, conformanceViolations, parseConformanceReport } from './read-conformance.ts';
import { reportContext } from './report-context.ts';
import { transcriptFiles } from './transcripts.ts';
import type { ClaimedProfileStatement, ConformanceReport, ProfileStatement } from './conformance-report.ts';
import {
  BASELINE,
  CASE_IDS,
  FAILED_EXPECTED,
  FAILED_RECEIVED,
  FIRST_ATTEMPT_VIOLATION,
  GAP_CASE_IDS,
  MISSING_FIXTURE_REASON,
  PREFLIGHT_MISSING,
  PREFLIGHT_UNTESTABLE,
  SYNTHETIC_RUN_SEED,
  SYNTHETIC_TOTAL_CASES,
  syntheticRunResult,
  type SyntheticRunOptions,
} from './test-support/synthetic-run.ts';

const result = syntheticRunResult();
const context = reportContext(result);
const report = conformanceReport(result, context);
const json = String(conformanceJsonFile(report).content);

/** The report and statement of a synthetic run variant, its JSON checked against the schema. */
function variant(options: SyntheticRunOptions) {
  const run = syntheticRunResult(options);
  const variantReport = conformanceReport(run, reportContext(run));
  expect(conformanceViolations(parseStrictJson(String(conformanceJsonFile(variantReport).content)))).toEqual(
    [],
  );
  return { run, report: variantReport, markdown: conformanceMarkdown(variantReport, run) };
}

function profileOf(of: ConformanceReport, id: string): ProfileStatement {
  const found = of.profiles.find((profile) => profile.id === id);
  if (found === undefined) throw new Error(`no profile ${id}`);
  return found;
}

function claimedProfile(of: ConformanceReport, id: string): ClaimedProfileStatement {
  const found = profileOf(of, id);
  if (!found.claimed) throw new Error(`${id} is not claimed`);
  return found;
}

describe('conformance.json', () => {
  it('validates against fixtures/schemas/conformance-report.schema.json and reads back equal', () => {
    expect(conformanceViolations(parseStrictJson(json))).toEqual([]);
    expect(parseConformanceReport(json, 'conformance.json')).toEqual(JSON.parse(json));
  });

  it('the schema rejects what a reader could misread, naming each place', () => {
    const broken = JSON.parse(json) as Record<string, unknown> & { profiles: Record<string, unknown>[] };
    broken['format'] = 'agentconf-conformance/1';
    delete broken['seed'];
    const [firstProfile] = broken.profiles;
    if (firstProfile === undefined) throw new Error('no profile');
    firstProfile['verdict'] = 'green';
    broken['extra'] = true;
    const error = (() => {
      try {
        parseConformanceReport(JSON.stringify(broken), 'broken.json');
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ConformanceReportError);
    const paths = (error as ConformanceReportError).violations.map((violation) => violation.path);
    expect([...paths].sort()).toEqual(['/extra', '/format', '/profiles/0/verdict', '/seed']);
    expect(() => parseConformanceReport('{"a":1,"a":2}', 'dup.json')).toThrow(ConformanceReportError);
  });

  it('states each claimed profile: verdict with its reason, counts per level, warnings, the cases that did not pass', () => {
    const core = claimedProfile(report, 'core-directory');
    expect(core).toMatchObject({
      verdict: 'failed',
      reason: `1 case(s) failed: ${CASE_IDS.failed}`,
      warnings: 1,
      failingCases: [CASE_IDS.failed],
      undecidedCases: [CASE_IDS.flaky],
      blockers: [],
    });
    expect(core.counts.MUST).toEqual({ passed: 1, failed: 1, cantTell: 1, inapplicable: 0, untested: 0 });
    expect(core.notPassed).toEqual([
      {
        case: CASE_IDS.failed,
        level: 'MUST',
        outcome: 'failed',
        flaky: false,
        reason: 'gateway-info.features: a claimed profile has no feature in disco#info',
      },
      {
        case: CASE_IDS.flaky,
        level: 'MUST',
        outcome: 'cantTell',
        flaky: true,
        reason: expect.stringMatching(
          /^flaky: failed, then passed when re-run alone \(first attempt: IqTimeout/,
        ) as string,
      },
    ]);
    const search = claimedProfile(report, 'jabber-search');
    expect(search).toMatchObject({ verdict: 'passed', failingCases: [] });
    expect(search.reason).toBeUndefined();
    expect(search.counts.MUST.inapplicable).toBe(1);
    expect(search.notPassed).toEqual([
      {
        case: CASE_IDS.inapplicable,
        level: 'MUST',
        outcome: 'inapplicable',
        flaky: false,
        reason: 'the SUT does not advertise jabber:iq:search#legacy',
      },
    ]);
  });

  it('gives an unclaimed profile no counts, only "not claimed", even when one of its cases ran', () => {
    // The passed case counts toward jabber-search too; human-messaging's only case was untested.
    expect(profileOf(report, 'human-messaging')).toEqual({
      id: 'human-messaging',
      title: 'Human Messaging',
      claimed: false,
      verdict: 'not-claimed',
    });
    const broken = JSON.parse(json) as { profiles: Record<string, unknown>[] };
    const messaging = broken.profiles.find((profile) => profile['id'] === 'human-messaging');
    if (messaging === undefined) throw new Error('no human-messaging');
    messaging['counts'] = claimedProfile(report, 'core-directory').counts;
    messaging['verdict'] = 'passed';
    expect(conformanceViolations(parseStrictJson(JSON.stringify(broken))).map((v) => v.path)).toEqual(
      expect.arrayContaining(['/profiles/7/verdict']),
    );
  });

  it('names the run verdict, the selection, the fixtures mode and the preflight findings', () => {
    expect(report).toMatchObject({
      verdict: 'failed',
      partial: false,
      selection: { grep: [], profiles: [], selectedCases: 5, totalCases: 5 },
      fixtures: 'world-file',
      preflight: [],
    });
  });

  it('names the SUT, suite, spec revision, seed, run date and the servers it ran on', () => {
    expect(report).toMatchObject({
      seed: SYNTHETIC_RUN_SEED,
      provider: 'native',
      servers: { a: 'prosody', b: 'prosody', hostile: 'prosody' },
      runDate: result.startedAt,
      suite: { name: 'agentconf', version: '0.1.0' },
      spec: { revision: '0.0.5' },
      subject: { name: result.subject.name, version: '2.1.0', homepage: 'https://gateway.example/' },
      passed: false,
    });
  });

  it('lists every failed and undecided case with requirements, expected vs received and transcript path', () => {
    expect(report.failures.map((failure) => failure.case)).toEqual([CASE_IDS.failed, CASE_IDS.flaky]);
    const [failed, flaky] = report.failures;
    expect(failed).toMatchObject({
      outcome: 'failed',
      flaky: false,
      violation: {
        requirement: 'gateway-info.features',
        expected: FAILED_EXPECTED,
        received: FAILED_RECEIVED,
      },
      transcript: `transcripts/${CASE_IDS.failed}.txt`,
    });
    expect(failed?.requirements.map((requirement) => [requirement.id, requirement.level])).toEqual([
      ['gateway-info.features', 'MUST'],
      ['schema.base-structures-valid', 'MUST'],
    ]);
    expect(failed?.requirements[0]?.summary).toMatch(/disco#info/);
    expect(flaky).toMatchObject({ outcome: 'cantTell', flaky: true });
    expect(failed?.baseline).toBeUndefined();
    expect(report.warnings.map((warning) => [warning.case, warning.requirement])).toEqual([
      [CASE_IDS.passed, 'list-agents.item-name'],
    ]);
    expect(report.warnings[0]?.message).toMatch(/no name/);
  });

  it('keeps every attempt’s violation or reason, not only the last one’s', () => {
    const [failed, flaky] = report.failures;
    expect(failed?.attempts).toEqual([
      {
        attempt: 1,
        seed: 1002,
        outcome: 'failed',
        durationMs: 9,
        checks: 0,
        violation: {
          requirement: FIRST_ATTEMPT_VIOLATION.requirement,
          expected: FIRST_ATTEMPT_VIOLATION.expected,
          received: FIRST_ATTEMPT_VIOLATION.received,
        },
        reason: FIRST_ATTEMPT_VIOLATION.message,
      },
      {
        attempt: 2,
        seed: 2002,
        outcome: 'failed',
        durationMs: 7,
        checks: 0,
        violation: {
          requirement: 'gateway-info.features',
          expected: FAILED_EXPECTED,
          received: FAILED_RECEIVED,
        },
        reason: 'gateway-info.features: a claimed profile has no feature in disco#info',
      },
    ]);
    expect(flaky?.attempts.map((attempt) => [attempt.attempt, attempt.outcome, attempt.reason])).toEqual([
      [1, 'failed', 'IqTimeout: no reply to iq-2 within 10000 ms'],
      [2, 'passed', undefined],
    ]);
  });

  it('a partial run: verdict partial, what was selected, N of M cases', () => {
    const { report: partial } = variant({ allPass: true, partial: true });
    expect(partial).toMatchObject({
      passed: true,
      verdict: 'partial',
      partial: true,
      selection: {
        grep: ['gateway-info', 'list-agents'],
        profiles: [],
        selectedCases: 5,
        totalCases: SYNTHETIC_TOTAL_CASES,
      },
    });
    expect(variant({ partial: true }).report.verdict).toBe('failed');
  });

  it('INCOMPLETE, NOT ASSESSED and a preflight failure carry their main reason; the fixtures mode and the findings are stated', () => {
    const { report: gaps } = variant({ allPass: true, gaps: true, fixtures: 'manual' });
    expect(gaps).toMatchObject({
      passed: false,
      verdict: 'failed',
      fixtures: 'manual',
      preflight: [PREFLIGHT_MISSING, PREFLIGHT_UNTESTABLE],
    });
    expect(claimedProfile(gaps, 'core-directory')).toMatchObject({
      verdict: 'incomplete',
      reason: `1 case(s) could not be decided (${GAP_CASE_IDS.missingFixture}: ${MISSING_FIXTURE_REASON})`,
      undecidedCases: [GAP_CASE_IDS.missingFixture],
      notPassed: [{ case: GAP_CASE_IDS.missingFixture, outcome: 'cantTell', reason: MISSING_FIXTURE_REASON }],
    });
    expect(claimedProfile(gaps, 'tool-discovery')).toMatchObject({
      verdict: 'not-assessed',
      reason:
        'none of its 1 MUST case(s) could run (the SUT does not advertise urn:xmpp:agent-task:0#progress)',
      notPassed: [{ case: GAP_CASE_IDS.notAssessed, outcome: 'inapplicable' }],
    });
    expect(claimedProfile(gaps, 'self-registration')).toMatchObject({
      verdict: 'failed',
      reason: PREFLIGHT_MISSING.message,
      blockers: [PREFLIGHT_MISSING.message],
    });
    expect(claimedProfile(gaps, 'admin-provisioning')).toMatchObject({
      verdict: 'incomplete',
      undecidedCases: [GAP_CASE_IDS.blockedUntestable],
    });
    // A blocked case never ran: no attempt, and the schema allows that.
    expect(gaps.failures.find((failure) => failure.case === GAP_CASE_IDS.blockedMissing)?.attempts).toEqual(
      [],
    );
  });

  it('a baselined failure carries its baseline reason; a stale entry is listed', () => {
    const { report: baselined } = variant({ baseline: true });
    expect(baselined.failures.find((failure) => failure.case === CASE_IDS.failed)?.baseline).toBe(
      BASELINE[CASE_IDS.failed],
    );
    expect(claimedProfile(baselined, 'core-directory')).toMatchObject({
      verdict: 'incomplete',
      expectedFailures: 1,
      failingCases: [],
      notPassed: [{ case: CASE_IDS.failed, baseline: BASELINE[CASE_IDS.failed] }, { case: CASE_IDS.flaky }],
    });
    expect(baselined).toMatchObject({ passed: false, staleBaseline: [CASE_IDS.passed] });
  });
});

describe('conformance.md', () => {
  const markdown = conformanceMarkdown(report, result);

  it('opens with the verdict and the identity of SUT, suite, spec, run and seed', () => {
    expect(markdown).toMatch(
      /^# Conformance statement: Example Gateway \\<beta\\> & co 2\.1\.0\n\n\*\*FAILED\*\*: Core Directory FAIL\. 5 cases: /,
    );
    expect(markdown).toContain('| Suite | agentconf 0.1.0 |');
    expect(markdown).toMatch(/\| Specification \| \[XMPP Agent Gateway\]\(https:\/\/[^)]+\) 0\.0\.5 \|/);
    expect(markdown).toContain(`| Seed | ${String(SYNTHETIC_RUN_SEED)} `);
    expect(markdown).toContain(result.startedAt);
    expect(markdown).toMatch(
      /\| Mode \| .*, native federation \(server A prosody, server B prosody, hostile prosody\) \|/,
    );
  });

  it('has a sentence per profile: verdict and reason, outcome counts per level, the cases that did not pass', () => {
    expect(markdown).toContain(
      [
        `- **Core Directory** (\`core-directory\`, claimed): **FAIL** (1 case(s) failed: ${CASE_IDS.failed}) — MUST: 1 passed, 1 failed, 1 cantTell, 0 inapplicable; SHOULD: none; 1 with warnings.`,
        '  - `gateway-info.claimed-profiles-advertised` [MUST] failed: gateway-info.features: a claimed profile has no feature in disco\\#info',
        '  - `list-agents.rsm-paging-flaky` [MUST] cantTell: flaky: failed, then passed when re-run alone (first attempt: IqTimeout: no reply to iq-2 within 10000 ms)',
      ].join('\n'),
    );
    expect(markdown).toContain(
      [
        '- **Jabber Search Compatibility** (`jabber-search`, claimed): **PASS** — MUST: 1 passed, 0 failed, 0 cantTell, 1 inapplicable; SHOULD: none; 1 with warnings.',
        '  - `search.legacy-nick-field` [MUST] inapplicable: the SUT does not advertise jabber:iq:search\\#legacy',
      ].join('\n'),
    );
    // Unclaimed: no counts, although a case of it was untested.
    expect(markdown).toContain('- **Human Messaging** (`human-messaging`): not claimed.\n');
  });

  it('states the selection, the fixtures mode with what it implies, and that the preflight found nothing', () => {
    expect(markdown).toContain('| Selection | all 5 cases |');
    expect(markdown).toContain('| Fixtures | `world-file`: the harness wrote the fixture world');
    expect(markdown).toContain(
      '## Preflight\n\nNone: the gateway advertises what each claimed profile requires.',
    );
  });

  it('a partial run is PARTIAL, never plain PASSED, and says what was selected', () => {
    const { markdown: partial } = variant({ allPass: true, partial: true });
    expect(partial).toMatch(
      /\n\*\*PARTIAL\*\*: only 5 of 180 cases \(--grep gateway-info, --grep list-agents\) were selected; every claimed profile they reach passed them\. This is not a conformance verdict/,
    );
    expect(partial).not.toContain('**PASSED**');
    expect(partial).not.toContain('**PASS**');
    expect(partial).toContain(
      '| Selection | **PARTIAL**: 5 of 180 cases (--grep gateway-info, --grep list-agents); the verdicts speak for these cases only |',
    );
    expect(partial).toContain(
      '- **Core Directory** (`core-directory`, claimed): **PARTIAL PASS** — MUST: 3 passed',
    );
    const { markdown: failedPartial } = variant({ partial: true });
    expect(failedPartial).toContain('**FAILED (PARTIAL)**: Core Directory FAIL; only 5 of 180 cases');
  });

  it('INCOMPLETE and NOT ASSESSED carry their reason; the fixtures mode and the preflight findings are stated', () => {
    const { markdown: gaps } = variant({ allPass: true, gaps: true, fixtures: 'manual' });
    expect(gaps).toContain(
      '**FAILED**: Core Directory INCOMPLETE, Tool Discovery NOT ASSESSED, Self Registration FAIL, Administrative Provisioning INCOMPLETE.',
    );
    expect(gaps).toContain(
      '- **Core Directory** (`core-directory`, claimed): **INCOMPLETE** (1 case(s) could not be decided (list-agents.hidden-endpoint-absent: needs the fixture world',
    );
    expect(gaps).toContain(
      '- **Tool Discovery** (`tool-discovery`, claimed): **NOT ASSESSED** (none of its 1 MUST case(s) could run (the SUT does not advertise urn:xmpp:agent-task:0\\#progress)) — MUST: 0 passed, 0 failed, 0 cantTell, 1 inapplicable; SHOULD: none.',
    );
    expect(gaps).toContain(
      '- **Self Registration** (`self-registration`, claimed): **FAIL** (Self Registration is claimed, but the gateway agents.example does not advertise',
    );
    expect(gaps).toMatch(
      /\| Fixtures \| `manual`: the operator set up the fixture world, so the suite does not know its endpoints, manifests or grants: the cases that need it cannot tell \(cantTell\)/,
    );
    expect(gaps).toContain(
      '## Preflight\n\n- **Self Registration** (`self-registration`) fails the profile: Self Registration is claimed, but the gateway agents.example does not advertise urn:xmpp:agent-api:0\\#self-register: found instead: urn:solstice:register:1\n- **Administrative Provisioning** (`admin-provisioning`) cannot be tested: ',
    );
  });

  it('a baselined failure is marked and excused with its reason; a stale entry says to remove it', () => {
    const { markdown: baselined } = variant({ baseline: true });
    expect(baselined).toContain('**FAILED**: Core Directory INCOMPLETE, the baseline is out of date.');
    expect(baselined).toContain(
      '  - `gateway-info.claimed-profiles-advertised` [MUST] failed (baselined: issue \\#7: profiles are advertised only after the first registration): ',
    );
    expect(baselined).toContain(
      '## Baseline\n\n- `gateway-info.claimed-profiles-advertised` still fails, as the baseline expects: issue \\#7',
    );
    expect(baselined).toContain(
      '- `gateway-info.identity-local` passes now; remove it from the baseline (listed because: issue \\#3: identity missing before 2.1)',
    );
    expect(baselined).toContain('### `gateway-info.claimed-profiles-advertised`: FAILED (baselined) [MUST]');
  });

  it('has a section per failed case with expected, received and the transcript in a code block', () => {
    const section = markdown.slice(markdown.indexOf(`### \`${CASE_IDS.failed}\``));
    expect(section).toMatch(/^### `gateway-info\.claimed-profiles-advertised`: FAILED \[MUST\]/);
    expect(section).toContain(`Expected:\n\n\`\`\`\n${FAILED_EXPECTED}\n\`\`\``);
    expect(section).toContain(`Received:\n\n\`\`\`\n${FAILED_RECEIVED}\n\`\`\``);
    expect(section).toMatch(
      /Transcript \(\[transcripts\/gateway-info\.claimed-profiles-advertised\.txt\]\([^)]+\)\):\n\n```text\n--- attempt 1 of 2: failed/,
    );
    expect(section).toContain(
      '- Attempts:\n  - 1 (seed 1002): failed in 9 ms: gateway-info.features: disco\\#info answered resource-constraint\n  - 2 (seed 2002): failed in 7 ms: gateway-info.features: a claimed profile has no feature in disco\\#info',
    );
    expect(markdown).toContain(`### \`${CASE_IDS.flaky}\`: FLAKY [MUST]`);
    expect(markdown).not.toContain(`### \`${CASE_IDS.passed}\``);
  });

  it('keeps a transcript holding backticks inside its code block', () => {
    const tricky = syntheticRunResult();
    const failedCase = tricky.cases.find((c) => c.case.id === CASE_IDS.failed);
    const attempt = failedCase?.attempts[1];
    if (attempt === undefined) throw new Error('no attempt');
    Object.assign(attempt, { transcriptText: 'before\n```\nafter' });
    const text = conformanceMarkdown(conformanceReport(tricky, context), tricky);
    expect(text).toContain('````text\n');
  });
});

describe('transcripts/<case-id>.txt', () => {
  const files = new Map(transcriptFiles(result, context).map((file) => [file.path, String(file.content)]));

  it('one per case that ran, none for inapplicable or untested cases', () => {
    expect([...files.keys()]).toEqual([
      `transcripts/${CASE_IDS.passed}.txt`,
      `transcripts/${CASE_IDS.failed}.txt`,
      `transcripts/${CASE_IDS.flaky}.txt`,
    ]);
  });

  it('tells requirement, expected, received, the replay command and every attempt', () => {
    const text = files.get(`transcripts/${CASE_IDS.failed}.txt`) ?? '';
    expect(text).toContain('requirement gateway-info.features [MUST]');
    expect(text).toContain(`expected:\n${FAILED_EXPECTED}\nreceived:\n${FAILED_RECEIVED}`);
    expect(text).toContain(
      `replay: agentconf run --seed ${String(SYNTHETIC_RUN_SEED)} --grep ${CASE_IDS.failed}`,
    );
    expect(text).toContain('--- attempt 2 of 2: failed');
    expect(files.get(`transcripts/${CASE_IDS.passed}.txt`)).toContain('warning: list-agents.item-name');
  });
});

describe('conformance.json scenarios', () => {
  it('lists each adversarial case with its family, the iterations its last attempt ran and its outcome', () => {
    const base = syntheticRunResult();
    const [first, second] = base.cases;
    if (first === undefined || second === undefined) throw new Error('the synthetic run has cases');
    const lastAttempt = first.attempts.at(-1);
    const run = {
      ...base,
      deep: true,
      cases: [
        {
          ...first,
          case: { ...first.case, scenario: 'race' as const },
          attempts: lastAttempt === undefined ? [] : [{ ...lastAttempt, iterations: 37, durationMs: 12.4 }],
        },
        second,
        ...base.cases.slice(2),
      ],
    };
    const statement = conformanceReport(run, reportContext(run));
    expect(conformanceViolations(parseStrictJson(String(conformanceJsonFile(statement).content)))).toEqual(
      [],
    );
    expect(statement.deep).toBe(true);
    expect(statement.scenarios).toEqual([
      {
        case: first.case.id,
        scenario: 'race',
        outcome: first.outcome,
        ...(lastAttempt === undefined ? {} : { iterations: 37 }),
        durationMs: lastAttempt === undefined ? 0 : 12,
      },
    ]);
    expect(report.scenarios).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { parseStrictJson } from '../../protocol/json/strict-json.ts';
import { conformanceJsonFile, conformanceReport } from './conformance-report.ts';
import { conformanceMarkdown } from './conformance-markdown.ts';
import { ConformanceReportError, conformanceViolations, parseConformanceReport } from './read-conformance.ts';
import { reportContext } from './report-context.ts';
import { transcriptFiles } from './transcripts.ts';
import {
  CASE_IDS,
  FAILED_EXPECTED,
  FAILED_RECEIVED,
  SYNTHETIC_RUN_SEED,
  syntheticRunResult,
} from './test-support/synthetic-run.ts';

const result = syntheticRunResult();
const context = reportContext(result);
const report = conformanceReport(result, context);
const json = String(conformanceJsonFile(report).content);

describe('conformance.json', () => {
  it('validates against fixtures/schemas/conformance-report.schema.json and reads back equal', () => {
    expect(conformanceViolations(parseStrictJson(json))).toEqual([]);
    expect(parseConformanceReport(json, 'conformance.json')).toEqual(JSON.parse(json));
  });

  it('the schema rejects what a reader could misread, naming each place', () => {
    const broken = JSON.parse(json) as Record<string, unknown> & { profiles: Record<string, unknown>[] };
    broken['format'] = 'agentconf-conformance/2';
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

  it('states each profile: claimed or not, verdict, MUST and SHOULD counts, warnings', () => {
    const byId = new Map(report.profiles.map((profile) => [profile.id, profile]));
    expect(byId.get('core-directory')).toMatchObject({
      claimed: true,
      verdict: 'failed',
      warnings: 1,
      failingCases: [CASE_IDS.failed, CASE_IDS.flaky],
    });
    expect(byId.get('core-directory')?.counts.MUST).toEqual({
      passed: 1,
      failed: 1,
      cantTell: 1,
      inapplicable: 0,
      untested: 0,
    });
    expect(byId.get('jabber-search')).toMatchObject({ claimed: true, verdict: 'passed' });
    expect(byId.get('jabber-search')?.counts.MUST.inapplicable).toBe(1);
    expect(byId.get('human-messaging')).toMatchObject({ claimed: false, verdict: 'not-claimed' });
    expect(byId.get('human-messaging')?.counts.MUST.untested).toBe(1);
  });

  it('names the SUT, suite, spec revision, seed and run date', () => {
    expect(report).toMatchObject({
      seed: SYNTHETIC_RUN_SEED,
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
      attempts: 2,
      violation: { requirement: 'gateway-info.features', expected: FAILED_EXPECTED, received: FAILED_RECEIVED },
      transcript: `transcripts/${CASE_IDS.failed}.txt`,
    });
    expect(failed?.requirements.map((requirement) => [requirement.id, requirement.level])).toEqual([
      ['gateway-info.features', 'MUST'],
      ['schema.base-structures-valid', 'MUST'],
    ]);
    expect(failed?.requirements[0]?.summary).toMatch(/disco#info/);
    expect(flaky).toMatchObject({ outcome: 'cantTell', flaky: true });
    expect(report.warnings.map((warning) => [warning.case, warning.requirement])).toEqual([
      [CASE_IDS.passed, 'list-agents.item-name'],
    ]);
    expect(report.warnings[0]?.message).toMatch(/no name/);
  });
});

describe('conformance.md', () => {
  const markdown = conformanceMarkdown(report, result);

  it('opens with the verdict and the identity of SUT, suite, spec, run and seed', () => {
    expect(markdown).toMatch(/^# Conformance statement: Example Gateway \\<beta\\> & co 2\.1\.0\n\n\*\*FAILED\*\*/);
    expect(markdown).toContain('| Suite | agentconf 0.1.0 |');
    expect(markdown).toMatch(/\| Specification \| \[XMPP Agent Gateway\]\(https:\/\/[^)]+\) 0\.0\.5 \|/);
    expect(markdown).toContain(`| Seed | ${String(SYNTHETIC_RUN_SEED)} `);
    expect(markdown).toContain(result.startedAt);
  });

  it('has a sentence per profile', () => {
    expect(markdown).toContain(
      '- **Core Directory** (`core-directory`, claimed): **FAILED** — MUST 1/3 passed, SHOULD none run, 1 with warnings; failing: `gateway-info.claimed-profiles-advertised`, `list-agents.rsm-paging-flaky`.',
    );
    expect(markdown).toContain('- **Jabber Search Compatibility** (`jabber-search`, claimed): **PASSED** — MUST 1/1 passed');
    expect(markdown).toContain('- **Human Messaging** (`human-messaging`): not claimed.');
  });

  it('says so when a claimed profile passed without a single decided case (a --grep run)', () => {
    const claimedUnrun = {
      ...report,
      profiles: report.profiles.map((profile) =>
        profile.id === 'tool-discovery' ? { ...profile, claimed: true, verdict: 'passed' as const } : profile,
      ),
    };
    expect(conformanceMarkdown(claimedUnrun, result)).toContain(
      '- **Tool Discovery** (`tool-discovery`, claimed): **PASSED** — MUST none run, SHOULD none run, no case of it ran.',
    );
  });

  it('has a section per failed case with expected, received and the transcript in a code block', () => {
    const section = markdown.slice(markdown.indexOf(`### \`${CASE_IDS.failed}\``));
    expect(section).toMatch(/^### `gateway-info\.claimed-profiles-advertised`: FAILED \[MUST\]/);
    expect(section).toContain(`Expected:\n\n\`\`\`\n${FAILED_EXPECTED}\n\`\`\``);
    expect(section).toContain(`Received:\n\n\`\`\`\n${FAILED_RECEIVED}\n\`\`\``);
    expect(section).toMatch(/Transcript \(\[transcripts\/gateway-info\.claimed-profiles-advertised\.txt\]\([^)]+\)\):\n\n```text\n--- attempt 1 of 2: failed/);
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
    expect(text).toContain(`replay: agentconf run --seed ${String(SYNTHETIC_RUN_SEED)} --grep ${CASE_IDS.failed}`);
    expect(text).toContain('--- attempt 2 of 2: failed');
    expect(files.get(`transcripts/${CASE_IDS.passed}.txt`)).toContain('warning: list-agents.item-name');
  });
});

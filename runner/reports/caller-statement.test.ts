// The caller half of conformance.md and conformance.json: a caller-only run speaks of its
// assessments (never as spec profiles), not of an empty gateway run, and a failed caller case is
// shown with its requirement, expected vs received and transcript.
import { describe, expect, it } from 'vitest';

import type { CallerCaseResult } from '../../suites/caller/framework/run-caller-case.ts';
import type { Level } from '../../suites/framework/outcome.ts';
import type { AssessmentVerdict } from '../assessment-verdicts.ts';
import { profileVerdicts, type OutcomeCounts } from '../profile-verdicts.ts';
import type { RunResult } from '../run-result.ts';
import { conformanceMarkdown } from './conformance-markdown.ts';
import { conformanceJsonFile, conformanceReport } from './conformance-report.ts';
import { parseConformanceReport } from './read-conformance.ts';
import { reportContext } from './report-context.ts';
import { EVERY_INTERFACE } from '../../suites/caller/framework/caller-under-test.ts';

function counts(passed: number, failed: number): Record<Level, OutcomeCounts> {
  const zero = { passed: 0, failed: 0, cantTell: 0, inapplicable: 0, untested: 0 };
  return { MUST: { ...zero, passed, failed }, SHOULD: zero, MAY: zero };
}

const FAILED_CASE: CallerCaseResult = {
  case: {
    id: 'invocation.caller-retry-identical-after-lost-accepted',
    section: 'invocation',
    requirements: ['invocation.caller-retries-identically'],
    assessments: ['caller-side'],
    level: 'MUST',
    statement: 'The caller retries the identical request after a lost accepted.',
    interfaces: EVERY_INTERFACE,
    run: () => Promise.resolve(),
  },
  outcome: 'failed',
  seed: 11,
  flaky: false,
  attempts: [
    {
      attempt: 1,
      seed: 11,
      outcome: 'failed',
      durationMs: 812.4,
      violation: {
        requirement: 'invocation.caller-retries-identically',
        expected: 'the same request ID on the retry',
        received: 'request ID r-2 after r-1',
        message: 'a fresh request ID',
      },
      reason: 'a fresh request ID',
      warnings: [],
      checks: 0,
      decided: [],
      transcript: { title: 'case', startedAt: '2026-01-01T00:00:00.000Z', entries: [] },
      transcriptText: '<- fake target: <iq type="set"><invoke request-id="r-2"/></iq>',
    },
  ],
};

function callerRun(gatewayJid: string, assessments: readonly AssessmentVerdict[]): RunResult {
  return {
    runId: 'run',
    startedAt: '2026-01-01T00:00:00.000Z',
    durationMs: 1000,
    setupMs: 100,
    seed: 7,
    strict: false,
    deep: false,
    suiteVersion: '0.1.0',
    specRevision: '0.0.5',
    provider: 'native',
    servers: { a: 'prosody', b: 'prosody', hostile: 'prosody' },
    subject: { name: 'a bridge', gatewayJid, profiles: [], features: [] },
    cases: [],
    selection: { grep: [], profiles: [], selectedCases: 1, totalCases: 1 },
    partial: false,
    preflight: [],
    fixtures: 'manual',
    profiles: profileVerdicts([], { claimed: new Set(), strict: false }),
    baseline: {},
    staleBaseline: [],
    unknownBaseline: [],
    passed: false,
    caller: { kind: 'mcp', name: 'a bridge' },
    callerCases: [FAILED_CASE],
    assessments,
  };
}

const FAILED_ASSESSMENT: AssessmentVerdict = {
  assessment: 'caller-side',
  title: 'Caller side',
  notASpecProfile: true,
  verdict: 'failed',
  counts: counts(13, 1),
  failingCases: [FAILED_CASE.case.id],
  undecidedCases: [],
  reason: '1 case(s) failed',
};

describe('the caller statement', () => {
  const result = callerRun('', [FAILED_ASSESSMENT]);
  const report = conformanceReport(result, reportContext(result));
  const markdown = conformanceMarkdown(report, result);

  it('carries the caller, its assessments and its failed cases in conformance.json', () => {
    expect(report.caller?.name).toBe('a bridge');
    expect(report.caller?.label).toBe('assessment, not a spec profile');
    expect(report.caller?.assessments.map((entry) => entry.verdict)).toEqual(['failed']);
    expect(report.caller?.totals).toMatchObject({ cases: 1, failed: 1, passed: 0 });
    expect(report.caller?.failures[0]?.violation?.received).toBe('request ID r-2 after r-1');
  });

  it('writes a conformance.json the published schema accepts and reads back equal', () => {
    const { content } = conformanceJsonFile(report);
    expect(parseConformanceReport(content, 'conformance.json')).toEqual(JSON.parse(String(content)));
    const { caller: _caller, ...withoutCaller } = JSON.parse(String(content)) as Record<string, unknown>;
    expect(() => parseConformanceReport(JSON.stringify(withoutCaller), 'conformance.json')).toThrow(
      /\/caller: "caller" is required/,
    );
  });

  it('opens with the assessment that failed, labelled as not a spec profile', () => {
    const opening = markdown.split('\n')[2] ?? '';
    expect(opening).toContain('**FAILED**');
    expect(opening).toContain('Caller side (FAILED, not a spec profile)');
    expect(opening).not.toContain('0 cases');
  });

  it('speaks of no gateway, preflight or fixture world for a caller-only SUT', () => {
    expect(markdown).not.toContain('| Gateway JID |');
    expect(markdown).not.toContain('| Fixtures |');
    expect(markdown).not.toContain('## Preflight');
    expect(markdown).toContain('| Caller under test | a bridge (`mcp`) |');
    expect(markdown).toContain('None claimed: the SUT file declares a caller and no gateway');
  });

  it('shows the failed caller case with its requirement, expected vs received and transcript', () => {
    expect(markdown).toContain('#### `invocation.caller-retry-identical-after-lost-accepted`: FAILED [MUST]');
    expect(markdown).toContain('- Violated: `invocation.caller-retries-identically`');
    expect(markdown).toContain('request ID r-2 after r-1');
    expect(markdown).toContain('<invoke request-id="r-2"/>');
    expect(markdown).toMatch(
      /\*\*Caller side\*\* \(`caller-side`, assessment, not a spec profile\): \*\*FAILED\*\*/,
    );
  });

  it('keeps the gateway sections when the SUT file declares a gateway and a caller', () => {
    const both = callerRun('gateway.example', [FAILED_ASSESSMENT]);
    const text = conformanceMarkdown(conformanceReport(both, reportContext(both)), both);
    expect(text).toContain('| Gateway JID | `gateway.example` |');
    expect(text).toContain('## Preflight');
    expect(text).toContain('## Caller under test');
  });

  it('adds nothing to a run that judged no caller', () => {
    const {
      caller: _caller,
      callerCases: _cases,
      assessments: _assessments,
      ...gatewayOnly
    } = callerRun('gateway.example', []);
    const plain = conformanceReport(gatewayOnly, reportContext(gatewayOnly));
    expect(plain.caller).toBeUndefined();
    expect(conformanceMarkdown(plain, gatewayOnly)).not.toContain('Caller under test');
  });
});

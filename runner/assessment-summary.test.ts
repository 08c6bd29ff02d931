// The assessments in the closing summary and the run's verdict line: labelled as not spec
// profiles, and a failed or incomplete assessment keeps the run from passing.
import { describe, expect, it } from 'vitest';

import type { Level } from '../suites/framework/outcome.ts';
import type { AssessmentVerdict } from './assessment-verdicts.ts';
import { assessmentsNotPassedText, assessmentSummaryLines } from './assessment-summary.ts';
import { profileVerdicts, type OutcomeCounts } from './profile-verdicts.ts';
import type { RunResult } from './run-result.ts';
import { runVerdictLine, summaryTable } from './terminal-report.ts';

function counts(passed: number, failed = 0): Record<Level, OutcomeCounts> {
  const zero = { passed: 0, failed: 0, cantTell: 0, inapplicable: 0, untested: 0 };
  return { MUST: { ...zero, passed, failed }, SHOULD: zero, MAY: zero };
}

function verdict(
  assessment: AssessmentVerdict['assessment'],
  name: AssessmentVerdict['verdict'],
  reason?: string,
): AssessmentVerdict {
  return {
    assessment,
    title: assessment === 'caller-side' ? 'Caller side' : 'MCP bridge',
    notASpecProfile: true,
    verdict: name,
    counts: counts(name === 'failed' ? 2 : 3, name === 'failed' ? 1 : 0),
    failingCases: [],
    undecidedCases: [],
    ...(reason === undefined ? {} : { reason }),
  };
}

function callerRun(assessments: readonly AssessmentVerdict[], passed: boolean): RunResult {
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
    subject: { name: 'a bridge', gatewayJid: '', profiles: [], features: [] },
    cases: [],
    selection: { grep: [], profiles: [], selectedCases: 3, totalCases: 3 },
    partial: false,
    preflight: [],
    fixtures: 'manual',
    profiles: [],
    baseline: {},
    staleBaseline: [],
    unknownBaseline: [],
    passed,
    caller: { kind: 'mcp', name: 'a bridge' },
    callerCases: [],
    assessments,
  };
}

describe('assessment summary', () => {
  it('shows each assessment beside the profiles, labelled as not a spec profile', () => {
    const lines = assessmentSummaryLines([
      verdict('caller-side', 'passed'),
      verdict('mcp-bridge', 'incomplete', '1 case(s) could not be decided'),
    ]).join('\n');
    expect(lines).toContain('assessment (not a spec profile)');
    expect(lines).toMatch(/Caller side\s+3\/3\s+-\s+PASS/);
    expect(lines).toContain('MCP bridge INCOMPLETE: 1 case(s) could not be decided');
  });

  it('says nothing when no assessment ran (a gateway run without a caller)', () => {
    expect(assessmentSummaryLines(undefined)).toEqual([]);
    expect(assessmentSummaryLines([verdict('caller-side', 'not-run')])).toEqual([]);
  });

  it('passes a caller run only as "every assessment run", never as a profile claim', () => {
    const run = callerRun([verdict('caller-side', 'passed'), verdict('mcp-bridge', 'not-run')], true);
    expect(runVerdictLine(run)).toBe('PASS: every assessment run (not a spec profile)');
    expect(summaryTable(run)).toContain('a bridge: PASS: every assessment run (not a spec profile)');
  });

  it('names the failed assessment in the verdict line', () => {
    const run = callerRun([verdict('caller-side', 'failed', '1 case(s) failed: x')], false);
    expect(assessmentsNotPassedText(run.assessments)).toEqual(['FAIL: Caller side (assessment)']);
    expect(runVerdictLine(run)).toBe('FAIL: Caller side (assessment)');
  });

  it('words a partial caller run by its assessments', () => {
    const run = {
      ...callerRun([verdict('caller-side', 'passed')], true),
      partial: true,
      selection: { grep: ['events.'], profiles: [], selectedCases: 1, totalCases: 3 },
    };
    expect(runVerdictLine(run)).toBe(
      'PARTIAL: 1 of 3 cases selected; every assessment they reach passed them (not a conformance verdict)',
    );
  });

  it('a caller-only run shows only what it assessed, saying no gateway was under test', () => {
    const run = {
      ...callerRun([verdict('caller-side', 'passed'), verdict('mcp-bridge', 'passed')], true),
      profiles: profileVerdicts([], { claimed: new Set(), strict: false }),
    };
    const summary = summaryTable(run);
    expect(summary).toContain(
      'no gateway under test: the SUT file declares only a caller, so no spec profile was assessed',
    );
    expect(summary).toMatch(/Caller side\s+3\/3\s+-\s+PASS/);
    expect(summary).toMatch(/MCP bridge\s+3\/3\s+-\s+PASS/);
    for (const profile of run.profiles) expect(summary).not.toContain(profile.title);
    expect(summary).not.toContain('claimed');
    expect(summary).not.toContain('n/a');
  });

  it('keeps the profile table when a gateway was under test beside the caller', () => {
    const run = {
      ...callerRun([verdict('caller-side', 'passed')], true),
      subject: { name: 'a gateway', gatewayJid: 'agents.example', profiles: [], features: [] },
      profiles: profileVerdicts([], { claimed: new Set(), strict: false }),
    };
    const summary = summaryTable(run);
    expect(summary).toMatch(/Core Directory\s+no/);
    expect(summary).not.toContain('no gateway under test');
  });
});

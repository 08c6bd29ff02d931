/**
 * A run that judged a caller under test (docs/caller.md), for the report formats' tests: one
 * caller case per outcome that matters (passed, failed with a violation, cantTell, flaky,
 * inapplicable), the two assessments, and either no gateway (a SUT file with only a caller) or
 * the synthetic gateway run beside them.
 */
import type { CallerCaseResult } from '../../../suites/caller/framework/run-caller-case.ts';
import type { AttemptReport } from '../../../suites/framework/run-case.ts';
import type { Level, Outcome } from '../../../suites/framework/outcome.ts';
import type { AssessmentVerdict } from '../../assessment-verdicts.ts';
import { profileVerdicts, type OutcomeCounts } from '../../profile-verdicts.ts';
import type { RunResult } from '../../run-result.ts';
import { SYNTHETIC_STARTED_AT, syntheticRunResult } from './synthetic-run.ts';
import { EVERY_INTERFACE } from '../../../suites/caller/framework/caller-under-test.ts';

export const CALLER_CASE_IDS = {
  passed: 'events.caller-ignores-identical-replay',
  failed: 'invocation.caller-retry-identical-after-lost-accepted',
  cantTell: 'find-gateway.caller-needs-directory-feature',
  flaky: 'cancellation.caller-local-timeout-stays-local',
  inapplicable: 'json-encoding.caller-sends-no-reply-to-bad-result',
  mcpBridge: 'mcp-mapping.bridge-returns-call-result-exactly',
} as const;

export const CALLER_FAILED_RECEIVED = 'request ID r-2 after r-1';
export const CALLER_CANT_TELL_REASON = 'the caller never queried target.example’s disco#info';
export const CALLER_NAME = 'a bridge';

function attempt(outcome: Outcome, extra: Partial<AttemptReport> = {}): AttemptReport {
  return {
    attempt: 1,
    seed: 11,
    outcome,
    durationMs: 812.4,
    warnings: [],
    checks: outcome === 'passed' ? 1 : 0,
    decided: [],
    transcript: { title: 'case', startedAt: SYNTHETIC_STARTED_AT, entries: [] },
    transcriptText: `mcp SEND {"method":"tools/call"} (${outcome})`,
    ...extra,
  };
}

function callerCase(
  id: string,
  requirement: CallerCaseResult['case']['requirements'][0],
  outcome: Outcome,
  extra: Partial<CallerCaseResult> = {},
): CallerCaseResult {
  const section = id.slice(0, id.indexOf('.'));
  return {
    case: {
      id,
      section,
      requirements: [requirement],
      assessments: [section === 'mcp-mapping' ? 'mcp-bridge' : 'caller-side'],
      level: 'MUST',
      statement: `What ${id} checks.`,
      interfaces: EVERY_INTERFACE,
      run: () => Promise.resolve(),
    },
    outcome,
    seed: 11,
    flaky: false,
    attempts: [attempt(outcome)],
    ...extra,
  };
}

export const CALLER_CASES: readonly CallerCaseResult[] = [
  callerCase(CALLER_CASE_IDS.passed, 'events.caller-ignores-replay', 'passed'),
  callerCase(CALLER_CASE_IDS.failed, 'invocation.caller-retries-identically', 'failed', {
    reason: 'a fresh request ID',
    attempts: [
      attempt('failed', {
        violation: {
          requirement: 'invocation.caller-retries-identically',
          expected: 'the same request ID on the retry',
          received: CALLER_FAILED_RECEIVED,
          message: 'a fresh request ID',
        },
        reason: 'a fresh request ID',
      }),
    ],
  }),
  callerCase(CALLER_CASE_IDS.cantTell, 'find-gateway.client-verifies-feature', 'cantTell', {
    reason: CALLER_CANT_TELL_REASON,
    attempts: [attempt('cantTell', { reason: CALLER_CANT_TELL_REASON })],
  }),
  callerCase(CALLER_CASE_IDS.flaky, 'cancellation.caller-timeout-local', 'cantTell', {
    flaky: true,
    reason: 'flaky: failed, then passed when re-run',
    attempts: [attempt('failed', { reason: 'a cancel followed' }), { ...attempt('passed'), attempt: 2 }],
  }),
  callerCase(CALLER_CASE_IDS.inapplicable, 'json-encoding.unacceptable-iq-result', 'inapplicable', {
    reason: 'no manifest',
    attempts: [],
  }),
  callerCase(CALLER_CASE_IDS.mcpBridge, 'mcp-mapping.preserve-call-result', 'passed'),
];

function counts(passed: number, failed: number, cantTell: number): Record<Level, OutcomeCounts> {
  const zero = { passed: 0, failed: 0, cantTell: 0, inapplicable: 0, untested: 0 };
  return { MUST: { ...zero, passed, failed, cantTell }, SHOULD: zero, MAY: zero };
}

export const CALLER_ASSESSMENTS: readonly AssessmentVerdict[] = [
  {
    assessment: 'caller-side',
    title: 'Caller side',
    notASpecProfile: true,
    verdict: 'failed',
    counts: counts(1, 1, 2),
    failingCases: [CALLER_CASE_IDS.failed],
    undecidedCases: [CALLER_CASE_IDS.cantTell, CALLER_CASE_IDS.flaky],
    reason: '1 case(s) failed',
  },
  {
    assessment: 'mcp-bridge',
    title: 'MCP bridge',
    notASpecProfile: true,
    verdict: 'passed',
    counts: counts(1, 0, 0),
    failingCases: [],
    undecidedCases: [],
  },
];

/** The caller cases on their own (`gateway: false`, a caller-only SUT) or beside the gateway run. */
export function syntheticCallerRun(options: { readonly gateway: boolean }): RunResult {
  const caller = {
    caller: { kind: 'mcp' as const, name: CALLER_NAME },
    callerCases: CALLER_CASES,
    assessments: CALLER_ASSESSMENTS,
    passed: false,
  };
  if (options.gateway) return { ...syntheticRunResult(), ...caller };
  const base = syntheticRunResult();
  return {
    ...base,
    ...caller,
    subject: { name: CALLER_NAME, gatewayJid: '', profiles: [], features: [] },
    cases: [],
    selection: {
      grep: [],
      profiles: [],
      selectedCases: CALLER_CASES.length,
      totalCases: CALLER_CASES.length,
    },
    preflight: [],
    profiles: profileVerdicts([], { claimed: new Set(), strict: false }),
    baseline: {},
    staleBaseline: [],
    unknownBaseline: [],
  };
}

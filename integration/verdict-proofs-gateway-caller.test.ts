// Proof that the caller suites judge a gateway through its declared call-out tool
// (docs/caller.md, "A gateway whose own agents call out"): the reference gateway with
// conformance.call-out passes the caller-side assessment on a full run, and every profile it
// claims: its call-out tool is granted to an account no gateway case acts as, so the gateway
// suites' model of the world still holds (docs/caller.md); gateways broken in one caller rule
// (integration/variants/gateway-caller-variants.ts) fail the caller case that judges that rule,
// citing its requirement, and fail the assessment.
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { REPO_ROOT } from '../harness/repo-root.ts';
import type { RunResult } from '../runner/run-result.ts';
import { ALL_CALLER_SUITES } from '../suites/caller/index.ts';
import {
  BROKEN_GATEWAY_CALLER_VARIANTS,
  GATEWAY_CALLER_SUT,
  PERMITTED_GATEWAY_CALLER_VARIANTS,
} from './variants/gateway-caller-variants.ts';
import { describeRun } from './variants/run-agentconf.ts';
import { useVariantRun } from './variants/use-variant-run.ts';

function assessment(result: RunResult, id: string) {
  const found = result.assessments?.find((entry) => entry.assessment === id);
  if (found === undefined) throw new Error(`the run has no ${id} assessment`);
  return found;
}

function callerCase(result: RunResult, id: string) {
  const found = result.callerCases?.find((entry) => entry.case.id === id);
  if (found === undefined) {
    throw new Error(
      `no caller case ${id}; ran: ${(result.callerCases ?? []).map((c) => c.case.id).join(', ')}`,
    );
  }
  return found;
}

describe('the reference gateway as a caller, on a full run', () => {
  const run = useVariantRun({
    name: 'reference-gateway-caller',
    sutFile: join(REPO_ROOT, 'fixtures', 'sut', GATEWAY_CALLER_SUT),
  });

  it('passes every claimed profile and the caller-side assessment, judged through its call-out tool; mcp-bridge is not run', () => {
    const { result } = run();
    expect(result.caller).toEqual({ kind: 'gateway-tool', name: result.subject.name });
    expect(assessment(result, 'caller-side').verdict, describeRun(run())).toBe('passed');
    expect(result.passed, describeRun(run())).toBe(true);
    expect(assessment(result, 'mcp-bridge')).toMatchObject({
      verdict: 'not-run',
      reason: expect.stringMatching(/gateway call-out tool/) as unknown,
    });
  });

  it('runs every caller-side case and decides each MUST one; the MCP-only cases are inapplicable', () => {
    for (const entry of run().result.callerCases ?? []) {
      const mcpOnly = entry.case.assessments.includes('mcp-bridge');
      if (mcpOnly) {
        expect(entry.outcome, entry.case.id).toBe('inapplicable');
        expect(entry.reason, entry.case.id).toMatch(/not applicable to the gateway call-out tool/);
      } else {
        expect(entry.outcome, `${entry.case.id}: ${entry.reason ?? ''}`).toBe('passed');
        expect(entry.attempts[0]?.transcriptText).toMatch(/caller interface: gateway call-out tool/);
      }
    }
  });
});

describe.each(BROKEN_GATEWAY_CALLER_VARIANTS)('$name', (variant) => {
  const run = useVariantRun(variant, { grep: [variant.caseId] });

  it(`fails ${variant.caseId} on ${variant.violates}, and the caller-side assessment`, () => {
    const { result } = run();
    const judged = callerCase(result, variant.caseId);
    const transcript = judged.attempts.at(-1)?.transcriptText;
    expect(judged.outcome, transcript).toBe('failed');
    expect(
      judged.attempts.map((attempt) => attempt.violation?.requirement),
      transcript,
    ).toContain(variant.violates);
    expect(assessment(result, 'caller-side').verdict).toBe('failed');
    expect(run().code).not.toBe(0);
  });
});

// Permitted: a gateway that polls instead of reading events, or waits less than it is asked
// to, breaks no caller rule, so every caller case its change can reach must still pass it.
const CALLER_CASE_IDS = ALL_CALLER_SUITES.flatMap((suite) => suite.cases.map((entry) => entry.id));

describe.each(PERMITTED_GATEWAY_CALLER_VARIANTS)('$name (permitted)', (variant) => {
  const judged = CALLER_CASE_IDS.filter(
    (id) => variant.judgedBy?.some((prefix) => id.startsWith(prefix)) ?? true,
  );
  const run = useVariantRun(variant, { grep: judged });

  it('passes the caller-side cases its change can reach, and the caller-side assessment', () => {
    const { result } = run();
    const unpassed = (result.callerCases ?? [])
      .filter((entry) => entry.case.interfaces['gateway-tool'] === true && entry.outcome !== 'passed')
      .map((entry) => `${entry.case.id} ${entry.outcome}: ${(entry.reason ?? '').split('\n')[0] ?? ''}`);
    expect(unpassed, describeRun(run())).toEqual([]);
    expect((result.callerCases ?? []).map((entry) => entry.case.id).sort()).toEqual([...judged].sort());
    expect(assessment(result, 'caller-side').verdict, describeRun(run())).toBe('passed');
  });
});

/**
 * The caller half of the conformance statement (docs/caller.md): which caller was judged, the
 * verdict of each assessment it was judged on (never a spec profile: the statement says so), and
 * every caller case that did not pass with its requirements, attempts, expected vs received and
 * transcript. conformance.json carries it as `caller`; conformance.md renders it.
 */
import type { CallerCaseResult } from '../../suites/caller/framework/run-caller-case.ts';
import { ASSESSMENT_LABEL } from '../../suites/registry/assessments.ts';
import type { AssessmentVerdict } from '../assessment-verdicts.ts';
import type { RunResult } from '../run-result.ts';
import { attemptTranscripts, requirementLine, type CitedRequirement } from './case-story.ts';
import { code, codeBlock, inline, verdictLines } from './markdown-text.ts';
import type { ReportContext } from './report-context.ts';

export interface CallerCaseFailure {
  readonly case: string;
  readonly section: string;
  readonly level: string;
  readonly statement: string;
  readonly assessments: readonly string[];
  readonly outcome: string;
  readonly flaky: boolean;
  readonly seed: number;
  readonly requirements: readonly CitedRequirement[];
  readonly attempts: readonly {
    readonly attempt: number;
    readonly seed: number;
    readonly outcome: string;
    readonly durationMs: number;
    readonly reason?: string;
  }[];
  readonly violation?: { readonly requirement: string; readonly expected: string; readonly received: string };
  readonly reason?: string;
  /** Every attempt's transcript: MCP messages, notes, the fake target's stanzas. */
  readonly transcript: string;
}

export interface CallerStatement {
  readonly kind: string;
  readonly name: string;
  /** Said wherever an assessment appears: these are not the spec's conformance profiles. */
  readonly label: typeof ASSESSMENT_LABEL;
  readonly assessments: readonly AssessmentVerdict[];
  readonly totals: {
    readonly cases: number;
    readonly passed: number;
    readonly failed: number;
    readonly cantTell: number;
    readonly inapplicable: number;
    readonly flaky: number;
  };
  readonly failures: readonly CallerCaseFailure[];
}

function failureOf(result: CallerCaseResult, context: ReportContext): CallerCaseFailure {
  const last = result.attempts.at(-1);
  const violation = last?.violation;
  return {
    case: result.case.id,
    section: result.case.section,
    level: result.case.level,
    statement: result.case.statement,
    assessments: result.case.assessments,
    outcome: result.outcome,
    flaky: result.flaky,
    seed: result.seed,
    requirements: result.case.requirements.map((id) => {
      const entry = context.requirement(id);
      return entry === undefined ? { id } : { id, level: entry.level, summary: entry.summary };
    }),
    attempts: result.attempts.map((attempt) => ({
      attempt: attempt.attempt,
      seed: attempt.seed,
      outcome: attempt.outcome,
      durationMs: Math.round(attempt.durationMs),
      ...(attempt.reason === undefined ? {} : { reason: attempt.reason }),
    })),
    ...(violation === undefined
      ? {}
      : {
          violation: {
            requirement: violation.requirement,
            expected: violation.expected,
            received: violation.received,
          },
        }),
    ...(result.reason === undefined ? {} : { reason: result.reason }),
    transcript: attemptTranscripts(result),
  };
}

/** Absent when the run judged no caller. */
export function callerStatementOf(result: RunResult, context: ReportContext): CallerStatement | undefined {
  if (result.caller === undefined) return undefined;
  const cases = result.callerCases ?? [];
  const count = (outcome: string): number => cases.filter((entry) => entry.outcome === outcome).length;
  return {
    kind: result.caller.kind,
    name: result.caller.name,
    label: ASSESSMENT_LABEL,
    assessments: result.assessments ?? [],
    totals: {
      cases: cases.length,
      passed: count('passed'),
      failed: count('failed'),
      cantTell: count('cantTell'),
      inapplicable: count('inapplicable'),
      flaky: cases.filter((entry) => entry.flaky).length,
    },
    failures: cases
      .filter((entry) => entry.outcome === 'failed' || entry.outcome === 'cantTell')
      .map((entry) => failureOf(entry, context)),
  };
}

/** "MUST 14/14, SHOULD 1/1": passed of decided, per level that has any. */
function countsText(assessment: AssessmentVerdict): string {
  const parts: string[] = [];
  for (const level of ['MUST', 'SHOULD', 'MAY'] as const) {
    const counts = assessment.counts[level];
    const decided = counts.passed + counts.failed;
    const undecided = counts.cantTell;
    if (decided + undecided + counts.inapplicable === 0) continue;
    parts.push(
      `${level} ${String(counts.passed)}/${String(decided)}${undecided > 0 ? `, ${String(undecided)} undecided` : ''}${counts.inapplicable > 0 ? `, ${String(counts.inapplicable)} inapplicable` : ''}`,
    );
  }
  return parts.length === 0 ? 'no case ran' : parts.join('; ');
}

const VERDICT_WORDS: Readonly<Record<AssessmentVerdict['verdict'], string>> = {
  passed: 'PASSED',
  failed: 'FAILED',
  incomplete: 'INCOMPLETE',
  'not-assessed': 'NOT ASSESSED',
  'not-run': 'NOT RUN',
};

/** The markdown section of conformance.md. */
export function callerStatementLines(statement: CallerStatement): string[] {
  const lines = [
    '',
    `## Caller under test (${inline(statement.label)})`,
    '',
    `${inline(statement.name)} (${code(statement.kind)}), judged as the caller against the suite's fake target: ${String(statement.totals.cases)} caller cases, ${String(statement.totals.passed)} passed, ${String(statement.totals.failed)} failed, ${String(statement.totals.cantTell)} undecided (${String(statement.totals.flaky)} flaky), ${String(statement.totals.inapplicable)} inapplicable. The assessments below are this suite's, not conformance profiles of the specification.`,
    '',
  ];
  for (const assessment of statement.assessments) {
    const reason = assessment.reason === undefined ? '' : ` (${inline(assessment.reason)})`;
    lines.push(
      `- **${inline(assessment.title)}** (${code(assessment.assessment)}, ${inline(statement.label)}): **${VERDICT_WORDS[assessment.verdict]}**${reason} — ${countsText(assessment)}.`,
    );
    for (const id of assessment.undecidedRequirements ?? [])
      lines.push(`  - ${code(id)}: no case of this run decided it`);
  }
  lines.push('', '### Caller cases that did not pass', '');
  if (statement.failures.length === 0) lines.push('None.');
  for (const failure of statement.failures) {
    const heading = failure.flaky ? 'FLAKY' : failure.outcome === 'failed' ? 'FAILED' : 'UNDECIDED';
    lines.push(
      `#### ${code(failure.case)}: ${heading} [${failure.level}]`,
      '',
      inline(failure.statement),
      '',
      `- Spec: #${failure.section}`,
      `- Assessments: ${failure.assessments.map(code).join(', ')}`,
      `- Seed: ${String(failure.seed)} (case)`,
      '- Requirements:',
      ...failure.requirements.map((requirement) => `  - ${inline(requirementLine(requirement))}`),
      '- Attempts:',
      ...failure.attempts.map(
        (attempt) =>
          `  - ${String(attempt.attempt)} (seed ${String(attempt.seed)}): ${attempt.outcome} in ${String(attempt.durationMs)} ms${attempt.reason === undefined ? '' : `: ${inline(attempt.reason)}`}`,
      ),
    );
    lines.push(...verdictLines(failure), '', 'Transcript:', '', codeBlock(failure.transcript, 'text'), '');
  }
  return lines;
}

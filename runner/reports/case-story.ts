/**
 * The facts every format tells about one case, phrased once: which requirements it checks (with
 * the registry's level and summary), why it did not pass (violated requirement, expected,
 * received) and its transcripts. JUnit, Allure, EARL, conformance.md and the transcript files
 * all read from here, so a failure reads the same wherever it is opened.
 */
import type { CallerCaseResult } from '../../suites/caller/framework/run-caller-case.ts';
import type { Level } from '../../suites/framework/outcome.ts';
import type { AttemptReport, CaseResult, Finding } from '../../suites/framework/run-case.ts';
import { ASSESSMENT_LABEL } from '../../suites/registry/assessments.ts';
import type { ReportContext } from './report-context.ts';
import { specAnchorUrl } from './spec-links.ts';

/**
 * A gateway case's result or a caller case's (docs/caller.md): every format tells both the same
 * way, a caller case naming its assessments where a gateway case names its profiles.
 */
export type ReportedCase = CaseResult | CallerCaseResult;

export function isCallerCase(result: ReportedCase): result is CallerCaseResult {
  return 'assessments' in result.case;
}

/** What the case counts toward: its profiles, or its assessments said to be no spec profile. */
export function countsToward(result: ReportedCase): string {
  return isCallerCase(result)
    ? `assessments (${ASSESSMENT_LABEL}): ${result.case.assessments.join(', ')}`
    : `profiles: ${result.case.profiles.join(', ')}`;
}

export interface CitedRequirement {
  readonly id: string;
  /** Undefined only for an ID the registry does not hold (the suites test prevents that). */
  readonly level?: Level;
  readonly summary?: string;
}

/** Failed and undecided cases: what a conformance statement must explain. */
export function didNotPass(result: ReportedCase): boolean {
  return result.outcome === 'failed' || result.outcome === 'cantTell';
}

/** The label a reader sees: flaky cases are cantTell, but "flaky" says more. */
export function outcomeLabel(result: ReportedCase): string {
  return result.flaky ? 'flaky' : result.outcome;
}

export function citedRequirements(result: ReportedCase, context: ReportContext): CitedRequirement[] {
  return result.case.requirements.map((id) => {
    const entry = context.requirement(id);
    return entry === undefined ? { id } : { id, level: entry.level, summary: entry.summary };
  });
}

export function requirementLine(requirement: CitedRequirement): string {
  if (requirement.summary === undefined) return `${requirement.id} (not in the requirement registry)`;
  return `${requirement.id} [${requirement.level ?? '?'}]: ${requirement.summary}`;
}

export function lastAttempt(result: Pick<CaseResult, 'attempts'>): AttemptReport | undefined {
  return result.attempts.at(-1);
}

/** Every warning the case's attempts raised (SHOULD-level findings that do not fail it). */
export function caseWarnings(result: ReportedCase): Finding[] {
  return result.attempts.flatMap((attempt) => attempt.warnings);
}

/** Where the case's transcript file goes; case IDs are kebab-case and dots, but they are data. */
export function transcriptPath(caseId: string): string {
  return `transcripts/${caseId.replace(/[^A-Za-z0-9._-]/g, '_')}.txt`;
}

/** Why the case did not pass, as lines: violated requirement with expected and received, or the reason. */
export function failureDetails(result: Pick<CaseResult, 'attempts' | 'flaky' | 'reason'>): string[] {
  const violation = lastAttempt(result)?.violation;
  const lines: string[] = [];
  if (result.flaky) lines.push(`flaky: ${result.reason ?? 'failed, then passed when re-run alone'}`);
  if (violation !== undefined) {
    lines.push(
      `violated: ${violation.requirement}`,
      'expected:',
      violation.expected,
      'received:',
      violation.received,
    );
  } else if (result.reason !== undefined && !result.flaky) {
    lines.push(`reason: ${result.reason}`);
  }
  return lines;
}

/** The case in a few lines: ID, outcome, level, seed, requirements, statement, spec anchor. */
export function caseHeader(result: ReportedCase, context: ReportContext): string[] {
  const lines = [
    `${result.case.id}: ${outcomeLabel(result)} [${result.case.level}] (case seed ${String(result.seed)})`,
    ...citedRequirements(result, context).map((requirement) => `requirement ${requirementLine(requirement)}`),
    `statement: ${result.case.statement}`,
    `spec: ${specAnchorUrl(result.case.section)}`,
    countsToward(result),
  ];
  if (result.case.interpretations !== undefined && result.case.interpretations.length > 0) {
    lines.push(`interpretations: ${result.case.interpretations.join(', ')} (docs/interpretations.md)`);
  }
  return lines;
}

/**
 * Why an inapplicable or untested case did not run to a verdict. The runner gives every such
 * result a reason; without one the outcome word stands alone, since "not run" would be false
 * for a caller case that ran and found itself inapplicable, and an empty reason reads as lost.
 */
export function skipMessage(result: Pick<CaseResult, 'outcome' | 'reason'>): string {
  return result.reason === undefined ? result.outcome : `${result.outcome}: ${result.reason}`;
}

/** Each attempt's transcript under a heading; a flaky case shows the failing run and the passing one. */
export function attemptTranscripts(result: Pick<CaseResult, 'attempts'>): string {
  const total = result.attempts.length;
  return result.attempts
    .map((attempt, index) => {
      const heading = `--- attempt ${String(index + 1)} of ${String(total)}: ${attempt.outcome} in ${attempt.durationMs.toFixed(0)} ms, ${String(attempt.checks)} check(s) held${attempt.reason === undefined ? '' : ` (${attempt.reason})`}`;
      return `${heading}\n${attempt.transcriptText}`;
    })
    .join('\n\n');
}

/**
 * What every report says about a run and its profiles, phrased once so conformance.md,
 * conformance.json, junit.xml, Allure and the interop matrix cannot disagree: the verdict words,
 * PARTIAL for a run that selected fewer cases than the suites hold (never a plain PASSED), the
 * selection, the fixtures mode and what it implies, and per claimed profile its outcome counts
 * and the cases that did not pass, each with a one-line reason.
 */
import type { FixtureProvisioning } from '../../harness/sut/sut-config.ts';
import { LEVELS, type Level, type Outcome } from '../../suites/framework/outcome.ts';
import type { CaseResult } from '../../suites/framework/run-case.ts';
import type { OutcomeCounts, ProfileVerdict, ProfileVerdictName } from '../profile-verdicts.ts';
import type { RunResult } from '../run-result.ts';
import { isCallerCase, lastAttempt, type ReportedCase } from './case-story.ts';

export const VERDICT_WORDS: Readonly<Record<ProfileVerdictName, string>> = {
  passed: 'PASS',
  failed: 'FAIL',
  incomplete: 'INCOMPLETE',
  'not-assessed': 'NOT ASSESSED',
  'not-claimed': 'not claimed',
};

/** A profile's verdict in words; a pass of a partial run is only a PARTIAL PASS. */
export function profileVerdictWord(verdict: ProfileVerdictName, partial: boolean): string {
  return verdict === 'passed' && partial ? `PARTIAL ${VERDICT_WORDS.passed}` : VERDICT_WORDS[verdict];
}

export type RunSelection = RunResult['selection'];

/** What RunResult and conformance.json both carry about the run's scope and outcome. */
export type RunScope = Pick<RunResult, 'passed' | 'partial' | 'selection'>;

/** The run's verdict: 'partial' is a run that passed only the cases it selected. */
export type RunVerdict = 'passed' | 'partial' | 'failed';

export function runVerdict(run: RunScope): RunVerdict {
  if (!run.passed) return 'failed';
  return run.partial ? 'partial' : 'passed';
}

/** PASSED, PARTIAL, FAILED (PARTIAL) or FAILED. */
export function runVerdictWord(run: RunScope): string {
  if (run.passed) return run.partial ? 'PARTIAL' : 'PASSED';
  return run.partial ? 'FAILED (PARTIAL)' : 'FAILED';
}

/** "all 180 cases", or "5 of 180 cases (--grep gateway-info, --profile core-directory)". */
export function selectionText(run: RunScope): string {
  const { selection } = run;
  if (!run.partial) return `all ${String(selection.totalCases)} cases`;
  const filters = [
    ...selection.grep.map((pattern) => `--grep ${pattern}`),
    ...selection.profiles.map((profile) => `--profile ${profile}`),
  ];
  const scope = `${String(selection.selectedCases)} of ${String(selection.totalCases)} cases`;
  return filters.length === 0 ? scope : `${scope} (${filters.join(', ')})`;
}

/** What each fixtures mode (docs/sut.md) lets the suite know, and so what it can decide. */
export const FIXTURE_MODES: Readonly<Record<FixtureProvisioning, string>> = {
  'world-file':
    'the harness wrote the fixture world and the gateway loaded it at start: the suite knows every endpoint, manifest and grant it expects',
  'admin-iq':
    'the run registered and activated the fixture world through the Administrative Provisioning IQs as adminJid before the cases, and removed it after them; the cases judge against what was actually provisioned, and what the protocol cannot express is the operator checklist: a case that needs an unconfirmed item cannot tell (cantTell)',
  manual:
    'the operator set up the fixture world, so the suite does not know its endpoints, manifests or grants: the cases that need it cannot tell (cantTell) and leave their claimed profiles INCOMPLETE',
};

/** A claimed profile's cases by outcome, over every level. */
export function outcomeTotals(counts: Readonly<Record<Level, OutcomeCounts>>): OutcomeCounts {
  const sum = (outcome: Outcome): number =>
    LEVELS.reduce((total, level) => total + counts[level][outcome], 0);
  return {
    passed: sum('passed'),
    failed: sum('failed'),
    cantTell: sum('cantTell'),
    inapplicable: sum('inapplicable'),
    untested: sum('untested'),
  };
}

/** "passed 1, failed 1, cantTell 1, inapplicable 0" (untested never applies to a claimed profile). */
export function outcomeCountsText(counts: OutcomeCounts): string {
  return `passed ${String(counts.passed)}, failed ${String(counts.failed)}, cantTell ${String(counts.cantTell)}, inapplicable ${String(counts.inapplicable)}`;
}

/** A case of a claimed profile that did not pass, or that counts against it although it passed. */
export interface CaseNote {
  readonly case: string;
  readonly level: Level;
  readonly outcome: Outcome;
  readonly flaky: boolean;
  /** Listed in the baseline, with its reason: it does not count against the profile. */
  readonly baseline?: string;
  /** Why, in one line. */
  readonly reason: string;
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? '';
}

/** Why the case did not pass, in one line: the violation, else the case's reason. */
export function caseReason(result: CaseResult): string {
  const violation = lastAttempt(result)?.violation;
  if (result.flaky || violation === undefined) return firstLine(result.reason ?? result.outcome);
  return firstLine(violation.message);
}

const OUTCOME_ORDER: Readonly<Record<Outcome, number>> = {
  failed: 0,
  passed: 1,
  cantTell: 2,
  inapplicable: 3,
  untested: 4,
};

/**
 * The profile's cases that did not pass (failed, cantTell, inapplicable) and the passed ones its
 * verdict counts as failures (a warning under --strict): failures first, MUST before SHOULD.
 */
export function caseNotes(run: RunResult, verdict: ProfileVerdict): CaseNote[] {
  const failing = new Set(verdict.failingCases);
  return run.cases
    .filter(
      (result) =>
        result.case.profiles.includes(verdict.profile) &&
        (['failed', 'cantTell', 'inapplicable'].includes(result.outcome) || failing.has(result.case.id)),
    )
    .toSorted(
      (a, b) =>
        OUTCOME_ORDER[a.outcome] - OUTCOME_ORDER[b.outcome] ||
        LEVELS.indexOf(a.case.level) - LEVELS.indexOf(b.case.level),
    )
    .map((result) => {
      const baseline = excusedBy(run, result);
      const warning = result.attempts.flatMap((attempt) => attempt.warnings)[0];
      const reason =
        result.outcome === 'passed' && warning !== undefined
          ? `passed with a warning, which --strict counts: ${warning.requirement}: ${firstLine(warning.message)}`
          : caseReason(result);
      return {
        case: result.case.id,
        level: result.case.level,
        outcome: result.outcome,
        flaky: result.flaky,
        ...(baseline === undefined ? {} : { baseline }),
        reason,
      };
    });
}

/** How a format writes case IDs and prose (Markdown escapes both its own way). */
export interface TextFormat {
  readonly id: (id: string) => string;
  readonly text: (text: string) => string;
}

const PLAIN: TextFormat = { id: (id) => id, text: (text) => text };

/** The note as one line: "ID [MUST] failed: reason", with the baseline reason when it excuses it. */
export function caseNoteText(note: CaseNote, format: TextFormat = PLAIN): string {
  // A flaky case is cantTell; its reason starts with "flaky:".
  const baseline = note.baseline === undefined ? '' : ` (baselined: ${format.text(note.baseline)})`;
  return `${format.id(note.case)} [${note.level}] ${note.outcome}${baseline}: ${format.text(note.reason)}`;
}

/** The baseline reason when the case is listed there and did not pass (an expected failure). */
export function excusedBy(run: RunResult, result: ReportedCase): string | undefined {
  // The baseline lists gateway cases only: a caller case is never excused.
  if (isCallerCase(result)) return undefined;
  if (result.outcome !== 'failed' && result.outcome !== 'cantTell') return undefined;
  return Object.hasOwn(run.baseline, result.case.id) ? run.baseline[result.case.id] : undefined;
}

/** The message for a baseline entry whose case passes now. */
export function staleBaselineMessage(run: RunResult, caseId: string): string {
  const reason = run.baseline[caseId];
  return `stale baseline entry: ${caseId} passes now; remove it from the baseline${reason === undefined ? '' : ` (listed because: ${reason})`}`;
}

/**
 * How a claimed profile's verdict weighs on the run, for formats with only pass / fail / error /
 * skip: a NOT ASSESSED profile whose MUST cases the selection left out does not fail a partial
 * run (it is skipped); one that was selected but could not run does (undecided).
 */
function profileState(
  verdict: ProfileVerdictName,
  counts: Readonly<Record<Level, OutcomeCounts>>,
  partial: boolean,
): ProfileState {
  switch (verdict) {
    case 'passed':
      return 'passed';
    case 'failed':
      return 'failed';
    case 'incomplete':
      return 'undecided';
    case 'not-assessed':
      return partial && Object.values(counts.MUST).every((count) => count === 0) ? 'skipped' : 'undecided';
    case 'not-claimed':
      return 'skipped';
  }
}

export type ProfileState = 'passed' | 'failed' | 'undecided' | 'skipped';

/** What a summary needs of a claimed profile's statement. */
export interface ProfileFacts {
  readonly title: string;
  readonly verdict: ProfileVerdictName;
  readonly reason?: string;
  readonly counts: Readonly<Record<Level, OutcomeCounts>>;
  readonly notPassed: readonly CaseNote[];
}

export interface ProfileSummary {
  /** PASS, PARTIAL PASS, FAIL, INCOMPLETE, NOT ASSESSED. */
  readonly word: string;
  /** The word with the main reason: "INCOMPLETE: 1 case(s) could not be decided (…)". */
  readonly message: string;
  readonly state: ProfileState;
  /** The selection of a partial run, the outcome counts, a line per case that did not pass. */
  readonly details: readonly string[];
}

/** A claimed profile as JUnit, Allure and the matrix show it. */
export function profileSummary(profile: ProfileFacts, run: RunScope): ProfileSummary {
  const word = profileVerdictWord(profile.verdict, run.partial);
  return {
    word,
    message: profile.reason === undefined ? word : `${word}: ${profile.reason}`,
    state: profileState(profile.verdict, profile.counts, run.partial),
    details: [
      ...(run.partial ? [`PARTIAL run: ${selectionText(run)}`] : []),
      outcomeCountsText(outcomeTotals(profile.counts)),
      ...profile.notPassed.map((note) => caseNoteText(note)),
    ],
  };
}

/**
 * What a person watching the run sees: one line per section as it completes (a mark per case),
 * every failure in full right after its section (requirement, expected, received, transcript),
 * and at the end a table per profile with MUST and SHOULD counts and the verdict.
 */
import type { CaseResult } from '../suites/framework/run-case.ts';
import { mustFirst, type Outcome } from '../suites/framework/outcome.ts';
import { unconfirmedItemOf } from '../suites/fixtures/reference-world.ts';
import { citedRequirementLines } from '../suites/registry/cited-requirements.ts';
import { textTable } from '../suites/framework/text-table.ts';
import type { RunProgress } from './run-conformance.ts';
import type { RunResult } from './run-result.ts';
import type { ProfileVerdict } from './profile-verdicts.ts';
import { paceLine } from './request-pacing.ts';
import { assessmentsNotPassedText, assessmentSummaryLines } from './assessment-summary.ts';
import type { ConformanceCase } from '../suites/framework/case.ts';

/** What describeFailure reads of a result: a gateway case's or a caller case's. */
export type DescribedResult = Pick<CaseResult, 'outcome' | 'seed' | 'flaky' | 'reason' | 'attempts'> & {
  readonly case: Pick<
    ConformanceCase,
    'id' | 'level' | 'requirements' | 'statement' | 'section' | 'interpretations'
  >;
};

const MARKS: Readonly<Record<Outcome, string>> = {
  passed: '.',
  failed: 'F',
  cantTell: '?',
  inapplicable: '-',
  untested: ' ',
};

function indent(text: string, prefix = '      '): string {
  return text
    .split('\n')
    .map((line) => (line === '' ? line : prefix + line))
    .join('\n');
}

/** Stanzas longer than this are cut in the terminal (the reports keep them whole). */
const SHOWN_STANZA_CHARS = 1_200;

/**
 * `received` cut to a window around its first difference from `expected` (or its start when
 * `expected` is prose), so the part that decided the verdict is on screen.
 */
export function cutAroundDifference(expected: string, received: string, limit = SHOWN_STANZA_CHARS): string {
  if (received.length <= limit) return received;
  let first = 0;
  if (expected.startsWith('<')) {
    while (first < expected.length && expected[first] === received[first]) first += 1;
  }
  const start = Math.max(0, Math.min(first - Math.floor(limit / 3), received.length - limit));
  const end = start + limit;
  const before = start > 0 ? `[… ${String(start)} characters …]` : '';
  const after = end < received.length ? `[… ${String(received.length - end)} characters …]` : '';
  return `${before}${received.slice(start, end)}${after}`;
}

/** The full story of one case that did not pass, as printed and as attached to reports. */
export function describeFailure(result: DescribedResult, cut = false): string {
  const last = result.attempts.at(-1);
  const lines = [
    `  ${result.flaky ? 'FLAKY' : result.outcome.toUpperCase()} ${result.case.id} [${result.case.level}] (seed ${String(result.seed)})`,
    `    requirement: ${result.case.requirements.join(', ')} — ${result.case.statement}`,
    `    spec: #${result.case.section}`,
    // Each cited requirement's summary and spec sentence, so the failure reads beside the spec.
    ...citedRequirementLines(result.case.requirements).map((line) => `      ${line}`),
  ];
  if (result.case.interpretations !== undefined && result.case.interpretations.length > 0) {
    lines.push(`    interpretations: ${result.case.interpretations.join(', ')} (docs/interpretations.md)`);
  }
  if (last?.violation !== undefined) {
    lines.push(
      `    violated: ${last.violation.requirement}`,
      `    expected:`,
      indent(last.violation.expected),
      `    received:`,
      indent(
        cut ? cutAroundDifference(last.violation.expected, last.violation.received) : last.violation.received,
      ),
    );
  } else if (result.reason !== undefined) {
    lines.push(`    reason: ${result.reason}`);
  }
  if (last !== undefined) lines.push('    transcript:', indent(last.transcriptText));
  return lines.join('\n');
}

/** Progress that prints nothing (the repetitions of --repeat print one line each instead). */
export const silentProgress: RunProgress = {
  gatewayExited: () => undefined,
  preflight: () => undefined,
  sectionStarted: () => undefined,
  caseFinished: () => undefined,
  sectionFinished: () => undefined,
  schemaFailures: () => undefined,
};

/** "12/14 passed, 1 failed, 1 undecided": the outcomes a section had, the zero counts left out. */
function sectionTally(results: readonly CaseResult[]): string {
  const count = (outcome: Outcome): number => results.filter((result) => result.outcome === outcome).length;
  const parts = [`${String(count('passed'))}/${String(results.length)} passed`];
  if (count('failed') > 0) parts.push(`${String(count('failed'))} failed`);
  if (count('cantTell') > 0) parts.push(`${String(count('cantTell'))} undecided`);
  if (count('inapplicable') > 0) parts.push(`${String(count('inapplicable'))} inapplicable`);
  if (count('untested') > 0) parts.push(`${String(count('untested'))} not claimed`);
  return parts.join(', ');
}

/**
 * Whether a case is described under its section: every failure, and an undecided case unless a
 * line already says why (a preflight blocker, a stop, an awaited checklist item); with --verbose
 * every case that did not pass.
 */
function shownAfterSection(result: CaseResult, verbose: boolean): boolean {
  const shown =
    result.outcome === 'failed' ||
    (result.outcome === 'cantTell' &&
      !isBlocked(result) &&
      !isNotRun(result) &&
      checklistItemAwaited(result) === undefined);
  return shown || (verbose && result.outcome !== 'passed');
}

export function terminalProgress(write: (text: string) => void, verbose = false): RunProgress {
  return {
    gatewayExited(message) {
      write(`\nSTOPPED: ${message}\nthe remaining cases are not run (cantTell)\n`);
    },
    preflight(findings) {
      for (const finding of findings) {
        write(`preflight: ${finding.kind === 'missing' ? 'FAIL' : 'CANNOT TEST'}: ${finding.message}\n`);
      }
      if (findings.length > 0) write('\n');
    },
    sectionStarted(section) {
      write(`#${section.padEnd(28)} `);
    },
    caseFinished(result) {
      write(result.flaky ? 'f' : MARKS[result.outcome]);
    },
    sectionFinished(_, results) {
      write(`  ${sectionTally(results)}\n`);
      for (const line of awaitingChecklistLines(results)) write(`${line}\n`);
      for (const result of mustFirst(results)) {
        if (shownAfterSection(result, verbose)) write(`${describeFailure(result, !verbose)}\n`);
      }
    },
    schemaFailures(results) {
      write(
        `\nschema checks of the whole run: ${String(results.length)} case(s) received invalid elements\n`,
      );
      for (const result of mustFirst(results)) write(`${describeFailure(result, !verbose)}\n`);
    },
    resourceConstraints(results) {
      const reason = results[0]?.reason ?? '';
      write(
        `\nresource-constraint: ${String(results.length)} failed case(s) met the gateway's rate limit and are undecided, not failed: ` +
          `${results.map((result) => result.case.id).join(', ')}\n  ${reason}\n`,
      );
    },
    interrupted(reason) {
      write(`\nINTERRUPTED: ${reason}; the remaining cases are not run, the report is written\n`);
    },
  };
}

/** Not run (the gateway exited, the run was interrupted): said once for all of them. */
function isNotRun(result: CaseResult): boolean {
  return result.reason?.startsWith('not run: ') === true;
}

/**
 * The operator checklist item an undecided case waits for (admin-iq, suites/fixtures/reference-world.ts
 * requireConfirmed): the checklist was printed once at the start; the case adds only its ID.
 */
function checklistItemAwaited(result: CaseResult): string | undefined {
  return result.outcome === 'cantTell' ? unconfirmedItemOf(result.reason) : undefined;
}

/** One line per unconfirmed checklist item, naming the section's cases that wait for it. */
function awaitingChecklistLines(results: readonly CaseResult[]): string[] {
  const byItem = new Map<string, string[]>();
  for (const result of results) {
    const item = checklistItemAwaited(result);
    if (item !== undefined) byItem.set(item, [...(byItem.get(item) ?? []), result.case.id]);
  }
  return [...byItem].map(
    ([item, ids]) =>
      `  undecided until operator checklist item ${item} is confirmed (the checklist above; "fixturesConfirmed"): ${ids.join(', ')}`,
  );
}

/** Blocked by a preflight finding: the finding was printed once; the case adds nothing. */
function isBlocked(result: CaseResult): boolean {
  return result.reason?.startsWith('blocked by the preflight') === true;
}

function countsCell(verdict: ProfileVerdict, level: 'MUST' | 'SHOULD'): string {
  if (!verdict.claimed) return '-';
  const counts = verdict.counts[level];
  const decided = counts.passed + counts.failed;
  const cell = decided === 0 ? '-' : `${String(counts.passed)}/${String(decided)}`;
  return counts.cantTell > 0 ? `${cell} ?${String(counts.cantTell)}` : cell;
}

function inapplicableCell(verdict: ProfileVerdict): string {
  if (!verdict.claimed) return '-';
  return String(
    verdict.counts.MUST.inapplicable + verdict.counts.SHOULD.inapplicable + verdict.counts.MAY.inapplicable,
  );
}

const VERDICT_WORDS: Readonly<Record<ProfileVerdict['verdict'], string>> = {
  passed: 'PASS',
  failed: 'FAIL',
  incomplete: 'INCOMPLETE',
  'not-assessed': 'NOT ASSESSED',
  'not-claimed': '-',
};

function verdictCell(verdict: ProfileVerdict, partial: boolean): string {
  const word = VERDICT_WORDS[verdict.verdict];
  if (verdict.verdict === 'passed') {
    const baselined = verdict.expectedFailures > 0 ? ` (${String(verdict.expectedFailures)} baselined)` : '';
    return `${partial ? 'PARTIAL ' : ''}${word}${baselined}`;
  }
  return word;
}

/** A SUT file with a caller and no gateway: no profile was under test (docs/caller.md). */
function callerOnly(run: RunResult): boolean {
  return run.caller !== undefined && run.subject.gatewayJid === '';
}

/**
 * The closing summary: one row per profile (for a caller-only run, one line saying no gateway
 * was under test instead), the assessments, the reasons, then the run's verdict.
 */
export function summaryTable(run: RunResult): string {
  if (callerOnly(run)) return callerOnlySummary(run);
  const rows = [
    ['profile', 'claimed', 'MUST', 'SHOULD', 'n/a', 'warnings', 'verdict'],
    ...run.profiles.map((verdict) => [
      verdict.title,
      verdict.claimed ? 'yes' : 'no',
      countsCell(verdict, 'MUST'),
      countsCell(verdict, 'SHOULD'),
      inapplicableCell(verdict),
      verdict.claimed ? String(verdict.warnings) : '-',
      verdictCell(verdict, run.partial),
    ]),
  ];
  const lines = ['', textTable(rows, '').join('\n'), ...assessmentSummaryLines(run.assessments), ''];
  lines.push(
    'MUST/SHOULD: passed/decided, ?N: undecided; n/a: inapplicable (optional features not advertised)',
  );
  for (const verdict of run.profiles) {
    // A partial run's unreached profiles are expected, not news.
    const unreached = run.partial && verdict.verdict === 'not-assessed';
    if (verdict.claimed && verdict.reason !== undefined && !unreached) {
      lines.push(`${verdict.title} ${VERDICT_WORDS[verdict.verdict]}: ${verdict.reason}`);
    }
  }
  const gaps = run.profiles.filter((verdict) => verdict.claimed && (verdict.knownGaps?.length ?? 0) > 0);
  if (gaps.length > 0) {
    // Said plainly beside any PASS: these requirements no case of the profile decides yet.
    lines.push(
      `not yet decided by any case of the profile (suite gaps, suites/registry/profile-gaps.json): ${gaps
        .map((verdict) => `${verdict.title} ${String(verdict.knownGaps?.length ?? 0)}`)
        .join(', ')}`,
    );
  }
  return `${[...lines, ...closingLines(run)].join('\n')}\n`;
}

/** A caller-only run's summary: what it assessed, and no table of profiles nobody claimed. */
function callerOnlySummary(run: RunResult): string {
  const lines = [
    '',
    'no gateway under test: the SUT file declares only a caller, so no spec profile was assessed',
    ...assessmentSummaryLines(run.assessments),
    '',
    'MUST/SHOULD: passed/decided, ?N: undecided',
    ...closingLines(run),
  ];
  return `${lines.join('\n')}\n`;
}

/** Case count, timing and seed, baseline and pacing notes, then the run's verdict. */
function closingLines(run: RunResult): string[] {
  const flaky = [...run.cases, ...(run.callerCases ?? [])].filter((result) => result.flaky).length;
  const lines: string[] = [];
  lines.push(
    '',
    `${String(run.cases.length + (run.callerCases?.length ?? 0))} cases in ${(run.durationMs / 1000).toFixed(1)} s (setup ${(run.setupMs / 1000).toFixed(1)} s), seed ${String(run.seed)}${run.strict ? ', strict' : ''}${flaky > 0 ? `, ${String(flaky)} flaky` : ''}`,
  );
  if (run.staleBaseline.length > 0) {
    lines.push(`stale baseline: these cases pass now, remove them: ${run.staleBaseline.join(', ')}`);
  }
  if (run.unknownBaseline.length > 0) {
    lines.push(`baseline names unknown cases: ${run.unknownBaseline.join(', ')}`);
  }
  if (run.pace !== undefined) lines.push(paceLine(run.pace));
  if (run.abortedBy !== undefined) lines.push(`the run stopped: ${run.abortedBy.split('\n')[0] ?? ''}`);
  if (run.interrupted !== undefined) lines.push(`the run was ${run.interrupted}`);
  lines.push(`${run.subject.name}: ${runVerdictLine(run)}`);
  return lines;
}

/**
 * The claimed profiles that keep the run from passing, in the profile table's words: "FAIL: Core
 * Directory; INCOMPLETE: Task Execution". A partial run's profiles the selection never reached are
 * left out (they are NOT ASSESSED by design); a run that fails on its baseline alone says so.
 */
function notPassedText(run: RunResult): string {
  const unreached = (verdict: ProfileVerdict): boolean =>
    run.partial &&
    verdict.verdict === 'not-assessed' &&
    Object.values(verdict.counts.MUST).every((count) => count === 0);
  const groups: string[] = (['failed', 'incomplete', 'not-assessed'] as const).flatMap((name) => {
    const titles = run.profiles
      .filter((verdict) => verdict.claimed && verdict.verdict === name && !unreached(verdict))
      .map((verdict) => verdict.title);
    return titles.length === 0 ? [] : [`${VERDICT_WORDS[name]}: ${titles.join(', ')}`];
  });
  groups.push(...assessmentsNotPassedText(run.assessments));
  if (groups.length > 0) return groups.join('; ');
  return run.staleBaseline.length > 0 || run.unknownBaseline.length > 0
    ? 'FAIL: the baseline is not current'
    : 'FAIL';
}

/** Upper case outside parentheses: "STOPPED AT THE 15 MIN TIME LIMIT (in case list-agents.x)". */
function shout(text: string): string {
  return text.replace(/([^()]+)|(\([^()]*\))/g, (_, plain: string | undefined, quoted: string | undefined) =>
    plain === undefined ? (quoted ?? '') : plain.toUpperCase(),
  );
}

/**
 * The run's verdict in words, those of the profile table (INCOMPLETE is not FAIL); a partial run
 * never says plainly PASS.
 */
export function runVerdictLine(run: RunResult): string {
  if (run.interrupted !== undefined) return `${shout(run.interrupted)}: not a conformance verdict`;
  if (run.abortedBy !== undefined) return 'COULD NOT FINISH (the gateway exited)';
  if (run.partial) {
    const scope = `${String(run.selection.selectedCases)} of ${String(run.selection.totalCases)} cases selected`;
    return run.passed
      ? `PARTIAL: ${scope}; every ${run.subject.profiles.length === 0 && run.assessments !== undefined ? 'assessment' : 'claimed profile'} they reach passed them (not a conformance verdict)`
      : `${notPassedText(run)} (PARTIAL: ${scope})`;
  }
  const judged = run.assessments?.some((verdict) => verdict.verdict !== 'not-run') === true;
  const passedText = judged
    ? run.subject.profiles.length === 0
      ? 'PASS: every assessment run (not a spec profile)'
      : 'PASS: every claimed profile and every assessment run'
    : 'PASS: every claimed profile';
  return run.passed ? passedText : notPassedText(run);
}

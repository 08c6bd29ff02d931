/**
 * The assessments in the closing summary (docs/caller.md): their table beside the profiles',
 * each labelled as not a spec profile, and their part of the run's verdict line.
 */
import { textTable } from '../suites/framework/text-table.ts';
import type { AssessmentVerdict } from './assessment-verdicts.ts';

export const ASSESSMENT_VERDICT_WORDS: Readonly<Record<AssessmentVerdict['verdict'], string>> = {
  passed: 'PASS',
  failed: 'FAIL',
  incomplete: 'INCOMPLETE',
  'not-assessed': 'NOT ASSESSED',
  'not-run': '-',
};

function countsCell(verdict: AssessmentVerdict, level: 'MUST' | 'SHOULD'): string {
  const counts = verdict.counts[level];
  const decided = counts.passed + counts.failed;
  const cell = decided === 0 ? '-' : `${String(counts.passed)}/${String(decided)}`;
  return counts.cantTell > 0 ? `${cell} ?${String(counts.cantTell)}` : cell;
}

/** The assessment table and its reasons (nothing when the run judged no caller). */
export function assessmentSummaryLines(assessments: readonly AssessmentVerdict[] | undefined): string[] {
  if (assessments === undefined || assessments.every((verdict) => verdict.verdict === 'not-run')) return [];
  const rows = [
    ['assessment (not a spec profile)', 'MUST', 'SHOULD', 'verdict'],
    ...assessments.map((verdict) => [
      verdict.title,
      verdict.verdict === 'not-run' ? '-' : countsCell(verdict, 'MUST'),
      verdict.verdict === 'not-run' ? '-' : countsCell(verdict, 'SHOULD'),
      ASSESSMENT_VERDICT_WORDS[verdict.verdict],
    ]),
  ];
  const lines = ['', ...textTable(rows, '')];
  for (const verdict of assessments) {
    if (verdict.verdict !== 'not-run' && verdict.reason !== undefined) {
      lines.push(`${verdict.title} ${ASSESSMENT_VERDICT_WORDS[verdict.verdict]}: ${verdict.reason}`);
    }
  }
  return lines;
}

/** The assessments that keep the run from passing, in the table's words ("FAIL: Caller side"). */
export function assessmentsNotPassedText(assessments: readonly AssessmentVerdict[] | undefined): string[] {
  return (['failed', 'incomplete', 'not-assessed'] as const).flatMap((name) => {
    const titles = (assessments ?? [])
      .filter((verdict) => verdict.verdict === name)
      .map((verdict) => `${verdict.title} (assessment)`);
    return titles.length === 0 ? [] : [`${ASSESSMENT_VERDICT_WORDS[name]}: ${titles.join(', ')}`];
  });
}

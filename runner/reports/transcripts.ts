/**
 * transcripts/<case-id>.txt: one file per case that ran, with what the case checks, why it did
 * not pass (when it did not) and every attempt's stanza transcript. Passed cases get one too:
 * the transcript is the evidence behind a pass as much as behind a failure. Caller cases
 * (docs/caller.md) too: their transcripts hold the MCP messages and the fake target's stanzas.
 */
import type { RunResult } from '../run-result.ts';
import {
  attemptTranscripts,
  caseHeader,
  caseWarnings,
  failureDetails,
  transcriptPath,
} from './case-story.ts';
import type { ReportContext } from './report-context.ts';
import type { ReportFile } from './report-file.ts';

export function transcriptFiles(result: RunResult, context: ReportContext): ReportFile[] {
  return [...result.cases, ...(result.callerCases ?? [])]
    .filter((caseResult) => caseResult.attempts.length > 0)
    .map((caseResult) => {
      const warnings = caseWarnings(caseResult).map(
        (finding) => `warning: ${finding.requirement}: ${finding.message}`,
      );
      const text = [
        ...caseHeader(caseResult, context),
        `replay: agentconf run --seed ${String(result.seed)} --grep ${caseResult.case.id}`,
        ...failureDetails(caseResult),
        ...warnings,
        '',
        attemptTranscripts(caseResult),
        '',
      ].join('\n');
      return { path: transcriptPath(caseResult.case.id), content: text };
    });
}

/**
 * Every report of a run, written into its output directory after the run (`agentconf run`
 * calls this once): junit.xml, allure-results/, earl.jsonld, conformance.json, conformance.md,
 * transcripts/ and, when asked, the Allure HTML report. The formats are pure functions; this is
 * the only place that touches the disk or spawns anything for them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Registry } from '../../suites/registry/registry.ts';
import { REPO_ROOT } from '../../harness/repo-root.ts';
import type { RunResult } from '../run-result.ts';
import { AllureGenerateError, generateAllureHtml, type AllureHtml } from './allure-html.ts';
import { allureResultFiles } from './allure-results.ts';
import { conformanceJsonFile, conformanceReport } from './conformance-report.ts';
import { conformanceMarkdownFile } from './conformance-markdown.ts';
import { earlReport } from './earl.ts';
import { junitReport } from './junit.ts';
import { reportContext } from './report-context.ts';
import { writeReportFiles, type ReportFile } from './report-file.ts';
import { transcriptFiles } from './transcripts.ts';

export interface WriteReportsOptions {
  /** Also generate allure-report/ (a few seconds: see reports/README.md). */
  readonly allureHtml?: boolean;
  readonly registry?: Registry;
}

export interface WrittenReports {
  /** Every file written, relative to the output directory. */
  readonly files: readonly string[];
  readonly allureHtml?: AllureHtml;
  /** Lines for the person watching the run (where the reports are, what could not be made). */
  readonly notes: readonly string[];
}

/** The suite's homepage for EARL's assertedBy, when package.json names one. */
function suiteHomepage(): string | undefined {
  const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    homepage?: unknown;
  };
  return typeof manifest.homepage === 'string' ? manifest.homepage : undefined;
}

export async function writeReports(
  result: RunResult,
  outDir: string,
  options: WriteReportsOptions = {},
): Promise<WrittenReports> {
  const homepage = suiteHomepage();
  const context = reportContext(result, {
    ...(options.registry === undefined ? {} : { registry: options.registry }),
    ...(homepage === undefined ? {} : { suiteHomepage: homepage }),
  });
  const files: ReportFile[] = [
    junitReport(result, context),
    ...allureResultFiles(result, context),
    earlReport(result, context),
    ...transcriptFiles(result, context),
  ];
  writeReportFiles(outDir, files);
  const notes: string[] = [];
  let allureHtml: AllureHtml | undefined;
  if (options.allureHtml === true) {
    const subject = `${result.subject.name}${result.subject.version === undefined ? '' : ` ${result.subject.version}`}`;
    try {
      allureHtml = await generateAllureHtml(outDir, `agentconf ${result.suiteVersion}: ${subject}`);
      notes.push(`allure report: ${allureHtml.index} (${(allureHtml.elapsedMs / 1000).toFixed(1)} s)`);
    } catch (error) {
      // The run's verdict stands without the HTML view; say why it is missing instead of failing.
      if (!(error instanceof AllureGenerateError)) throw error;
      notes.push(`allure report NOT generated: ${error.message}`);
    }
  }
  const report = conformanceReport(result, context, { allureReport: allureHtml !== undefined });
  const statement = [conformanceJsonFile(report), conformanceMarkdownFile(report, result)];
  writeReportFiles(outDir, statement);
  notes.unshift(`conformance statement: ${join(outDir, 'conformance.md')}`);
  return {
    files: [...files, ...statement].map((file) => file.path),
    ...(allureHtml === undefined ? {} : { allureHtml }),
    notes,
  };
}

/**
 * agentconf matrix RUN_DIR...: one HTML page comparing several runs (gateways × conformance
 * profiles), built from each run's conformance.json. Links are relative to the page, so the
 * page and the run directories can be copied or served together.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { REPORT_FILES } from '../../runner/reports/conformance-report.ts';
import { matrixHtml, type MatrixRun } from '../../runner/reports/matrix-html.ts';
import { ConformanceReportError, parseConformanceReport } from '../../runner/reports/read-conformance.ts';
import { formatViolation } from '../../protocol/json/config-problems.ts';
import { checkWritableFile, EXIT, readInput, UsageError } from '../io.ts';
import type { Command } from '../main.ts';
import { parseCommandArgs, type CommandSpec } from '../options.ts';

const SPEC = {
  name: 'matrix',
  summary: 'an HTML interop matrix (gateways × profiles) from the conformance.json of several runs',
  usage: ['matrix RUN_DIR...'],
  options: {
    out: {
      type: 'string',
      valueName: 'FILE',
      description: 'where the page goes (its folders are made)',
      defaultText: 'reports/matrix.html under the current directory',
    },
    title: { type: 'string', valueName: 'TEXT', description: "the page's title" },
  },
  example: 'matrix reports/gateway-a reports/gateway-b --out reports/matrix.html',
  notes:
    'Each RUN_DIR is the --out folder of an agentconf run. Exit 1 lists the problems of an invalid conformance.json.',
} as const satisfies CommandSpec;

/** A URL path from the page's directory to a file, each segment escaped. */
function href(fromDir: string, to: string): string {
  return relative(fromDir, to).split(sep).map(encodeURIComponent).join('/');
}

export const matrixCommand: Command = {
  spec: SPEC,
  run(args, io) {
    const { values, positionals } = parseCommandArgs(SPEC, args);
    if (positionals.length === 0) throw new UsageError('name at least one run directory (reports/<run-id>/)');
    // Relative to where the command runs: an installed package must not write into itself.
    const out = resolve(values.out ?? join('reports', 'matrix.html'));
    checkWritableFile(out, '--out', true);
    const pageDir = dirname(out);
    const runs: MatrixRun[] = [];
    let invalid = false;
    for (const runDir of positionals) {
      const source = join(runDir, 'conformance.json');
      try {
        const report = parseConformanceReport(readInput(io, source), source);
        const allure = report.reports['allureReport'];
        runs.push({
          report,
          statementHref: href(
            pageDir,
            resolve(runDir, report.reports['statement'] ?? REPORT_FILES.statement),
          ),
          ...(allure === undefined ? {} : { allureHref: href(pageDir, resolve(runDir, allure)) }),
        });
      } catch (error) {
        if (!(error instanceof ConformanceReportError)) throw error;
        invalid = true;
        io.err(
          `invalid: ${error.source}: ${String(error.violations.length)} problem(s) in the conformance report\n`,
        );
        for (const violation of error.violations) io.err(`  ${formatViolation(violation)}\n`);
      }
    }
    if (invalid) return Promise.resolve(EXIT.invalid);
    const page = matrixHtml(runs, {
      generatedAt: new Date().toISOString(),
      ...(values.title === undefined ? {} : { title: values.title }),
    });
    mkdirSync(pageDir, { recursive: true });
    writeFileSync(out, page);
    io.out(`matrix: ${out} (${String(runs.length)} run${runs.length === 1 ? '' : 's'})\n`);
    return Promise.resolve(EXIT.ok);
  },
};

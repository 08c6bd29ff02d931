import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from './main.ts';
import type { CliIo } from './io.ts';
import { conformanceReport } from '../runner/reports/conformance-report.ts';
import { matrixHtml, VERDICT_COLOURS } from '../runner/reports/matrix-html.ts';
import { reportContext } from '../runner/reports/report-context.ts';
import { syntheticRunResult } from '../runner/reports/test-support/synthetic-run.ts';
import { writeReports } from '../runner/reports/write-reports.ts';

async function cli(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    out: (text) => (stdout += text),
    err: (text) => (stderr += text),
    readFile: (path) => readFileSync(path),
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

describe('matrixHtml', () => {
  const failing = syntheticRunResult();
  const passing = syntheticRunResult({ allPass: true, subjectName: 'Second Gateway', runId: 'run-b' });
  const html = matrixHtml(
    [
      { report: conformanceReport(failing, reportContext(failing)), statementHref: 'a/conformance.md' },
      {
        report: conformanceReport(passing, reportContext(passing)),
        statementHref: 'b/conformance.md',
        allureHref: 'b/allure-report/index.html',
      },
    ],
    { generatedAt: '2026-11-30T00:00:00.000Z' },
  );
  const rows = html.match(/<tr><th class="subject".*?<\/tr>/g) ?? [];

  it('is one self-contained page: no script, no external resource', () => {
    expect(html).toMatch(/^<!DOCTYPE html>/);
    expect(html).not.toMatch(/<script|<link|@import|url\(/i);
    // The only absolute links: the gateways' homepages, for the reader to follow.
    expect(html.match(/ (?:src|href)="https?:[^"]*"/g)).toEqual([
      ' href="https://gateway.example/"',
      ' href="https://gateway.example/"',
    ]);
  });

  it('a row per run, a column per profile, cells coloured by verdict with MUST counts', () => {
    expect(rows).toHaveLength(2);
    const [first, second] = rows;
    expect(first).toContain('Example Gateway &#60;beta&#62; &#38; co 2.1.0');
    expect(first).toContain(
      '<td class="cell failed" title="failing: gateway-info.claimed-profiles-advertised, list-agents.rsm-paging-flaky"><a href="a/conformance.md"><span class="verdict">FAIL</span><span class="count">MUST 1/3</span><span class="count">1 warning</span></a></td>',
    );
    expect(first).toContain('<span class="verdict">PASS</span><span class="count">MUST 1/1</span>');
    expect(first).toContain('<td class="cell not-claimed"');
    expect(first).toContain('<td class="run bad">FAILED</td>');
    expect(second).toContain('<span class="verdict">PASS</span><span class="count">MUST 3/3</span>');
    expect(second).toContain('<a href="b/allure-report/index.html">Allure</a>');
    expect(second).toContain('<td class="run ok">PASSED</td>');
    expect(first?.match(/<td class="cell /g)).toHaveLength(8);
    expect(html).toContain(`td.passed { background: ${VERDICT_COLOURS.passed};`);
  });
});

describe('agentconf matrix', () => {
  const root = mkdtempSync(join(tmpdir(), 'agentconf-matrix-'));
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it('reads each run’s conformance.json and links the page to the runs relative to it', async () => {
    const runA = join(root, 'runs', 'run a');
    const runB = join(root, 'runs', 'run-b');
    await writeReports(syntheticRunResult(), runA);
    await writeReports(syntheticRunResult({ allPass: true, subjectName: 'Second Gateway' }), runB);
    const out = join(root, 'pages', 'matrix.html');
    const result = await cli(['matrix', runA, runB, '--out', out, '--title', 'Nightly']);
    expect(result).toEqual({ code: 0, stdout: `matrix: ${out} (2 runs)\n`, stderr: '' });
    const page = readFileSync(out, 'utf8');
    expect(page).toContain('<h1>Nightly</h1>');
    expect(page).toContain('href="../runs/run%20a/conformance.md"');
    expect(page).toContain('href="../runs/run-b/conformance.md"');
    expect(page).not.toContain('allure-report');
  });

  it('exits 1 naming the problems of an invalid conformance.json, 2 without a run or for a missing one', async () => {
    const bad = join(root, 'bad');
    await writeReports(syntheticRunResult(), bad);
    const report = JSON.parse(readFileSync(join(bad, 'conformance.json'), 'utf8')) as Record<string, unknown>;
    delete report['subject'];
    writeFileSync(join(bad, 'conformance.json'), JSON.stringify(report));
    const invalid = await cli(['matrix', bad, '--out', join(root, 'x.html')]);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(
      /conformance\.json: 1 problem\(s\) in the conformance report\n {2}\/subject: /,
    );
    expect((await cli(['matrix'])).code).toBe(2);
    const missing = await cli(['matrix', join(root, 'absent')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot read .*absent\/conformance\.json: ENOENT/);
  });
});

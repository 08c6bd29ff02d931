import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from './main.ts';
import type { CliIo } from './io.ts';
import { conformanceReport } from '../runner/reports/conformance-report.ts';
import { matrixHtml, PARTIAL_PASS_COLOUR, VERDICT_COLOURS } from '../runner/reports/matrix-html.ts';
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

  it('a row per run, a column per profile, cells coloured by verdict with counts; the title gives reason and cases', () => {
    expect(rows).toHaveLength(2);
    const [first, second] = rows;
    expect(first).toContain('Example Gateway &#60;beta&#62; &#38; co 2.1.0');
    expect(first).toContain(
      [
        '<td class="cell failed" title="Core Directory: FAIL: 1 case(s) failed: gateway-info.claimed-profiles-advertised&#10;',
        'passed 1, failed 1, cantTell 1, inapplicable 0&#10;',
        'gateway-info.claimed-profiles-advertised [MUST] failed: gateway-info.features: a claimed profile has no feature in disco#info&#10;',
        'list-agents.rsm-paging-flaky [MUST] cantTell: flaky: failed, then passed when re-run alone (first attempt: IqTimeout: no reply to iq-2 within 10000 ms)">',
        '<a href="a/conformance.md"><span class="verdict">FAIL</span><span class="count">MUST 1/2 ?1</span><span class="count">1 warning</span></a></td>',
      ].join(''),
    );
    expect(first).toContain(
      '<span class="verdict">PASS</span><span class="count">MUST 1/1</span><span class="count">1 n/a</span>',
    );
    // Unclaimed: no counts, only "not claimed" (Human Messaging's case was untested).
    expect(first).toContain(
      '<td class="cell not-claimed" title="Human Messaging: not claimed"><a href="a/conformance.md"><span class="verdict">not claimed</span></a></td>',
    );
    expect(first).toContain('<td class="run bad" title="all 5 cases">FAILED</td>');
    expect(second).toContain('<span class="verdict">PASS</span><span class="count">MUST 3/3</span>');
    expect(second).toContain('<a href="b/allure-report/index.html">Allure</a>');
    expect(second).toContain('<td class="run ok" title="all 5 cases">PASSED</td>');
    expect(first?.match(/<td class="cell /g)).toHaveLength(8);
    expect(html).toContain(`td.passed { background: ${VERDICT_COLOURS.passed};`);
  });

  it('each row names the server stack the run stood on, so one gateway on two stacks is two rows', () => {
    const onEjabberd = {
      ...syntheticRunResult({ allPass: true, runId: 'run-e' }),
      servers: { a: 'ejabberd', b: 'prosody' },
    } as const;
    const page = matrixHtml(
      [
        { report: conformanceReport(passing, reportContext(passing)), statementHref: 'p/conformance.md' },
        {
          report: conformanceReport(onEjabberd, reportContext(onEjabberd)),
          statementHref: 'e/conformance.md',
        },
      ],
      { generatedAt: '2026-11-30T00:00:00.000Z' },
    );
    const [prosodyRow, ejabberdRow] = page.match(/<tr><th class="subject".*?<\/tr>/g) ?? [];
    expect(prosodyRow).toContain(
      '<span class="meta stack">server A prosody, server B prosody, hostile prosody</span>',
    );
    expect(ejabberdRow).toContain('<span class="meta stack">server A ejabberd, server B prosody</span>');
  });

  it('a partial run is PARTIAL in its row and its passing cells, never a plain PASS or PASSED', () => {
    const partial = syntheticRunResult({ allPass: true, partial: true, runId: 'run-p' });
    const page = matrixHtml(
      [{ report: conformanceReport(partial, reportContext(partial)), statementHref: 'p/conformance.md' }],
      {
        generatedAt: '2026-11-30T00:00:00.000Z',
      },
    );
    const [row] = page.match(/<tr><th class="subject".*?<\/tr>/g) ?? [];
    expect(row).toContain(
      '<span class="meta partial">PARTIAL: 5 of 180 cases (--grep gateway-info, --grep list-agents)</span>',
    );
    expect(row).toContain(
      '<td class="cell passed partial" title="Core Directory: PARTIAL PASS&#10;PARTIAL run: 5 of 180 cases (--grep gateway-info, --grep list-agents)&#10;passed 3, failed 0, cantTell 0, inapplicable 0"><a href="p/conformance.md"><span class="verdict">PARTIAL PASS</span>',
    );
    expect(row).toContain(
      '<td class="run partial" title="PARTIAL: 5 of 180 cases (--grep gateway-info, --grep list-agents)">PARTIAL</td>',
    );
    expect(row).not.toMatch(/>PASS<|>PASSED</);
    expect(page).toContain(`td.passed.partial { background: ${PARTIAL_PASS_COLOUR};`);
    const failedPartial = syntheticRunResult({ partial: true });
    expect(
      matrixHtml(
        [
          {
            report: conformanceReport(failedPartial, reportContext(failedPartial)),
            statementHref: 'q/conformance.md',
          },
        ],
        {
          generatedAt: '2026-11-30T00:00:00.000Z',
        },
      ),
    ).toContain('>FAILED (PARTIAL)</td>');
  });

  it('INCOMPLETE and NOT ASSESSED cells carry their reason; a baselined failure is counted', () => {
    const gaps = syntheticRunResult({ allPass: true, gaps: true, fixtures: 'manual' });
    const baselined = syntheticRunResult({ baseline: true, subjectName: 'Baselined' });
    const page = matrixHtml(
      [gaps, baselined].map((run) => ({
        report: conformanceReport(run, reportContext(run)),
        statementHref: 'g/conformance.md',
      })),
      { generatedAt: '2026-11-30T00:00:00.000Z' },
    );
    expect(page).toContain(
      '<td class="cell incomplete" title="Core Directory: INCOMPLETE: 1 case(s) could not be decided (list-agents.hidden-endpoint-absent: needs the fixture world',
    );
    expect(page).toContain('<span class="verdict">INCOMPLETE</span><span class="count">MUST 3/3 ?1</span>');
    expect(page).toContain(
      '<td class="cell not-assessed" title="Tool Discovery: NOT ASSESSED: none of its 1 MUST case(s) could run (the SUT does not advertise urn:xmpp:agent-task:0#progress)&#10;passed 0, failed 0, cantTell 0, inapplicable 1&#10;',
    );
    expect(page).toContain(
      '<span class="verdict">NOT ASSESSED</span><span class="count">no case decided</span><span class="count">1 n/a</span>',
    );
    expect(page).toContain(
      '<td class="cell failed" title="Self Registration: FAIL: Self Registration is claimed, but the gateway',
    );
    expect(page).toContain('<span class="meta">fixtures: manual</span>');
    expect(page).toContain(
      'gateway-info.claimed-profiles-advertised [MUST] failed (baselined: issue #7: profiles are advertised only after the first registration)',
    );
    expect(page).toContain('<span class="count">1 baselined</span>');
    expect(page).toContain(`td.incomplete { background: ${VERDICT_COLOURS.incomplete};`);
    expect(page).toContain(`td.not-assessed { background: ${VERDICT_COLOURS['not-assessed']};`);
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
    expect(missing.stderr).toMatch(/absent\/conformance\.json does not exist\n$/);
  });
});

/**
 * The interop matrix: one self-contained HTML page (inline CSS, no script, nothing fetched)
 * with a row per run (a gateway judged once) and a column per conformance profile, each cell
 * coloured by the profile's verdict and showing its MUST and SHOULD pass counts, linking to
 * that run's conformance statement — quic-interop-runner's results page, for profiles instead
 * of client/server pairs.
 */
import type { Level } from '../../suites/framework/outcome.ts';
import type { ProfileVerdictName } from '../profile-verdicts.ts';
import type { ConformanceReport, ProfileStatement } from './conformance-report.ts';

export interface MatrixRun {
  readonly report: ConformanceReport;
  /** Links from the page to the run's conformance.md and (when generated) its Allure report. */
  readonly statementHref: string;
  readonly allureHref?: string;
}

/** Fill colours per verdict; the rendering test looks for them in a screenshot. */
export const VERDICT_COLOURS: Readonly<Record<ProfileVerdictName, string>> = {
  passed: '#1a7f37',
  failed: '#cf222e',
  'no-cases': '#9a6700',
  'not-claimed': '#eaeef2',
};

const VERDICT_WORDS: Readonly<Record<ProfileVerdictName, string>> = {
  passed: 'PASS',
  failed: 'FAIL',
  'no-cases': 'NOT ASSESSED',
  'not-claimed': 'not claimed',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${String(char.charCodeAt(0))};`);
}

function counts(profile: ProfileStatement, level: Level): string | undefined {
  const c = profile.counts[level];
  const decided = c.passed + c.failed + c.cantTell;
  return decided === 0 ? undefined : `${level} ${String(c.passed)}/${String(decided)}`;
}

function cell(run: MatrixRun, profile: ProfileStatement | undefined): string {
  if (profile === undefined) return '<td class="cell absent">—</td>';
  const lines = [counts(profile, 'MUST'), counts(profile, 'SHOULD')].filter((line) => line !== undefined);
  if (lines.length === 0 && profile.claimed) lines.push('no case ran');
  if (profile.warnings > 0) lines.push(`${String(profile.warnings)} warning${profile.warnings === 1 ? '' : 's'}`);
  if (profile.expectedFailures > 0) lines.push(`${String(profile.expectedFailures)} baselined`);
  const title =
    profile.failingCases.length > 0
      ? `failing: ${profile.failingCases.join(', ')}`
      : `${profile.title}: ${VERDICT_WORDS[profile.verdict]}`;
  const detail = lines.map((line) => `<span class="count">${escapeHtml(line)}</span>`).join('');
  return (
    `<td class="cell ${profile.verdict}" title="${escapeHtml(title)}">` +
    `<a href="${escapeHtml(run.statementHref)}"><span class="verdict">${VERDICT_WORDS[profile.verdict]}</span>${detail}</a></td>`
  );
}

function subjectCell(run: MatrixRun): string {
  const { report } = run;
  const name = `${report.subject.name}${report.subject.version === undefined ? '' : ` ${report.subject.version}`}`;
  const title =
    report.subject.homepage === undefined
      ? escapeHtml(name)
      : `<a href="${escapeHtml(report.subject.homepage)}">${escapeHtml(name)}</a>`;
  const links = [`<a href="${escapeHtml(run.statementHref)}">statement</a>`];
  if (run.allureHref !== undefined) links.push(`<a href="${escapeHtml(run.allureHref)}">Allure</a>`);
  return [
    '<th class="subject" scope="row">',
    `<span class="name">${title}</span>`,
    `<span class="meta">${escapeHtml(report.subject.gatewayJid)} · ${escapeHtml(report.runDate.slice(0, 16).replace('T', ' '))} UTC · seed ${String(report.seed)}${report.strict ? ' · strict' : ''}</span>`,
    `<span class="meta">${escapeHtml(`${report.suite.name} ${report.suite.version}`)}, spec ${escapeHtml(report.spec.revision)} · ${links.join(' · ')}</span>`,
    '</th>',
  ].join('');
}

const STYLE = `
  body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #1f2328; background: #ffffff; }
  h1 { font-size: 20px; margin: 0 0 4px; }
  p.about { margin: 0 0 16px; color: #59636e; }
  table { border-collapse: separate; border-spacing: 3px; }
  th.profile { font-size: 12px; font-weight: 600; padding: 4px 6px; max-width: 110px; vertical-align: bottom; }
  th.subject { text-align: left; font-weight: normal; padding: 6px 10px 6px 0; min-width: 260px; }
  th.subject .name { display: block; font-weight: 600; font-size: 15px; }
  th.subject .meta { display: block; font-size: 12px; color: #59636e; }
  td.cell { width: 110px; height: 64px; text-align: center; vertical-align: middle; padding: 0; }
  td.cell a { display: block; padding: 6px 4px; color: inherit; text-decoration: none; }
  td.cell .verdict { display: block; font-weight: 700; }
  td.cell .count { display: block; font-size: 12px; }
  td.passed { background: ${VERDICT_COLOURS.passed}; color: #ffffff; }
  td.failed { background: ${VERDICT_COLOURS.failed}; color: #ffffff; }
  td.no-cases { background: ${VERDICT_COLOURS['no-cases']}; color: #ffffff; }
  td.not-claimed { background: ${VERDICT_COLOURS['not-claimed']}; color: #59636e; }
  td.absent { color: #59636e; }
  td.run { font-weight: 700; padding: 0 8px; }
  td.run.ok { color: ${VERDICT_COLOURS.passed}; }
  td.run.bad { color: ${VERDICT_COLOURS.failed}; }
  ul.legend { list-style: none; padding: 0; margin: 16px 0 0; font-size: 12px; color: #59636e; }
  ul.legend li { display: inline-block; margin-right: 16px; }
  ul.legend span { display: inline-block; width: 12px; height: 12px; vertical-align: middle; margin-right: 4px; }
`;

export interface MatrixOptions {
  readonly title?: string;
  /** ISO 8601 time the page was made (injected so the page is reproducible). */
  readonly generatedAt: string;
}

export function matrixHtml(runs: readonly MatrixRun[], options: MatrixOptions): string {
  const columns: { id: string; title: string }[] = [];
  for (const run of runs) {
    for (const profile of run.report.profiles) {
      if (!columns.some((column) => column.id === profile.id)) columns.push({ id: profile.id, title: profile.title });
    }
  }
  const title = options.title ?? 'XMPP Agent Gateway interop matrix';
  const revisions = [...new Set(runs.map((run) => run.report.spec.revision))].join(', ');
  const header = [
    '<tr><th></th>',
    ...columns.map((column) => `<th class="profile" scope="col" title="${escapeHtml(column.id)}">${escapeHtml(column.title)}</th>`),
    '<th class="profile" scope="col">run</th></tr>',
  ].join('');
  const rows = runs.map((run) => {
    const cells = columns.map((column) =>
      cell(
        run,
        run.report.profiles.find((profile) => profile.id === column.id),
      ),
    );
    const verdict = run.report.passed ? '<td class="run ok">PASSED</td>' : '<td class="run bad">FAILED</td>';
    return `<tr>${subjectCell(run)}${cells.join('')}${verdict}</tr>`;
  });
  const legend = (Object.keys(VERDICT_WORDS) as ProfileVerdictName[])
    .map((verdict) => `<li><span style="background:${VERDICT_COLOURS[verdict]}"></span>${VERDICT_WORDS[verdict]}</li>`)
    .join('');
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    `<h1>${escapeHtml(title)}</h1>`,
    `<p class="about">${String(runs.length)} run${runs.length === 1 ? '' : 's'} against spec revision ${escapeHtml(revisions)}; generated ${escapeHtml(options.generatedAt)}. Each cell: the profile's verdict with MUST and SHOULD cases passed / decided; it links to the run's conformance statement.</p>`,
    '<table>',
    `<thead>${header}</thead>`,
    `<tbody>${rows.join('\n')}</tbody>`,
    '</table>',
    `<ul class="legend">${legend}</ul>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/**
 * The interop matrix: one self-contained HTML page (inline CSS, no script, nothing fetched)
 * with a row per run (a gateway judged once) and a column per conformance profile, each cell
 * coloured by the profile's verdict and showing its MUST and SHOULD counts (passed / decided,
 * undecided, inapplicable), its title the main reason and the cases that did not pass, linking
 * to that run's conformance statement — quic-interop-runner's results page, for profiles
 * instead of client/server pairs. A partial run (a --grep or --profile selection) is marked
 * PARTIAL in its row and its passing cells, never a plain PASS.
 */
import type { Level } from '../../suites/framework/outcome.ts';
import type { ProfileVerdictName } from '../profile-verdicts.ts';
import { serversText } from '../server-stack.ts';
import type { ConformanceReport, ProfileStatement } from './conformance-report.ts';
import {
  outcomeTotals,
  profileSummary,
  profileVerdictWord,
  runVerdict,
  runVerdictWord,
  selectionText,
  VERDICT_WORDS,
} from './verdict-words.ts';

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
  incomplete: '#9a6700',
  'not-assessed': '#6e7781',
  'not-claimed': '#eaeef2',
};

/** A pass of a partial run: lighter, so it never reads as the full run's green. */
export const PARTIAL_PASS_COLOUR = '#aceebb';

/** The cases a cell's title lists before "and N more". */
const TITLE_CASES = 12;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${String(char.charCodeAt(0))};`);
}

function counts(profile: ProfileStatement, level: Level): string | undefined {
  if (!profile.claimed) return undefined;
  const c = profile.counts[level];
  const decided = c.passed + c.failed;
  const parts = [
    ...(decided === 0 ? [] : [`${String(c.passed)}/${String(decided)}`]),
    ...(c.cantTell === 0 ? [] : [`?${String(c.cantTell)}`]),
  ];
  return parts.length === 0 ? undefined : `${level} ${parts.join(' ')}`;
}

/** The tooltip: verdict and main reason, the counts, the cases that did not pass. */
function cellTitle(profile: ProfileStatement, report: ConformanceReport): string {
  if (!profile.claimed) return `${profile.title}: ${VERDICT_WORDS[profile.verdict]}`;
  const summary = profileSummary(profile, report);
  // Counts and the partial selection, then the cases.
  const shown = summary.details.length - profile.notPassed.length + TITLE_CASES;
  const lines = [`${profile.title}: ${summary.message}`, ...summary.details.slice(0, shown)];
  if (summary.details.length > shown) lines.push(`and ${String(summary.details.length - shown)} more`);
  return lines.join('\n');
}

function cell(run: MatrixRun, profile: ProfileStatement | undefined): string {
  if (profile === undefined) return '<td class="cell absent">—</td>';
  const { partial } = run.report;
  const lines = [counts(profile, 'MUST'), counts(profile, 'SHOULD')].filter((line) => line !== undefined);
  if (profile.claimed) {
    const inapplicable = outcomeTotals(profile.counts).inapplicable;
    if (lines.length === 0) lines.push('no case decided');
    if (inapplicable > 0) lines.push(`${String(inapplicable)} n/a`);
    if (profile.warnings > 0)
      lines.push(`${String(profile.warnings)} warning${profile.warnings === 1 ? '' : 's'}`);
    if (profile.expectedFailures > 0) lines.push(`${String(profile.expectedFailures)} baselined`);
  }
  const detail = lines.map((line) => `<span class="count">${escapeHtml(line)}</span>`).join('');
  const classes = `cell ${profile.verdict}${partial && profile.verdict === 'passed' ? ' partial' : ''}`;
  return (
    // Line breaks as character references keep each row of the table on one line of HTML.
    `<td class="${classes}" title="${escapeHtml(cellTitle(profile, run.report)).replaceAll('\n', '&#10;')}">` +
    `<a href="${escapeHtml(run.statementHref)}"><span class="verdict">${profileVerdictWord(profile.verdict, partial)}</span>${detail}</a></td>`
  );
}

const RUN_CLASSES = { passed: 'ok', partial: 'partial', failed: 'bad' } as const;

/** The run's own verdict: PASSED, PARTIAL (with what was selected), FAILED. */
function runCell(report: ConformanceReport): string {
  const title = report.partial ? `PARTIAL: ${selectionText(report)}` : selectionText(report);
  return `<td class="run ${RUN_CLASSES[runVerdict(report)]}" title="${escapeHtml(title)}">${runVerdictWord(report)}</td>`;
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
    report.partial ? `<span class="meta partial">PARTIAL: ${escapeHtml(selectionText(report))}</span>` : '',
    // The same gateway may pass on one server stack and not on another: every row says which.
    `<span class="meta stack">${escapeHtml(report.servers === undefined ? 'servers: not recorded (an older report)' : serversText(report.servers))}</span>`,
    report.fixtures === 'world-file'
      ? ''
      : `<span class="meta">fixtures: ${escapeHtml(report.fixtures)}</span>`,
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
  td.passed.partial { background: ${PARTIAL_PASS_COLOUR}; color: #116329; }
  td.failed { background: ${VERDICT_COLOURS.failed}; color: #ffffff; }
  td.incomplete { background: ${VERDICT_COLOURS.incomplete}; color: #ffffff; }
  td.not-assessed { background: ${VERDICT_COLOURS['not-assessed']}; color: #ffffff; }
  td.not-claimed { background: ${VERDICT_COLOURS['not-claimed']}; color: #59636e; }
  td.absent { color: #59636e; }
  td.run { font-weight: 700; padding: 0 8px; }
  td.run.ok { color: ${VERDICT_COLOURS.passed}; }
  td.run.bad { color: ${VERDICT_COLOURS.failed}; }
  td.run.partial { color: ${VERDICT_COLOURS.incomplete}; }
  th.subject .meta.partial { color: ${VERDICT_COLOURS.incomplete}; font-weight: 600; }
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
      if (!columns.some((column) => column.id === profile.id))
        columns.push({ id: profile.id, title: profile.title });
    }
  }
  const title = options.title ?? 'XMPP Agent Gateway interop matrix';
  const revisions = [...new Set(runs.map((run) => run.report.spec.revision))].join(', ');
  const header = [
    '<tr><th></th>',
    ...columns.map(
      (column) =>
        `<th class="profile" scope="col" title="${escapeHtml(column.id)}">${escapeHtml(column.title)}</th>`,
    ),
    '<th class="profile" scope="col">run</th></tr>',
  ].join('');
  const rows = runs.map((run) => {
    const cells = columns.map((column) =>
      cell(
        run,
        run.report.profiles.find((profile) => profile.id === column.id),
      ),
    );
    return `<tr>${subjectCell(run)}${cells.join('')}${runCell(run.report)}</tr>`;
  });
  const legend = [
    ...(Object.keys(VERDICT_WORDS) as ProfileVerdictName[]).map((verdict) => ({
      colour: VERDICT_COLOURS[verdict],
      word: VERDICT_WORDS[verdict],
    })),
    { colour: PARTIAL_PASS_COLOUR, word: profileVerdictWord('passed', true) },
  ]
    .map(({ colour, word }) => `<li><span style="background:${colour}"></span>${word}</li>`)
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
    `<p class="about">${String(runs.length)} run${runs.length === 1 ? '' : 's'} against spec revision ${escapeHtml(revisions)}; generated ${escapeHtml(options.generatedAt)}. Each cell: the profile's verdict with MUST and SHOULD cases passed / decided (?N could not be decided) and how many were inapplicable; its title gives the reason and the cases that did not pass; it links to the run's conformance statement. PARTIAL: only a selection of the cases ran.</p>`,
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

/**
 * matrix.html: one self-contained page (inline CSS, no script, nothing fetched), one table per
 * server stack, rows the calling gateway and columns the target — quic-interop-runner's results
 * page for gateway pairs. Each slot lists every scenario as a coloured mark linking to the
 * direction's result.json (with the stanza transcripts behind each case), and under them, in
 * plain text, the side and requirement of every failure; its log link is the cell's cell.log.
 */
import { escapeHtml, VERDICT_COLOURS } from '../reports/matrix-html.ts';
import type { MatrixData, MatrixDirection, MatrixSlot, MatrixStack, SlotOutcome } from './matrix-model.ts';

/** Short marks for the scenarios, as quic-interop-runner abbreviates its test cases. */
export const SCENARIO_MARKS: Readonly<Record<string, string>> = {
  discovery: 'D',
  retrieval: 'R',
  'hidden-vs-missing': 'H',
  invocation: 'I',
  events: 'E',
  recovery: 'L',
  'cancellation-input': 'C',
};

const OUTCOME_WORDS: Readonly<Record<SlotOutcome, string>> = {
  passed: 'passed',
  failed: 'failed',
  cantTell: 'could not tell',
  notRun: 'not run',
};

const OUTCOME_COLOURS: Readonly<Record<SlotOutcome, string>> = {
  passed: VERDICT_COLOURS.passed,
  failed: VERDICT_COLOURS.failed,
  cantTell: VERDICT_COLOURS.incomplete,
  notRun: VERDICT_COLOURS['not-assessed'],
};

function attribute(text: string): string {
  // Line breaks as character references keep each table row on one line of HTML.
  return escapeHtml(text).replaceAll('\n', '&#10;');
}

function link(hrefText: string | undefined, body: string, title: string): string {
  return hrefText === undefined
    ? `<span title="${attribute(title)}">${body}</span>`
    : `<a href="${escapeHtml(hrefText)}" title="${attribute(title)}">${body}</a>`;
}

/** "A-to-B": which gateway of the cell sat on server A (the stack's) tells the two apart. */
function directionBlock(direction: MatrixDirection, data: MatrixData): string {
  const label = `<span class="dir">${escapeHtml(direction.direction)}</span>`;
  if (direction.status !== 'ran') {
    const word = direction.status === 'missing' ? 'not run' : 'could not run';
    return `<div class="direction">${label}${link(direction.logHref, `<span class="mark notRun">${word}</span>`, `${direction.cell}: ${direction.reason ?? word}`)}</div>`;
  }
  const marks = data.scenarios.map((scenario) => {
    const verdict = direction.scenarios.find((entry) => entry.id === scenario.id);
    const outcome: SlotOutcome = verdict?.outcome ?? 'notRun';
    const title = `${scenario.title}: ${OUTCOME_WORDS[outcome]}${verdict === undefined ? '' : `\n${verdict.reason}`}`;
    return link(
      direction.resultHref,
      `<span class="mark ${outcome}">${escapeHtml(SCENARIO_MARKS[scenario.id] ?? scenario.id)}</span>`,
      title,
    );
  });
  const failures = direction.scenarios.flatMap((scenario) =>
    [
      ...new Set(
        scenario.failures.map((failure) => `${failure.side} (${failure.gateway}): ${failure.requirement}`),
      ),
    ].map((text) => `<li><b>${escapeHtml(scenario.id)}</b> ${escapeHtml(text)}</li>`),
  );
  const seconds =
    direction.durationMs === undefined ? '' : ` · cell ${(direction.durationMs / 1000).toFixed(0)} s`;
  const links = [
    direction.resultHref === undefined ? '' : `<a href="${escapeHtml(direction.resultHref)}">result</a>`,
    direction.logHref === undefined ? '' : `<a href="${escapeHtml(direction.logHref)}">log</a>`,
  ].filter((entry) => entry !== '');
  return [
    `<div class="direction">${label}<span class="marks">${marks.join('')}</span>`,
    failures.length === 0 ? '' : `<ul class="failures">${failures.join('')}</ul>`,
    `<span class="meta">${links.join(' · ')} · seed ${String(direction.seed ?? '?')}${seconds}</span></div>`,
  ].join('');
}

function slotCell(slot: MatrixSlot | undefined, data: MatrixData): string {
  if (slot === undefined) return '<td class="slot absent">—</td>';
  const title = `${slot.caller} calls ${slot.target}: ${OUTCOME_WORDS[slot.outcome]} (cell ${slot.directions[0]?.cell ?? '?'})`;
  return `<td class="slot ${slot.outcome}" title="${attribute(title)}">${slot.directions.map((direction) => directionBlock(direction, data)).join('')}</td>`;
}

function gatewayHeader(data: MatrixData, id: string, scope: 'row' | 'col'): string {
  const name = data.gateways.find((gateway) => gateway.id === id)?.name;
  return `<th scope="${scope}" class="gateway" title="${attribute(name ?? id)}">${escapeHtml(id)}</th>`;
}

function stackTable(stack: MatrixStack, data: MatrixData): string {
  const ids = data.gateways.map((gateway) => gateway.id);
  const header = `<tr><th class="corner">caller ↓ target →</th>${ids.map((id) => gatewayHeader(data, id, 'col')).join('')}</tr>`;
  const rows = ids.map((caller) => {
    const cells = ids.map((target) =>
      slotCell(
        stack.slots.find((slot) => slot.caller === caller && slot.target === target),
        data,
      ),
    );
    return `<tr>${gatewayHeader(data, caller, 'row')}${cells.join('')}</tr>`;
  });
  return [
    `<h2 id="stack-${escapeHtml(stack.stack)}">${escapeHtml(stack.servers)}</h2>`,
    '<table>',
    `<thead>${header}</thead>`,
    `<tbody>${rows.join('\n')}</tbody>`,
    '</table>',
  ].join('\n');
}

const STYLE = `
  body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #1f2328; background: #ffffff; }
  h1 { font-size: 20px; margin: 0 0 4px; }
  h2 { font-size: 16px; margin: 24px 0 8px; }
  p.about { margin: 0 0 16px; color: #59636e; max-width: 960px; }
  table { border-collapse: separate; border-spacing: 3px; }
  th.gateway { font-weight: 600; padding: 4px 8px; text-align: left; }
  th.corner { font-size: 12px; font-weight: normal; color: #59636e; }
  td.slot { vertical-align: top; padding: 6px; min-width: 180px; border: 2px solid #d1d9e0; }
  td.slot.passed { border-color: ${OUTCOME_COLOURS.passed}; }
  td.slot.failed { border-color: ${OUTCOME_COLOURS.failed}; }
  td.slot.cantTell { border-color: ${OUTCOME_COLOURS.cantTell}; }
  td.slot.notRun { border-color: ${OUTCOME_COLOURS.notRun}; }
  td.absent { color: #59636e; text-align: center; }
  div.direction + div.direction { margin-top: 6px; border-top: 1px solid #d1d9e0; padding-top: 4px; }
  span.dir { display: block; font-size: 11px; color: #59636e; }
  a { color: inherit; }
  span.mark { display: inline-block; min-width: 18px; margin: 0 2px 2px 0; padding: 1px 3px; text-align: center; font-weight: 700; color: #ffffff; }
  span.mark.passed { background: ${OUTCOME_COLOURS.passed}; }
  span.mark.failed { background: ${OUTCOME_COLOURS.failed}; }
  span.mark.cantTell { background: ${OUTCOME_COLOURS.cantTell}; }
  span.mark.notRun { background: ${OUTCOME_COLOURS.notRun}; }
  ul.failures { margin: 4px 0; padding-left: 16px; font-size: 12px; color: ${OUTCOME_COLOURS.failed}; }
  span.meta { display: block; font-size: 11px; color: #59636e; }
  ul.legend { list-style: none; padding: 0; margin: 16px 0 0; font-size: 12px; color: #59636e; }
  ul.legend li { display: inline-block; margin-right: 16px; }
`;

export function matrixPage(data: MatrixData): string {
  const legend = [
    ...data.scenarios.map(
      (scenario) =>
        `<li><b>${escapeHtml(SCENARIO_MARKS[scenario.id] ?? scenario.id)}</b> ${escapeHtml(scenario.title)}</li>`,
    ),
    ...(Object.keys(OUTCOME_WORDS) as SlotOutcome[]).map(
      (outcome) => `<li><span class="mark ${outcome}">&nbsp;</span> ${OUTCOME_WORDS[outcome]}</li>`,
    ),
  ].join('');
  const totals = (Object.keys(OUTCOME_WORDS) as SlotOutcome[])
    .map((outcome) => `${String(data.totals[outcome])} ${OUTCOME_WORDS[outcome]}`)
    .join(', ');
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<title>${escapeHtml(data.title)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    `<h1>${escapeHtml(data.title)}</h1>`,
    `<p class="about">${String(data.gateways.length)} gateways, ${String(data.stacks.length)} server stack${data.stacks.length === 1 ? '' : 's'}; slots: ${escapeHtml(totals)}; generated ${escapeHtml(data.generatedAt)}. Each slot: the row's gateway calls the column's, one mark per scenario (its title gives the reason; it links to the direction's result.json, which holds every case and its stanza transcript), then each failure's side, gateway and requirement. A cell is one pair run in both directions: the plan's earlier gateway is gateway A, on server A, so A-to-B in a slot means its caller sat on server A. A slot on the diagonal holds both directions of a gateway against a second instance of itself. A slot passes only when every scenario passed.</p>`,
    ...data.stacks.map((stack) => stackTable(stack, data)),
    `<ul class="legend">${legend}</ul>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

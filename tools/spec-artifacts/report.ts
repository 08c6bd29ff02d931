/**
 * The artifacts:check report: failures and spec defects in full, passing checks summarized
 * per rule (or listed one by one with `verbose`).
 */
import { interpretationId } from '../../protocol/interpretations.ts';
import type { Finding, RuleId } from './finding.ts';

export interface ReportOptions {
  readonly specPath: string;
  readonly specVersion: string | null;
  readonly verbose?: boolean;
}

/** 0 when nothing failed; spec defects alone never fail the check. */
export function exitCodeFor(findings: readonly Finding[]): 0 | 1 {
  return findings.some((finding) => finding.severity === 'fail') ? 1 : 0;
}

function where(finding: Finding): string {
  const parts = [
    finding.anchor === undefined ? undefined : `#${finding.anchor}`,
    finding.specLine === undefined ? undefined : `spec line ${finding.specLine}`,
  ].filter((part) => part !== undefined);
  return parts.length === 0 ? '' : ` (${parts.join(', ')})`;
}

function line(label: string, finding: Finding): string {
  return `${label.padEnd(16)} ${finding.rule.padEnd(20)} ${finding.artifact}${where(finding)}\n${' '.repeat(17)}${finding.subject}: ${finding.details}`;
}

export function formatReport(findings: readonly Finding[], options: ReportOptions): string {
  const out: string[] = [
    `artifacts:check — spec ${options.specVersion === null ? '(unknown version)' : `v${options.specVersion}`} at ${options.specPath}`,
  ];
  const ok = findings.filter((finding) => finding.severity === 'ok');
  if (options.verbose === true) {
    for (const finding of ok) out.push(line('ok', finding));
  } else {
    const byRule = new Map<RuleId, Finding[]>();
    for (const finding of ok) byRule.set(finding.rule, [...(byRule.get(finding.rule) ?? []), finding]);
    for (const [rule, passed] of byRule) {
      const listed =
        rule === 'artifact-match' ? `: ${passed.map((finding) => finding.artifact).join(', ')}` : '';
      out.push(`${'ok'.padEnd(16)} ${rule.padEnd(20)} ${passed.length} passed${listed}`);
    }
  }
  const defects = findings.filter((finding) => finding.severity === 'spec-defect');
  for (const finding of defects)
    out.push(
      line(`defect ${finding.position === undefined ? '?' : interpretationId(finding.position)}`, finding),
    );
  const failures = findings.filter((finding) => finding.severity === 'fail');
  for (const finding of failures) out.push(line('FAIL', finding));
  const positions = [...new Set(defects.map((finding) => finding.position))].map((position) =>
    position === undefined ? '?' : interpretationId(position),
  );
  out.push(
    `${ok.length} passed, ${defects.length} known spec defects${positions.length > 0 ? ` (${positions.join(', ')})` : ''}, ${failures.length} failed`,
  );
  return `${out.join('\n')}\n`;
}

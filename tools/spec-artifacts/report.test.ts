import { describe, expect, it } from 'vitest';
import type { Finding } from './finding.ts';
import { exitCodeFor, formatReport } from './report.ts';

const ok = (rule: Finding['rule'], artifact: string): Finding => ({
  severity: 'ok',
  rule,
  artifact,
  subject: 'content',
  details: 'fine',
});
const defect: Finding = {
  severity: 'spec-defect',
  rule: 'manifest-pin',
  artifact: 'example "Caller invokes a remote tool"',
  subject: '<invoke/> manifest-hash: tool forecast.get',
  details: 'pins K2/…, which has no tools',
  anchor: 'invocation',
  specLine: 984,
  position: 1,
};
const failure: Finding = {
  severity: 'fail',
  rule: 'artifact-match',
  artifact: 'xsd/agent-task.xsd',
  subject: 'content',
  details: 'first difference at normalized line 3',
};
const options = { specPath: '/spec.xml', specVersion: '0.0.5' };

describe('artifacts:check report', () => {
  it('summarizes passes per rule, lists artifact matches, and prints defects and failures in full', () => {
    const report = formatReport(
      [
        ok('artifact-match', 'xsd/a.xsd'),
        ok('artifact-match', 'xsd/b.xsd'),
        ok('example-xsd', 'x'),
        defect,
        failure,
      ],
      options,
    );
    expect(report.split('\n')).toEqual([
      'artifacts:check — spec v0.0.5 at /spec.xml',
      'ok               artifact-match       2 passed: xsd/a.xsd, xsd/b.xsd',
      'ok               example-xsd          1 passed',
      'defect interp-01 manifest-pin         example "Caller invokes a remote tool" (#invocation, spec line 984)',
      '                 <invoke/> manifest-hash: tool forecast.get: pins K2/…, which has no tools',
      'FAIL             artifact-match       xsd/agent-task.xsd',
      '                 content: first difference at normalized line 3',
      '3 passed, 1 known spec defects (interp-01), 1 failed',
      '',
    ]);
  });

  it('lists every pass when verbose and copes with an unknown spec version', () => {
    const report = formatReport([ok('example-xml', 'example "A"'), ok('example-xml', 'example "B"')], {
      specPath: '/s',
      specVersion: null,
      verbose: true,
    });
    expect(report).toContain('spec (unknown version) at /s');
    expect(report).toContain(
      'ok               example-xml          example "A"\n                 content: fine',
    );
    expect(report).toContain('example "B"');
    expect(report).toContain('2 passed, 0 known spec defects, 0 failed');
  });

  it('exits 1 only when something failed; spec defects alone exit 0', () => {
    expect(exitCodeFor([ok('example-xml', 'x'), defect])).toBe(0);
    expect(exitCodeFor([defect, failure])).toBe(1);
    expect(exitCodeFor([])).toBe(0);
  });
});

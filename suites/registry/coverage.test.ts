import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { JsonValue } from '../../protocol/json/json-value.ts';
import { runCoverageCli } from './coverage-cli.ts';
import { coverageOf, formatCoverage, uncoveredAtLeast } from './coverage.ts';
import { registryFromJson } from './registry.ts';

const scratch = mkdtempSync(join(tmpdir(), 'agentconf-coverage-'));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

function entry(id: string, level: string, testability: Record<string, unknown>): Record<string, unknown> {
  const anchor = id.split('.')[0] ?? '';
  return {
    id,
    anchor,
    level,
    profiles: ['core-directory'],
    role: 'gateway',
    summary: `The gateway does ${id}.`,
    sources: [{ anchor, sentence: id.length.toString(16).padStart(12, '0') }],
    ...testability,
  };
}

/** Four testable entries at every level and one not-testable one. */
const DOCUMENT = {
  spec: { title: 'T', version: '0.0.5' },
  fingerprint: 'sha-256, 12 hex digits',
  fixtures: { 'canary-listener': 'a listener that records requests' },
  requirements: [
    entry('list-agents.cited', 'MUST', { testability: 'black-box' }),
    entry('manifest.uncited-must', 'MUST', { testability: 'needs-fixture', fixtures: ['canary-listener'] }),
    entry('search.uncited-should', 'SHOULD', { testability: 'black-box' }),
    entry('rules.uncited-may', 'MAY', { testability: 'black-box' }),
    entry('schema.wire-checked', 'MUST', { testability: 'black-box' }),
    entry('privacy.untestable', 'MUST', { testability: 'not-testable', reason: 'nothing to observe' }),
  ],
};
const registry = registryFromJson(DOCUMENT as unknown as JsonValue, 'test');
const cases = [{ requirements: ['list-agents.cited'] as [string] }];

function run(argv: readonly string[]): { code: number; stdout: string; stderr: string } {
  let stdout = '';
  let stderr = '';
  const code = runCoverageCli(argv, {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
  });
  return { code, stdout, stderr };
}

describe('requirement coverage', () => {
  it('lists the testable requirements no case and no whole-run check cites', () => {
    const report = coverageOf(registry, cases, ['schema.wire-checked']);
    expect(report.uncovered.map((requirement) => requirement.id)).toEqual([
      'manifest.uncited-must',
      'search.uncited-should',
      'rules.uncited-may',
    ]);
    expect(report.testable).toHaveLength(5);
    expect(report.notTestable).toBe(1);
  });

  it('counts a level as failing together with the stricter ones', () => {
    const report = coverageOf(registry, cases, ['schema.wire-checked']);
    expect(uncoveredAtLeast(report, 'MUST').map((r) => r.id)).toEqual(['manifest.uncited-must']);
    expect(uncoveredAtLeast(report, 'SHOULD')).toHaveLength(2);
    expect(uncoveredAtLeast(report, 'MAY')).toHaveLength(3);
  });

  it('prints anchor, level, testability with its fixtures and ID, then the totals', () => {
    const text = formatCoverage(coverageOf(registry, cases));
    expect(text).toMatch(/^#manifest +MUST +needs-fixture \(canary-listener\) +manifest\.uncited-must$/m);
    expect(text).toMatch(/^#schema +MUST +black-box +schema\.wire-checked$/m);
    expect(text).toContain(
      '1 of 5 testable requirements are cited by a case; 4 are not (2 MUST, 1 SHOULD, 1 MAY); 1 are not-testable.',
    );
  });

  it('exits non-zero only when --fail-on names a level with an uncovered requirement', () => {
    const path = join(scratch, 'registry.json');
    writeFileSync(path, JSON.stringify(DOCUMENT));
    const plain = run(['--registry', path]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain('manifest.uncited-must');
    // The committed suites cite none of these invented IDs, so every testable one is uncovered.
    expect(run(['--registry', path, '--fail-on', 'MUST']).code).toBe(1);
    const onlyMay = join(scratch, 'may-only.json');
    writeFileSync(
      onlyMay,
      JSON.stringify({
        ...DOCUMENT,
        requirements: [entry('rules.uncited-may', 'MAY', { testability: 'black-box' })],
      }),
    );
    expect(run(['--registry', onlyMay, '--fail-on', 'SHOULD']).code).toBe(0);
    expect(run(['--registry', onlyMay, '--fail-on', 'MAY']).code).toBe(1);
  });

  it('refuses an unknown level or option and an unreadable registry with exit status 2', () => {
    expect(run(['--fail-on', 'MUSTNT']).code).toBe(2);
    expect(run(['--strict']).code).toBe(2);
    expect(run(['--registry', join(scratch, 'missing.json')]).code).toBe(2);
  });

  it('runs on the committed registry and suites', () => {
    const { code, stdout } = run([]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/testable requirements are cited by a case/);
  });
});

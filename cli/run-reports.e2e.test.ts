/**
 * End to end: `agentconf run --provider native --grep gateway-info` through main() against the
 * reference gateway on a real two-domain Prosody federation, then every report file the run
 * wrote must exist and validate: junit.xml against the JUnit schema, allure-results/ as Allure
 * reads them (allure-report/summary.json counts them), earl.jsonld expanding offline,
 * conformance.json against its schema, conformance.md and the transcripts. A --grep run is
 * partial: every report must say PARTIAL, never a plain PASSED.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from './io.ts';
import { main } from './main.ts';
import { parseConformanceReport } from '../runner/reports/read-conformance.ts';
import { EARL } from '../runner/reports/earl.ts';
import { earlTriples } from '../runner/reports/test-support/earl-triples.ts';
import { validateJunit } from '../runner/reports/test-support/junit-schema.ts';

const SEED = 20261129;
const root = mkdtempSync(join(tmpdir(), 'agentconf-e2e-reports-'));
const out = join(root, 'run');
let exitCode: number;
let stdout = '';
let stderr = '';

interface ResultJson {
  passed: boolean;
  partial: boolean;
  selection: { selectedCases: number; totalCases: number };
  profiles: { profile: string; claimed: boolean }[];
  seed: number;
  subject: { name: string };
  cases: { case: { id: string }; outcome: string; attempts: unknown[] }[];
}
let result: ResultJson;

beforeAll(async () => {
  process.stderr.write(`agentconf run e2e: seed ${String(SEED)}, output ${out}\n`);
  const io: CliIo = {
    out: (text) => (stdout += text),
    err: (text) => (stderr += text),
    readFile: (path) => readFileSync(path),
  };
  exitCode = await main(
    [
      'run',
      '--provider',
      'native',
      '--grep',
      'gateway-info',
      '--seed',
      String(SEED),
      '--out',
      out,
      '--allure-html',
    ],
    io,
  );
  result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as ResultJson;
}, 300_000);

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('agentconf run writes every report', () => {
  it('ran the #gateway-info cases and exits by its verdict', () => {
    expect(stderr).toBe('');
    expect(result.seed).toBe(SEED);
    expect(result.cases.length).toBeGreaterThan(0);
    expect(result.cases.every((c) => c.case.id.startsWith('gateway-info.'))).toBe(true);
    expect(exitCode).toBe(result.passed ? 0 : 1);
    expect(stdout).toContain(`conformance statement: ${join(out, 'conformance.md')}`);
    expect(stdout).toMatch(/allure report: .*allure-report\/index\.html \(\d+\.\d s\)/);
  });

  it('junit.xml validates against the JUnit schema with a testcase per case', async () => {
    const xml = readFileSync(join(out, 'junit.xml'), 'utf8');
    const verdict = await validateJunit(xml);
    expect(verdict.output).toContain('validates');
    expect(verdict.valid).toBe(true);
    // A testcase per case, and one per claimed profile.
    const claimed = result.profiles.filter((profile) => profile.claimed).length;
    expect(xml.match(/<testcase /g)).toHaveLength(result.cases.length + claimed);
    expect(xml.match(/<testcase classname='profiles' /g)).toHaveLength(claimed);
    expect(xml).toContain(
      `<property name='run.verdict' value='${result.passed ? 'PARTIAL' : 'FAILED (PARTIAL)'}'/>`,
    );
    expect(xml).toContain("<property name='run.partial' value='true'/>");
  });

  it('a --grep run is partial and every report says so', () => {
    expect(result.partial).toBe(true);
    expect(result.selection.selectedCases).toBe(result.cases.length);
    expect(result.selection.totalCases).toBeGreaterThan(result.cases.length);
    const markdown = readFileSync(join(out, 'conformance.md'), 'utf8');
    expect(markdown).toContain(
      `${String(result.cases.length)} of ${String(result.selection.totalCases)} cases (--grep gateway-info)`,
    );
    expect(markdown).not.toContain('**PASSED**');
    expect(readFileSync(join(out, 'allure-results', 'environment.properties'), 'utf8')).toMatch(
      /Run\\ verdict=(PARTIAL|FAILED \(PARTIAL\))\n/,
    );
  });

  it('allure-results/ holds a result per case, and the HTML report counted them all', () => {
    const files = readdirSync(join(out, 'allure-results'));
    const claimed = result.profiles.filter((profile) => profile.claimed).length;
    // A result per case and one per claimed profile.
    expect(files.filter((name) => name.endsWith('-result.json'))).toHaveLength(result.cases.length + claimed);
    const summary = JSON.parse(readFileSync(join(out, 'allure-report', 'summary.json'), 'utf8')) as {
      stats: { total: number; passed?: number };
    };
    expect(summary.stats.total).toBe(result.cases.length + claimed);
    expect(readFileSync(join(out, 'allure-report', 'index.html'), 'utf8')).not.toContain('googletagmanager');
  });

  it('earl.jsonld expands offline to an assertion per case with the case outcome', async () => {
    const { triples, requested } = await earlTriples(
      JSON.parse(readFileSync(join(out, 'earl.jsonld'), 'utf8')),
    );
    expect(requested).toEqual([]);
    const outcomes = triples
      .filter((t) => t.predicate === `${EARL}outcome`)
      .map((t) => t.object.slice(EARL.length));
    expect(outcomes.sort()).toEqual(result.cases.map((c) => c.outcome).sort());
  });

  it('conformance.json validates and agrees with result.json; conformance.md and transcripts exist', () => {
    const report = parseConformanceReport(readFileSync(join(out, 'conformance.json')), 'conformance.json');
    expect(report.passed).toBe(result.passed);
    expect(report.verdict).toBe(result.passed ? 'partial' : 'failed');
    expect(report.partial).toBe(true);
    expect(report.seed).toBe(SEED);
    expect(report.subject.name).toBe(result.subject.name);
    expect(report.totals.cases).toBe(result.cases.length);
    expect(report.reports['allureReport']).toBe('allure-report/index.html');
    const markdown = readFileSync(join(out, 'conformance.md'), 'utf8');
    expect(markdown).toContain(`# Conformance statement: ${result.subject.name}`);
    for (const c of result.cases.filter((entry) => entry.attempts.length > 0)) {
      expect(existsSync(join(out, 'transcripts', `${c.case.id}.txt`)), c.case.id).toBe(true);
    }
    for (const failure of report.failures) {
      expect(markdown).toContain(`### \`${failure.case}\``);
    }
  });
});

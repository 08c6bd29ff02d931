/**
 * The false-positive rate of `--strict` on a correct gateway beside a CPU hog (issue 22, item 8;
 * docs/timing.md, "False positives"): starts one busy-looping process (one core of the two this
 * project's machine has), then runs `agentconf run --strict` of the reference gateway `--runs`
 * times (seeds 1, 2, …), whole or limited by `--grep`, and counts the runs whose claimed profiles
 * did not all pass. It also gathers every timing comparison of those runs — its largest |t| and
 * its effect as a fraction of the fast round trip (p10) — which is the calibration data of the minimum effect
 * size: on a correct gateway, how large does a "significant" difference get?
 *
 *   node bin/run-ts.js bench/timing-false-positives.ts [--runs 20] [--grep ID]… [--no-hog]
 *     [--sut FILE] [--first-seed 1] [--json FILE]
 *
 * Other processes on the machine load it further; the load average is printed with each run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { agentconfExitCode } from '../cli/agentconf-child.ts';

interface ResultJson {
  readonly profiles: readonly {
    readonly profile: string;
    readonly claimed: boolean;
    readonly verdict: string;
    readonly reason?: string;
  }[];
  readonly cases: readonly {
    readonly case: { readonly id: string };
    readonly outcome: string;
    readonly attempts: readonly {
      readonly reason?: string;
      readonly warnings: readonly { readonly message: string }[];
      readonly transcriptText: string;
    }[];
  }[];
}

/** One timing comparison as its transcript note states it. */
interface TimingFigure {
  readonly case: string;
  readonly labels: string;
  readonly verdict: string;
  readonly maxT: number;
  /** The strongest test's effect, as a fraction of the fast round trip (p10). */
  readonly effect: number;
  readonly p10: number;
}

interface RunFigures {
  readonly seed: number;
  readonly load: number;
  readonly seconds: number;
  readonly exitCode: number;
  /** Claimed profiles that did not pass, with the cases that made them fail. */
  readonly notPassed: readonly string[];
  /** Cases that failed, or carried a warning (a SHOULD finding, which --strict fails). */
  readonly findings: readonly string[];
  readonly timing: readonly TimingFigure[];
}

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '20' },
    grep: { type: 'string', multiple: true },
    'no-hog': { type: 'boolean', default: false },
    sut: { type: 'string' },
    'first-seed': { type: 'string', default: '1' },
    json: { type: 'string' },
  },
});
const runs = Number(values.runs);
const firstSeed = Number(values['first-seed']);

function startHog(): ChildProcess {
  const hog = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
  hog.on('error', (error) => {
    console.error(`the CPU hog did not start: ${error.message}`);
  });
  return hog;
}

function agentconf(seed: number, out: string): Promise<number> {
  const argv = ['run', '--strict', '--provider', 'native', '--seed', String(seed), '--out', out];
  if (values.sut !== undefined) argv.push('--sut', values.sut);
  for (const pattern of values.grep ?? []) argv.push('--grep', pattern);
  return agentconfExitCode(argv);
}

const NOTE =
  /note timing: (.+?): (leak|no evidence|no finding|inconclusive).*?: max \|t\| = ([\d.]+|Infinity) \(.*?effect ([\d.]+|Infinity) × p10 ([\d.]+) µs\)/u;

function timingFigures(id: string, transcript: string): TimingFigure[] {
  return transcript.split('\n').flatMap((line) => {
    const match = NOTE.exec(line);
    if (match === null) return [];
    return [
      {
        case: id,
        labels: match[1] ?? '',
        verdict: match[2] ?? '',
        maxT: Number(match[3]),
        effect: Number(match[4]),
        p10: Number(match[5]),
      },
    ];
  });
}

async function runOnce(seed: number): Promise<RunFigures> {
  const out = mkdtempSync(join(tmpdir(), 'agentconf-timing-fp-'));
  const load = loadavg()[0] ?? Number.NaN;
  const started = performance.now();
  try {
    const exitCode = await agentconf(seed, out);
    const seconds = (performance.now() - started) / 1000;
    let result: ResultJson;
    try {
      result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as ResultJson;
    } catch {
      return { seed, load, seconds, exitCode, notPassed: ['no result.json'], findings: [], timing: [] };
    }
    // A --grep run leaves most profiles without a MUST case (not-assessed): that is no finding.
    const notPassed = result.profiles
      .filter(
        (entry) =>
          entry.claimed &&
          entry.verdict !== 'passed' &&
          !(values.grep !== undefined && entry.verdict === 'not-assessed'),
      )
      .map((entry) => `${entry.profile}: ${entry.verdict} (${entry.reason ?? ''})`);
    const findings = result.cases.flatMap((entry) => {
      const attempt = entry.attempts.at(-1);
      if (attempt === undefined) return [];
      if (entry.outcome === 'failed') return [`${entry.case.id}: failed: ${attempt.reason ?? ''}`];
      return attempt.warnings.map((warning) => `${entry.case.id}: warning: ${warning.message}`);
    });
    const timing = result.cases.flatMap((entry) =>
      timingFigures(entry.case.id, entry.attempts.at(-1)?.transcriptText ?? ''),
    );
    return { seed, load, seconds, exitCode, notPassed, findings, timing };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

const hog = values['no-hog'] ? undefined : startHog();
const figures: RunFigures[] = [];
try {
  for (let seed = firstSeed; seed < firstSeed + runs; seed += 1) {
    const run = await runOnce(seed);
    figures.push(run);
    const verdict = falsePositive(run) ? `NOT PASSED (exit ${String(run.exitCode)})` : 'passed';
    console.info(
      `seed ${String(seed)}: ${verdict} (load ${run.load.toFixed(1)}, ${run.seconds.toFixed(1)} s, ${String(run.timing.length)} timing comparisons, largest |t| ${Math.max(0, ...run.timing.map((t) => t.maxT)).toFixed(1)})`,
    );
    for (const line of [...run.notPassed, ...run.findings]) console.info(`    ${line.slice(0, 600)}`);
  }
} finally {
  hog?.kill();
}

/** A run of a correct gateway that reported anything but a pass: a false positive. */
function falsePositive(run: RunFigures): boolean {
  if (values.grep === undefined) return run.exitCode !== 0;
  return run.notPassed.length > 0 || run.findings.length > 0 || ![0, 1].includes(run.exitCode);
}

const failing = figures.filter(falsePositive);
const timing = figures.flatMap((run) => run.timing);
const significant = timing.filter((t) => t.maxT >= 5);
const effects = timing.map((t) => t.effect).toSorted((x, y) => x - y);
const quantile = (p: number): number =>
  effects[Math.min(effects.length - 1, Math.floor(p * effects.length))] ?? NaN;
console.info('');
console.info(
  `${values['no-hog'] ? 'no hog' : 'beside one CPU hog'}: ${String(failing.length)} of ${String(figures.length)} --strict runs did not pass: false-positive rate ${((100 * failing.length) / Math.max(1, figures.length)).toFixed(1)} %`,
);
if (timing.length > 0) {
  console.info(
    `timing comparisons: ${String(timing.length)}; |t| ≥ 5 in ${String(significant.length)} (effects ${significant.map((t) => t.effect.toFixed(3)).join(', ') || '–'}); effect (fraction of the fast round trip): median ${quantile(0.5).toFixed(3)}, 95th percentile ${quantile(0.95).toFixed(3)}, largest ${(effects.at(-1) ?? NaN).toFixed(3)}`,
  );
}
if (values.json !== undefined) writeFileSync(values.json, `${JSON.stringify(figures, null, 2)}\n`);

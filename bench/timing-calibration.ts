/**
 * Calibrates the timing cases (issue 14 item 2; docs/timing.md) with a planted leak: the reference
 * gateway patched to spin d µs on lookups of hidden endpoints and of task IDs the caller may not
 * use (harness/sut/test-support/planted-timing-leak.ts). For each d, from large to small, it runs
 * `agentconf run --grep <cases>` against that variant `--repeats` times (seeds 1, 2, …) and counts
 * a case as detecting the leak when it carries the timing warning (a SHOULD: the warning, not a
 * failure, is the verdict). The smallest d every repeat detected is the calibration figure. With
 * --reference it first runs the unpatched gateway the same number of times, whose cases must show
 * no leak (a false alarm would make the figures meaningless).
 *
 *   node bin/run-ts.js bench/timing-calibration.ts [--deep] [--grep ID]… [--repeats N]
 *     [--delays 3200,1600,…] [--reference] [--json FILE]
 *
 * Each run starts its own federation; the machine's load average is printed with each run,
 * because on a shared machine it decides the figures more than anything else.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { agentconfVerdictRun } from '../cli/agentconf-child.ts';
import { REPO_ROOT } from '../harness/repo-root.ts';
import { buildSourceVariant } from '../harness/sut/source-variant.ts';
import { plantedTimingLeak } from '../harness/sut/test-support/planted-timing-leak.ts';

interface CaseFigures {
  readonly id: string;
  readonly outcome: string;
  readonly detected: boolean;
  readonly seconds: number;
  readonly iterations: number | undefined;
  /** The case's timing warning, or the last timing note of its transcript. */
  readonly summary: string;
}

interface RunFigures {
  readonly delayMicros: number;
  readonly seed: number;
  readonly load: number;
  readonly seconds: number;
  readonly cases: readonly CaseFigures[];
}

interface ResultJson {
  readonly cases: readonly {
    readonly case: { readonly id: string };
    readonly outcome: string;
    readonly attempts: readonly {
      readonly durationMs: number;
      readonly reason?: string;
      readonly iterations?: number;
      readonly warnings: readonly { readonly message: string }[];
      readonly transcriptText: string;
    }[];
  }[];
}

const { values } = parseArgs({
  options: {
    deep: { type: 'boolean', default: false },
    grep: { type: 'string', multiple: true },
    repeats: { type: 'string', default: '3' },
    delays: { type: 'string' },
    reference: { type: 'boolean', default: false },
    json: { type: 'string' },
  },
});
const grep = values.grep ?? ['privacy.not-found-timing'];
const repeats = Number(values.repeats);
const delays = (values.delays ?? (values.deep ? '400,200,100,50,25,12' : '6400,3200,1600,800,400,200,100'))
  .split(',')
  .map(Number);

/** The variant's copy with its SUT file, as integration/variants/gateway-variants.ts builds one. */
function buildLeakVariant(delayMicros: number): { readonly sutFile: string; remove(): void } {
  const spec = plantedTimingLeak(delayMicros);
  const sut = JSON.parse(
    readFileSync(join(REPO_ROOT, 'fixtures', 'sut', 'reference-gateway.json'), 'utf8'),
  ) as {
    name: string;
  };
  sut.name = `reference gateway variant ${spec.name}`;
  const sutPath = join('fixtures', 'sut', `${spec.name}.json`);
  const built = buildSourceVariant(REPO_ROOT, {
    ...spec,
    addFiles: { ...spec.addFiles, [sutPath]: `${JSON.stringify(sut, null, 2)}\n` },
  });
  return {
    sutFile: join(built.root, sutPath),
    remove: () => {
      built.remove();
    },
  };
}

function agentconf(sutFile: string | undefined, seed: number, out: string): Promise<void> {
  const argv = ['--provider', 'native', '--seed', String(seed), '--out', out];
  if (sutFile !== undefined) argv.push('--sut', sutFile);
  for (const pattern of grep) argv.push('--grep', pattern);
  if (values.deep) argv.push('--deep');
  // Exit 1 is a verdict (a SHOULD warning under --strict, or another claimed profile): read the result.
  return agentconfVerdictRun(argv);
}

async function runOnce(delayMicros: number, sutFile: string | undefined, seed: number): Promise<RunFigures> {
  const out = mkdtempSync(join(tmpdir(), 'agentconf-timing-calibration-'));
  const load = loadavg()[0] ?? Number.NaN;
  const started = performance.now();
  try {
    await agentconf(sutFile, seed, out);
    const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as ResultJson;
    const cases = result.cases
      .filter((entry) => entry.attempts.length > 0)
      .map((entry): CaseFigures => {
        const attempt = entry.attempts.at(-1);
        const warning = attempt?.warnings.find((found) => found.message.includes('differ in timing'));
        const reason = entry.outcome === 'passed' ? '' : `${entry.outcome}: ${attempt?.reason ?? ''} | `;
        const notes = (attempt?.transcriptText ?? '')
          .split('\n')
          .filter((line) => line.includes('note timing: '));
        return {
          id: entry.case.id,
          outcome: entry.outcome,
          // Only the timing finding counts: a case that failed otherwise (a timeout) detected nothing.
          detected: warning !== undefined,
          seconds: (attempt?.durationMs ?? 0) / 1000,
          iterations: attempt?.iterations,
          summary:
            reason +
            (warning?.message ?? notes.map((line) => line.split('note timing: ')[1] ?? '').join(' | ')),
        };
      });
    return { delayMicros, seed, load, seconds: (performance.now() - started) / 1000, cases };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

function print(run: RunFigures): void {
  const label = run.delayMicros === 0 ? 'reference' : `d = ${String(run.delayMicros)} µs`;
  console.info(
    `${label}, seed ${String(run.seed)}, load ${run.load.toFixed(1)}, ${run.seconds.toFixed(1)} s:`,
  );
  for (const figures of run.cases) {
    console.info(
      `  ${figures.id}: ${figures.detected ? 'LEAK' : 'no leak'} (${figures.outcome}, ${String(figures.iterations ?? '-')} rounds, ${figures.seconds.toFixed(1)} s)`,
    );
    for (const line of figures.summary.split(' | ')) console.info(`      ${line.slice(0, 400)}`);
  }
}

const runs: RunFigures[] = [];
if (values.reference) {
  for (let seed = 1; seed <= repeats; seed += 1) {
    const run = await runOnce(0, undefined, seed);
    print(run);
    runs.push(run);
  }
}
let smallest: number | undefined;
for (const delay of delays) {
  const variant = buildLeakVariant(delay);
  let everyRepeat = true;
  try {
    for (let seed = 1; seed <= repeats; seed += 1) {
      const run = await runOnce(delay, variant.sutFile, seed);
      print(run);
      runs.push(run);
      if (!run.cases.every((figures) => figures.detected)) everyRepeat = false;
      if (!everyRepeat) break;
    }
  } finally {
    variant.remove();
  }
  if (!everyRepeat) break;
  smallest = delay;
}
console.info(
  `smallest planted delay detected by every case in ${String(repeats)} of ${String(repeats)} runs${values.deep ? ' (--deep)' : ''}: ${smallest === undefined ? `none of ${delays.join(', ')} µs` : `${String(smallest)} µs`}`,
);
if (values.json !== undefined) {
  writeFileSync(
    values.json,
    `${JSON.stringify({ deep: values.deep, grep, repeats, smallest, runs }, null, 2)}\n`,
  );
}

/**
 * How many schedules a race case needs by default (issue 22, item 8): for every mutant of the
 * catalog whose focused cases are schedule races (support/task-history.ts `checkRaces`), it runs
 * those cases against the mutant's copy under `--deep` (up to 60 schedules) for seeds 1…N and
 * reads, from each case's transcript, the first schedule whose history violated the task model.
 * fast-check draws the i-th schedule from the seed and i alone, so a default budget of k schedules
 * catches the mutant under a seed exactly when that first failing schedule is ≤ k: one deep run per
 * seed gives the whole curve. The table prints, per mutant, the share of seeds caught within k
 * schedules, and the smallest k that reaches the target (95 %).
 *
 *   node bin/run-ts.js mutants/race-schedules.ts [--seeds 20] [--only NAME]… [--target 0.95] [--json FILE]
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { agentconfVerdictRun } from '../cli/agentconf-child.ts';
import { buildGatewayVariant } from '../integration/variants/gateway-variants.ts';
import { MUTANTS } from './catalog.ts';
import type { Mutant } from './mutant.ts';

/** The cases that run schedule races (their `checkRaces` budget is what this bench sizes). */
export const RACE_CASES = [
  'task-states.race-state-queries',
  'interactive-input.race-input-vs-expiry',
  'interactive-input.race-input-vs-cancel',
  'cancellation.race-cancel-vs-completion',
  'cancellation.race-deadline-vs-completion',
  'idempotency.race-duplicate-invokes',
] as const;

interface ResultJson {
  readonly cases: readonly {
    readonly case: { readonly id: string };
    readonly outcome: string;
    readonly attempts: readonly { readonly transcriptText: string; readonly durationMs: number }[];
  }[];
}

interface SeedFigures {
  readonly seed: number;
  readonly load: number;
  readonly seconds: number;
  /** The first schedule whose history broke the model, per case; undefined: none in the budget. */
  readonly firstFailing: Readonly<Record<string, number | undefined>>;
  readonly outcomes: Readonly<Record<string, string>>;
}

const { values } = parseArgs({
  options: {
    seeds: { type: 'string', default: '20' },
    only: { type: 'string', multiple: true },
    target: { type: 'string', default: '0.95' },
    json: { type: 'string' },
  },
});
const seeds = Number(values.seeds);
const target = Number(values.target);

function raceMutants(): Mutant[] {
  return MUTANTS.filter(
    (mutant) =>
      mutant.equivalent === undefined &&
      mutant.grep.some((pattern) => (RACE_CASES as readonly string[]).includes(pattern)) &&
      (values.only === undefined || values.only.includes(mutant.name)),
  );
}

function agentconf(sutFile: string, grep: readonly string[], seed: number, out: string): Promise<void> {
  const argv = ['--provider', 'native', '--deep', '--seed', String(seed), '--out', out, '--sut', sutFile];
  for (const pattern of grep) argv.push('--grep', pattern);
  return agentconfVerdictRun(argv);
}

/** "schedule 7: … → …; 1 violation(s)" or a schedule that ended in a requirement violation. */
function firstFailingSchedule(transcript: string): number | undefined {
  for (const line of transcript.split('\n')) {
    const match = /schedule (\d+): .*→ (.*)$/u.exec(line);
    if (match === null) continue;
    const verdict = match[2] ?? '';
    if (/\d+ violation\(s\)$/u.test(verdict) || verdict.startsWith('RequirementViolation'))
      return Number(match[1]);
  }
  return undefined;
}

async function runSeed(sutFile: string, grep: readonly string[], seed: number): Promise<SeedFigures> {
  const out = mkdtempSync(join(tmpdir(), 'agentconf-race-schedules-'));
  const load = loadavg()[0] ?? Number.NaN;
  const started = performance.now();
  try {
    await agentconf(sutFile, grep, seed, out);
    const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as ResultJson;
    const firstFailing: Record<string, number | undefined> = {};
    const outcomes: Record<string, string> = {};
    for (const entry of result.cases) {
      if (!(RACE_CASES as readonly string[]).includes(entry.case.id)) continue;
      firstFailing[entry.case.id] = firstFailingSchedule(entry.attempts.at(-1)?.transcriptText ?? '');
      outcomes[entry.case.id] = entry.outcome;
    }
    return { seed, load, seconds: (performance.now() - started) / 1000, firstFailing, outcomes };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** The earliest failing schedule over the mutant's race cases (the mutant dies at the first). */
function earliest(figures: SeedFigures): number | undefined {
  const found = Object.values(figures.firstFailing).filter((value) => value !== undefined);
  return found.length === 0 ? undefined : Math.min(...found);
}

const K = [1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 60];
const table: { mutant: string; perSeed: SeedFigures[] }[] = [];
for (const mutant of raceMutants()) {
  const grep = mutant.grep.filter((pattern) => (RACE_CASES as readonly string[]).includes(pattern));
  const built = buildGatewayVariant(mutant);
  const perSeed: SeedFigures[] = [];
  try {
    for (let seed = 1; seed <= seeds; seed += 1) {
      let figures: SeedFigures;
      try {
        figures = await runSeed(built.sutFile, grep, seed);
      } catch (error) {
        // A run that could not judge says nothing about the schedules: reported, not counted.
        console.info(`${mutant.name} seed ${String(seed)}: not judged (${String(error)})`);
        continue;
      }
      perSeed.push(figures);
      console.info(
        `${mutant.name} seed ${String(seed)} (load ${figures.load.toFixed(1)}, ${figures.seconds.toFixed(1)} s): first failing schedule ${String(earliest(figures) ?? 'none')} ${JSON.stringify(figures.outcomes)}`,
      );
    }
  } finally {
    built.remove();
  }
  table.push({ mutant: mutant.name, perSeed });
}

console.info('');
console.info(
  `| mutant | ${K.map((k) => `k=${String(k)}`).join(' | ')} | smallest k ≥ ${String(target * 100)} % |`,
);
console.info(`| --- | ${K.map(() => '---').join(' | ')} | --- |`);
for (const row of table) {
  const first = row.perSeed.map(earliest);
  const share = (k: number): number =>
    first.filter((value) => value !== undefined && value <= k).length / first.length;
  const enough = K.find((k) => share(k) >= target);
  console.info(
    `| ${row.mutant} (${String(first.length)} seeds) | ${K.map((k) => `${(share(k) * 100).toFixed(0)} %`).join(' | ')} | ${enough === undefined ? 'none ≤ 60' : String(enough)} |`,
  );
}
if (values.json !== undefined) writeFileSync(values.json, `${JSON.stringify(table, null, 2)}\n`);

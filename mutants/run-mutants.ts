/**
 * npm run mutants [-- --only ID]... [--seed N] [--budget-minutes M] [--list]
 *
 * Judges every mutant of the catalog (catalog.ts) with a focused `agentconf run` (in-process,
 * native federation, the mutant's --grep) against a patched copy of the tree, one at a time,
 * and prints a table: mutant, requirement, the case that killed it with the requirement that
 * case cited (or SURVIVED), time. Exits 1 on a survivor the catalog does not mark equivalent, a
 * patch that no longer applies, or a run that could not judge.
 *
 * --budget-minutes M takes the catalog in an order shuffled by the seed and stops before the
 * next mutant would overrun M minutes: a CI subset that rotates with the seed.
 */
import { parseArgs } from 'node:util';
import { REPO_ROOT } from '../harness/repo-root.ts';
import { PatchDoesNotApply } from '../harness/sut/source-variant.ts';
import { buildGatewayVariant } from '../integration/variants/gateway-variants.ts';
import { runAgentconf } from '../integration/variants/run-agentconf.ts';
import { freshSeed, isSeed } from '../suites/framework/seeded-random.ts';
import { MUTANTS } from './catalog.ts';
import { checkPatches, exitCodeOf, formatTable, rowIsClean, selectMutants, summaryOf } from './judge.ts';
import type { Mutant } from './mutant.ts';
import { runMutants } from './runner.ts';

const USAGE =
  'usage: npm run mutants -- [--only ID]... [--seed N] [--budget-minutes M] [--list]\n' +
  '  --only ID            judge only this mutant (repeatable)\n' +
  "  --seed N             the runs' seed, and the order of a budgeted subset\n" +
  '  --budget-minutes M   a subset that fits M minutes, in a seeded order (CI: 10)\n' +
  '  --list               print the catalog and check every patch applies; runs nothing\n';

function list(mutants: readonly Mutant[]): number {
  let stale = 0;
  for (const mutant of mutants) {
    let state = 'applies';
    try {
      checkPatches(mutant, REPO_ROOT);
    } catch (error) {
      if (!(error instanceof PatchDoesNotApply)) throw error;
      state = `PATCH DOES NOT APPLY: ${error.message}`;
      stale += 1;
    }
    const flags = [
      mutant.profile,
      mutant.scenario,
      mutant.bugClass,
      ...(mutant.strict === true ? ['--strict'] : []),
      ...(mutant.deep === true ? ['--deep'] : []),
      ...(mutant.equivalent === undefined ? [] : ['equivalent']),
    ];
    console.log(`${mutant.name}  [${flags.join(', ')}]  ${mutant.requirements.join(' ')}`);
    console.log(`    ${mutant.change}`);
    console.log(`    --grep ${mutant.grep.join(' --grep ')}; ${state}`);
  }
  console.log(`${String(mutants.length)} mutants, ${String(stale)} whose patches no longer apply`);
  return stale === 0 ? 0 : 1;
}

async function main(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        only: { type: 'string', multiple: true },
        seed: { type: 'string' },
        'budget-minutes': { type: 'string' },
        list: { type: 'boolean' },
        help: { type: 'boolean' },
      },
      strict: true,
    }));
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 2;
  }
  if (values.help === true) {
    process.stdout.write(USAGE);
    return 0;
  }
  const seed = values.seed === undefined ? freshSeed() : Number(values.seed);
  const budgetMinutes = values['budget-minutes'] === undefined ? undefined : Number(values['budget-minutes']);
  if (!isSeed(seed) || (budgetMinutes !== undefined && !(budgetMinutes > 0))) {
    process.stderr.write(
      `--seed takes an integer 0..4294967295, --budget-minutes a positive number\n${USAGE}`,
    );
    return 2;
  }
  const selected = selectMutants(MUTANTS, {
    seed,
    ...(values.only === undefined ? {} : { only: values.only }),
    ...(budgetMinutes === undefined ? {} : { budgetMinutes }),
  });
  if (values.list === true) return list(selected);

  const budget = budgetMinutes === undefined ? '' : `, budget ${String(budgetMinutes)} min`;
  console.log(
    `${String(selected.length)} mutants, seed ${String(seed)}${budget} (replay with --seed ${String(seed)})`,
  );
  const { rows, skipped } = await runMutants(selected, {
    root: REPO_ROOT,
    ...(budgetMinutes === undefined ? {} : { budgetMinutes }),
    judge: async (mutant) => {
      const built = buildGatewayVariant(mutant);
      try {
        const run = await runAgentconf({
          sut: built.sutFile,
          grep: mutant.grep,
          seed,
          ...(mutant.strict === true ? { strict: true } : {}),
          ...(mutant.deep === true ? { deep: true } : {}),
        });
        return run.result;
      } finally {
        built.remove();
      }
    },
    onRow: (row, index, total) => {
      const mark = rowIsClean(row) ? 'ok' : 'NOT OK';
      console.log(
        `[${String(index + 1)}/${String(total)}] ${row.mutant.name}: ${row.verdict.kind} ${mark} (${row.seconds.toFixed(1)} s)`,
      );
    },
  });
  console.log('');
  console.log(formatTable(rows));
  console.log('');
  if (skipped.length > 0) {
    console.log(
      `budget: ${String(skipped.length)} mutants left for another seed: ${skipped.map((mutant) => mutant.name).join(' ')}`,
    );
  }
  console.log(summaryOf(rows));
  return exitCodeOf(rows);
}

process.exitCode = await main(process.argv.slice(2));

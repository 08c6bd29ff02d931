/**
 * `npm run registry:coverage -- [--fail-on MUST|SHOULD|MAY] [--registry FILE]`
 * Lists the testable requirements no suite case cites. Exit status: 0 (also with uncovered
 * requirements, unless --fail-on says otherwise), 1 when --fail-on LEVEL is given and a
 * requirement of that level or a stricter one is uncovered, 2 for usage errors or an unreadable
 * registry. Run directly (bin/run-ts.js) it is the command; imported (tests) it only exports
 * the runner.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseCheckArgs, type CheckCliIo } from '../../protocol/cli/check-args.ts';
import { WIRE_CHECK_REQUIREMENTS } from '../framework/wire-checks.ts';
import { ALL_SUITES } from '../index.ts';
import { ALL_CALLER_SUITES } from '../caller/index.ts';
import { coverageOf, formatCoverage, uncoveredAtLeast } from './coverage.ts';
import { formatProfileGaps, profileGaps } from './profile-coverage.ts';
import {
  classCoverageOf,
  formatClassCoverage,
  InputClassesError,
  loadInputClasses,
} from './input-classes.ts';
import {
  loadRegistry,
  REGISTRY_PATH,
  RegistryError,
  type Registry,
  type RequirementLevel,
} from './registry.ts';

const USAGE = 'usage: npm run registry:coverage -- [--fail-on MUST|SHOULD|MAY] [--registry FILE]\n';
const LEVELS: readonly RequirementLevel[] = ['MUST', 'SHOULD', 'MAY'];

function isLevel(text: string): text is RequirementLevel {
  return (LEVELS as readonly string[]).includes(text);
}

export function runCoverageCli(argv: readonly string[], io: CheckCliIo): 0 | 1 | 2 {
  const values = parseCheckArgs(
    argv,
    { 'fail-on': { type: 'string' }, registry: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    USAGE,
    io,
  );
  if (values === 0 || values === 2) return values;
  const failOn = values['fail-on'];
  if (failOn !== undefined && !isLevel(failOn)) {
    io.stderr(`--fail-on takes MUST, SHOULD or MAY, not ${JSON.stringify(failOn)}\n${USAGE}`);
    return 2;
  }
  let registry: Registry;
  try {
    registry = loadRegistry(values.registry === undefined ? REGISTRY_PATH : resolve(values.registry));
  } catch (error) {
    if (!(error instanceof RegistryError) && !(error instanceof Error && 'code' in error)) throw error;
    io.stderr(`cannot load the registry: ${error.message}\n`);
    return 2;
  }
  // The wire checks run on every case's traffic, so what they enforce counts as cited.
  // Caller cases (suites/caller/) cite the caller requirements an assessment judges.
  const report = coverageOf(
    registry,
    [...ALL_SUITES.flatMap((suite) => suite.cases), ...ALL_CALLER_SUITES.flatMap((suite) => suite.cases)],
    WIRE_CHECK_REQUIREMENTS,
  );
  io.stdout(formatCoverage(report));
  // Cited is not enough for a single-profile claim: the citing case must count toward it.
  io.stdout(
    `\nPer profile:\n${formatProfileGaps(
      profileGaps(
        registry,
        ALL_SUITES.flatMap((suite) => suite.cases),
        WIRE_CHECK_REQUIREMENTS,
      ),
    )}`,
  );
  // The input classes (input-classes.json) are checked against the committed registry only.
  if (values.registry === undefined) {
    try {
      const classes = loadInputClasses(registry, [
        ...ALL_SUITES.flatMap((suite) => suite.cases),
        ...ALL_CALLER_SUITES.flatMap((suite) => suite.cases),
      ]);
      io.stdout(`\n${formatClassCoverage(classCoverageOf(classes))}`);
    } catch (error) {
      if (!(error instanceof InputClassesError)) throw error;
      io.stderr(`${error.message}\n`);
      return 2;
    }
  }
  if (failOn === undefined) return 0;
  const failing = uncoveredAtLeast(report, failOn);
  if (failing.length === 0) return 0;
  io.stderr(`${String(failing.length)} uncovered requirement(s) at ${failOn} level or stricter\n`);
  return 1;
}

const invokedPath = process.argv[1];
if (invokedPath !== undefined && import.meta.url === pathToFileURL(invokedPath).href) {
  process.exitCode = runCoverageCli(process.argv.slice(2), {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  });
}

/**
 * Everything `agentconf run` reads before it starts anything, each input checked: a bad file, a
 * selection that runs nothing, or a baseline naming cases that do not exist is a mistake in the
 * command (exit 2), not a verdict about the gateway.
 */
import { resolve } from 'node:path';
import type { JsonValue } from '../../protocol/json/json-value.ts';
import { withImpliedProfiles } from '../../protocol/profiles.ts';
import type { ExternalFederationConfig } from '../../harness/federation/external-provider.ts';
import type { SutConfig } from '../../harness/sut/sut-config.ts';
import type { ServerStack } from '../../harness/federation/server-provider.ts';
import type { ConformanceCase } from '../../suites/framework/case.ts';
import { ALL_CALLER_SUITES } from '../../suites/caller/index.ts';
import { ALL_SUITES } from '../../suites/index.ts';
import { BaselineError, loadBaseline } from '../../runner/baseline.ts';
import { unknownBaselineEntries, type Baseline } from '../../runner/profile-verdicts.ts';
import { selectCallerCases } from '../../runner/run-callers.ts';
import { selectCases, type CaseSelection } from '../../runner/select-cases.ts';
import { EXIT, readInput, UsageError, type CliIo } from '../io.ts';
import type { OptionValues } from '../options.ts';
import {
  DEFAULT_SUT,
  DEFAULT_WORLD,
  checkExternalProvider,
  readExternalFederationFile,
  readSutConfigFile,
  readWorldFile,
} from '../run-inputs.ts';
import type { RUN_SPEC } from '../run-spec.ts';
import { requestedServerStack } from '../server-stack.ts';

export type RunValues = OptionValues<(typeof RUN_SPEC)['options']>;

type Invalid = typeof EXIT.usage;

export interface RunInputs {
  readonly config: SutConfig;
  /** The servers' implementations asked for (--server-a, --server-b); a provider's own default for the rest. */
  readonly servers: ServerStack;
  readonly worldPath: string;
  readonly world: JsonValue | undefined;
  readonly external: ExternalFederationConfig | undefined;
  readonly baseline: Baseline | undefined;
  readonly selection: CaseSelection;
  /** The selected cases in suite order (never empty). */
  readonly cases: readonly ConformanceCase[];
}

/** The gateway's world, read only when the SUT loads one or the run provisions it (admin-iq). */
function readWorldOf(
  io: CliIo,
  config: SutConfig,
  worldPath: string,
): { world: JsonValue | undefined } | Invalid {
  // admin-iq: the run provisions this world over Administrative Provisioning (runner/admin-fixtures.ts).
  if (config.fixtures !== 'world-file' && config.fixtures !== 'admin-iq') return { world: undefined };
  return readWorldFile(io, worldPath);
}

function readBaselineFile(io: CliIo, path: string | undefined): { baseline: Baseline | undefined } | Invalid {
  if (path === undefined) return { baseline: undefined };
  try {
    return { baseline: loadBaseline(readInput(io, path, '--baseline'), path) };
  } catch (error) {
    if (!(error instanceof BaselineError)) throw error;
    io.err(`invalid: ${error.message}\n`);
    return EXIT.usage;
  }
}

/**
 * The gateway cases --grep and --profile select; selecting none is a usage mistake, unless the
 * SUT file declares a caller and --grep selects caller cases (they run after the gateway's).
 */
function selectedCases(values: RunValues, selection: CaseSelection, config: SutConfig): ConformanceCase[] {
  const cases = selectCases(ALL_SUITES, selection).flatMap((selected) => selected.cases);
  const callerCases =
    config.caller === undefined || values.grep.length === 0
      ? 0
      : selectCallerCases(ALL_CALLER_SUITES, values.grep).length;
  if (cases.length === 0 && callerCases === 0) {
    const asked = [...values.grep.map((g) => `--grep ${g}`), ...values.profile.map((p) => `--profile ${p}`)];
    throw new UsageError(
      `${asked.join(' ')} selects no case (case IDs: agentconf run prints them per section)`,
    );
  }
  return cases;
}

export function readRunInputs(values: RunValues, io: CliIo): RunInputs | Invalid {
  checkExternalProvider(values.provider, values.external);
  const servers = requestedServerStack(values);
  const config = readSutConfigFile(io, values.sut ?? DEFAULT_SUT);
  if (config === EXIT.usage) return EXIT.usage;
  const worldPath = resolve(values.world ?? DEFAULT_WORLD);
  const world = readWorldOf(io, config, worldPath);
  if (world === EXIT.usage) return EXIT.usage;
  const external =
    values.external === undefined ? undefined : readExternalFederationFile(io, values.external);
  if (external === EXIT.usage) return EXIT.usage;
  const baseline = readBaselineFile(io, values.baseline);
  if (baseline === EXIT.usage) return EXIT.usage;
  const selection: CaseSelection = {
    ...(values.grep.length === 0 ? {} : { grep: values.grep }),
    profiles: values.profile,
  };
  const cases = selectedCases(values, selection, config);
  const unknown = unknownBaselineEntries(
    ALL_SUITES.flatMap((suite) => suite.cases.map((testCase) => testCase.id)),
    baseline.baseline,
  );
  if (unknown.length > 0) {
    io.err(
      `invalid: ${values.baseline ?? 'the baseline'} names cases the suites do not have: ${unknown.join(', ')}\n`,
    );
    return EXIT.usage;
  }
  const claimedProfiles = new Set(withImpliedProfiles(config.profiles));
  for (const profile of values.profile.filter((p) => !claimedProfiles.has(p))) {
    io.err(`warning: --profile ${profile}: ${config.name} does not claim it, so its cases will not run\n`);
  }
  return {
    config,
    servers,
    worldPath,
    world: world.world,
    external,
    baseline: baseline.baseline,
    selection,
    cases,
  };
}

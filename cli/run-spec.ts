/** The options of `agentconf run` (cli/options.ts) and the defaults computed from them. */
import { PROVIDER_CHOICES } from '../harness/federation/auto-provider.ts';
import { SERVER_STACK_OPTIONS } from './server-stack.ts';
import { PROFILE_IDS } from '../protocol/profiles.ts';
import type { CommandSpec } from './options.ts';

/** `--seed N`: the run seed, shared by every command that runs cases. */
export const SEED_OPTION = {
  type: 'integer',
  valueName: 'N',
  min: 0,
  max: 4_294_967_295,
  description: 'the run seed, to replay a run',
  defaultText: 'a fresh one, printed',
} as const;

/**
 * The default --timeout of one run. The default run takes about half a minute against the
 * reference gateway (docs/suites.md) and a slower gateway with longer documented timeouts a few
 * times that; 15 min is some 30 times the reference run, so only a stuck run meets it, and it
 * still ends within a CI job's usual limit.
 */
export const RUN_TIMEOUT_MS = 15 * 60_000;
/** --deep took 7 times the default budgets' time (179 s against 26 s): the limit grows with it. */
export const DEEP_TIMEOUT_FACTOR = 8;

/** The limit for the whole command: each of --repeat's runs is a whole run. */
export function defaultTimeoutMs(deep: boolean, repeat: number): number {
  return RUN_TIMEOUT_MS * (deep ? DEEP_TIMEOUT_FACTOR : 1) * repeat;
}

export const RUN_SPEC = {
  name: 'run',
  summary:
    'run the conformance suites against a gateway (default: the reference gateway) and report per profile',
  usage: ['run'],
  options: {
    sut: {
      type: 'string',
      valueName: 'FILE',
      description: 'the gateway under test (docs/sut.md)',
      defaultText: 'fixtures/sut/reference-gateway.json, the reference gateway',
    },
    world: {
      type: 'string',
      valueName: 'FILE',
      description: 'the fixture world of a world-file or admin-iq gateway',
      defaultText: 'fixtures/worlds/reference.json',
    },
    profile: {
      type: 'choice',
      valueName: 'P',
      choices: PROFILE_IDS,
      multiple: true,
      description: 'run only the cases of this profile',
    },
    grep: {
      type: 'string',
      valueName: 'TEXT',
      multiple: true,
      description: 'run only the cases whose ID or requirement IDs contain TEXT',
    },
    strict: { type: 'boolean', description: 'SHOULD findings fail their profile like MUST ones' },
    deep: { type: 'boolean', description: "raise every adversarial case's budget (about 7 times longer)" },
    provider: {
      type: 'choice',
      valueName: 'P',
      choices: PROVIDER_CHOICES,
      default: 'auto',
      description: 'how the federation runs (docs/federation.md)',
    },
    ...SERVER_STACK_OPTIONS,
    external: {
      type: 'string',
      valueName: 'FILE',
      description: 'with --provider external: the servers you run, as a connection file',
    },
    'connection-file': {
      type: 'string',
      valueName: 'PATH',
      description: 'write the component link, servers and accounts there as JSON once the servers are up',
    },
    rate: {
      type: 'number',
      valueName: 'N',
      above: 0,
      description: "send at most N requests per second to the gateway (instead of the SUT file's limits)",
    },
    jobs: {
      type: 'integer',
      valueName: 'N',
      min: 1,
      max: 64,
      // Read-only cases fill the task cases' waits on the gateway's clock (docs/suites.md).
      default: 2,
      description:
        'run up to N cases at once (1: one after another); those that must be alone still run alone (docs/suites.md)',
    },
    baseline: { type: 'string', valueName: 'FILE', description: 'the expected failures (docs/ci.md)' },
    seed: SEED_OPTION,
    repeat: {
      type: 'integer',
      valueName: 'N',
      min: 1,
      max: 1_000,
      default: 1,
      description: 'run N whole runs and report how stable each case is',
    },
    timeout: {
      type: 'duration',
      valueName: 'T',
      description: 'stop the run after T (e.g. 90s, 20m, 2h; 0: never), write the partial report and exit 3',
      defaultText: '15m, times 8 with --deep, times N with --repeat N',
    },
    out: {
      type: 'string',
      valueName: 'DIR',
      description: 'where the results go: a new or empty folder',
      defaultText: 'reports/<run-id>/ under the current directory',
    },
    'allure-html': { type: 'boolean', description: 'also generate the Allure HTML report (3 to 5 s)' },
    verbose: {
      type: 'boolean',
      description: 'also print why each inapplicable or untested case did not run',
    },
    debug: { type: 'boolean', description: 'print the stack of an error that stops the run' },
  },
  example: 'run --sut my-gateway.json --baseline baseline.json --out reports/agentconf',
  notes:
    'Exit 0 when every claimed profile passed, 1 when one did not (read conformance.md in --out), 3 when the gateway or the harness could not run or --timeout was reached, 130 on Ctrl-C.',
} as const satisfies CommandSpec;

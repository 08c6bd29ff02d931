/**
 * agentconf interop --sut A.json --sut B.json: two gateways under test on two federated domains,
 * judged against each other in both directions (docs/interop.md). Exit 0 only when every
 * scenario of both directions passed; 1 when one failed or could not be decided.
 */
import { resolve } from 'node:path';

import { SERVER_IMPLEMENTATIONS } from '../../harness/federation/server-provider.ts';
import { directionTable, runInterop } from '../../runner/interop/run-interop.ts';
import { silentProgress, terminalProgress } from '../../runner/terminal-report.ts';
import { freshSeed } from '../../suites/framework/seeded-random.ts';
import { committedRegistry } from '../../suites/registry/registry.ts';
import { EXIT, UsageError } from '../io.ts';
import type { Command } from '../main.ts';
import { parseCommandArgs, type CommandSpec } from '../options.ts';
import { DEFAULT_WORLD, readSutConfigFile, readWorldFile } from '../run-inputs.ts';
import { suiteVersion } from '../run/plan.ts';
import { SEED_OPTION } from '../run-spec.ts';

const SPEC = {
  name: 'interop',
  summary: 'two gateways under test against each other, on two federated servers, both directions',
  usage: ['interop --sut A.json --sut B.json'],
  options: {
    sut: {
      type: 'string',
      multiple: true,
      valueName: 'FILE',
      description: 'the SUT file of gateway A (on server A), then of gateway B (on server B)',
    },
    'server-a': {
      type: 'choice',
      valueName: 'S',
      choices: SERVER_IMPLEMENTATIONS,
      description: "server A's implementation: example.com and gateway A's domain",
      defaultText: 'prosody',
    },
    world: {
      type: 'string',
      valueName: 'FILE',
      description: 'the fixture world; gateway A loads its mirror image (docs/interop.md)',
      defaultText: 'fixtures/worlds/reference.json',
    },
    out: {
      type: 'string',
      valueName: 'DIR',
      description: "where each direction's result.json goes (<DIR>/A-to-B/, <DIR>/B-to-A/)",
      defaultText: 'reports/interop under the current directory',
    },
    seed: SEED_OPTION,
    verbose: { type: 'boolean', description: 'every case as it runs' },
  },
  example: 'interop --sut fixtures/sut/reference-gateway.json --sut fixtures/sut/reference-gateway.json',
  notes:
    'Exit 0 when every interop scenario passed in both directions, 1 when one failed or could not be decided (cantTell), 2 for bad arguments, 3 when the pair could not start.',
} as const satisfies CommandSpec;

export const interopCommand: Command = {
  spec: SPEC,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(SPEC, args);
    if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}`);
    const sutPaths = values.sut;
    if (sutPaths.length !== 2) {
      throw new UsageError(
        `name two SUT files, gateway A's then gateway B's (--sut A.json --sut B.json), not ${String(sutPaths.length)}`,
      );
    }
    const [pathA = '', pathB = ''] = sutPaths;
    const a = readSutConfigFile(io, pathA);
    if (a === EXIT.usage) return a;
    const b = readSutConfigFile(io, pathB);
    if (b === EXIT.usage) return b;
    const world = readWorldFile(io, values.world ?? DEFAULT_WORLD);
    if (world === EXIT.usage) return world;
    const seed = values.seed ?? freshSeed();
    const out = resolve(values.out ?? 'reports/interop');
    io.out(`interop: seed ${String(seed)}; results in ${out}\n`);
    let result;
    try {
      result = await runInterop({
        suts: { a, b },
        referenceWorld: world.world,
        ...(values['server-a'] === undefined ? {} : { serverA: values['server-a'] }),
        seed,
        suiteVersion: suiteVersion(),
        specRevision: committedRegistry().specVersion,
        out,
        log: (line) => {
          io.out(`${line}\n`);
        },
        progress: values.verbose
          ? terminalProgress((text) => {
              io.out(text);
            }, true)
          : silentProgress,
      });
    } catch (error) {
      io.err(
        `agentconf interop: the pair could not run: ${error instanceof Error ? error.message : String(error)}\n`,
      );
      return EXIT.couldNotRun;
    }
    for (const direction of result.directions) io.out(`\n${directionTable(direction)}`);
    io.out(`\ninterop: ${result.passed ? 'passed' : 'not passed'} (seed ${String(seed)})\n`);
    return result.passed ? EXIT.ok : EXIT.invalid;
  },
};

// Issue 22, item 7, the long version of integration/chaos-gateway.test.ts: the whole default
// suite against the chaos gateway for several seeds (about two minutes each on a loaded
// two-core machine), with disco#info answered right (so that the cases get past the preflight to
// the chaos) and with disco#info as random as the rest. Each seed is printed; a failure replays
// with that seed alone.
import { describe, it } from 'vitest';
import { chaosRuns } from './test-support/chaos-run.ts';
import { expectSurvivedChaos } from './test-support/chaos-verdicts.ts';

const run = chaosRuns();

const RUNS = [
  { seed: 5, discoInfo: 'advertise-all' },
  { seed: 6, discoInfo: 'advertise-all' },
  { seed: 7, discoInfo: 'advertise-all' },
  { seed: 8, discoInfo: 'chaos' },
] as const;

describe('the chaos gateway, the whole default suite', () => {
  for (const { seed, discoInfo } of RUNS) {
    it(`seed ${String(seed)}, disco#info ${discoInfo}: no crash, every report, no pass on garbage`, async () => {
      console.info(`chaos gateway: seed ${String(seed)}, disco#info ${discoInfo}`);
      expectSurvivedChaos(await run({ seed, discoInfo, fixtures: 'world-file' }), seed);
    }, 600_000);
  }
});

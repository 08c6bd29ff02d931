// Issue 22, item 7: a gateway answering at random — wrong types, errors, garbage payloads, two
// replies, none, replies after the deadline, its link dropped mid-case — never crashes the
// runner, always gets its reports, and no case passes on its garbage. A seeded slice of the
// suite here; the whole default suite over several seeds is verdict-proofs-chaos.test.ts.
import { describe, expect, it } from 'vitest';
import { chaosRuns } from './test-support/chaos-run.ts';
import { expectSurvivedChaos } from './test-support/chaos-verdicts.ts';

const run = chaosRuns();

/** Sections whose cases send many IQs in parallel, hold tasks, or provision: where rejections hide. */
const SLICE = ['errors.', 'security.', 'invocation.', 'task-recovery.', 'gateway-info.', 'search.octet'];
const SEED = 2201;

describe('the chaos gateway', () => {
  it(`seed ${String(SEED)}: the runner survives a slice of the suite, reports it, passes nothing on garbage`, async () => {
    console.info(
      `chaos gateway: seed ${String(SEED)} (replay: the same seed in integration/chaos-gateway.test.ts)`,
    );
    const chaos = await run({ seed: SEED, discoInfo: 'advertise-all', fixtures: 'world-file', grep: SLICE });
    expectSurvivedChaos(chaos, SEED);
  }, 300_000);

  // The reproduction of issue 22's crash: registrations accepted, no fixture world, and the runner
  // died of an unhandled rejection in errors.no-payload-echo without writing a report.
  it('a gateway that accepts every registration but has no world: errors.no-payload-echo cannot tell, and says why', async () => {
    const chaos = await run({
      seed: 1,
      discoInfo: 'advertise-all',
      answers: ['empty-result'],
      fixtures: 'manual',
      grep: ['errors.no-payload-echo'],
    });
    expect(chaos.reports['result.json'], chaos.output).toBe(true);
    const echo = chaos.result?.cases.find((result) => result.case.id === 'errors.no-payload-echo');
    expect(echo?.outcome, chaos.output).toBe('cantTell');
    expect(echo?.reason).toMatch(/^needs the fixture world/);
    // Nothing was sent: the case stopped before its first request.
    expect(echo?.attempts.at(-1)?.transcriptText ?? '').not.toMatch(/SEND\s+<iq/);
  }, 300_000);
});

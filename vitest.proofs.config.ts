// `npm run test:proofs`: the suite's own verdict proofs (integration/variants/README.md) and the
// external-gateway example. Each starts whole `agentconf run`s against gateway variants.
//
// The race, crash and timing proofs (and the concurrency proof, which compares runs whose timing
// cases must decide alike) judge by what the machine lets them see, so they run last, one at a
// time, once the others are done (vitest runs project groups in `sequence.groupOrder`). The
// others judge outcomes that do not depend on timing; a whole run keeps about half a core busy
// (it mostly waits for replies), so two of them share the CI machine's two cores, as npm test's
// integration files do.
import { defineConfig } from 'vitest/config';

const ALONE = [
  'integration/verdict-proofs-timing.test.ts',
  'integration/verdict-proofs-races.test.ts',
  'integration/verdict-proofs-crash.test.ts',
  'integration/verdict-proofs-permitted-time.test.ts',
  'integration/verdict-proofs-permitted-deadlines.test.ts',
  'integration/verdict-proofs-concurrency.test.ts',
];

const TIMEOUTS = { testTimeout: 120_000, hookTimeout: 600_000 };

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'proofs-alone',
          include: ALONE,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
          ...TIMEOUTS,
        },
      },
      {
        test: {
          name: 'proofs',
          include: ['integration/verdict-proofs-*.test.ts', 'integration/external-gateway-example.test.ts'],
          exclude: ALONE,
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
          ...TIMEOUTS,
        },
      },
    ],
  },
});

// `npm run test:proofs`: the suite's own verdict proofs (integration/variants/README.md) and the
// external-gateway example. Each starts whole `agentconf run`s against gateway variants, so they
// run one file at a time: the race, crash and timing proofs judge by what a loaded machine lets
// them see, and two federations fighting for two cores would only make them slower to conclude.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['integration/verdict-proofs-*.test.ts', 'integration/external-gateway-example.test.ts'],
    maxWorkers: 1,
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 600_000,
  },
});

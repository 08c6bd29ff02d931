import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'protocol/**/*.test.ts',
      'tools/**/*.test.ts',
      'harness/**/*.test.ts',
      'reference-gateway/**/*.test.ts',
      'reference-bridge/**/*.test.ts',
      'reference-caller/**/*.test.ts',
      'bin/**/*.test.ts',
      'suites/**/*.test.ts',
      'runner/**/*.test.ts',
      'cli/**/*.test.ts',
      'integration/**/*.test.ts',
      'mutants/**/*.test.ts',
      '*.test.ts',
    ],
    // The verdict proofs and the external-gateway example run whole conformance runs against
    // gateway variants: `npm run test:proofs` (vitest.proofs.config.ts).
    exclude: [
      '**/node_modules/**',
      '**/.git/**',
      'harness/**/*.containers.test.ts',
      'integration/verdict-proofs-*.test.ts',
      'integration/external-gateway-example.test.ts',
      // Clean Debian roots running whole installs as root: npm run test:fresh-machine.
      'integration/clean-root/in-root.test.ts',
      'integration/clean-root/fresh-machine.test.ts',
      'integration/ci-recipes/**',
    ],
    // The JSON-Schema suite and XSD batches are CPU-heavy; two workers match the CI machine.
    maxWorkers: 2,
    testTimeout: 30_000,
    coverage: {
      provider: 'v8',
      include: ['protocol/**/*.ts'],
      // Declaration files hold no code, and the coverage remapper cannot parse some of them.
      exclude: ['**/*.test.ts', '**/test-support/**', '**/*.d.ts'],
      reporter: ['text-summary', 'json-summary'],
      thresholds: { 'protocol/**/*.ts': { lines: 90 } },
    },
  },
});

import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'protocol/**/*.test.ts',
      'harness/**/*.test.ts',
      'reference-gateway/**/*.test.ts',
      'bin/**/*.test.ts',
      'suites/**/*.test.ts',
      'runner/**/*.test.ts',
      'cli/**/*.test.ts',
      'integration/**/*.test.ts',
      'mutants/**/*.test.ts',
      '*.test.ts',
    ],
    exclude: ['**/node_modules/**', '**/.git/**', 'harness/**/*.containers.test.ts'],
    // The JSON-Schema suite and XSD batches are CPU-heavy; two workers match the CI machine.
    maxWorkers: 2,
    testTimeout: 30_000,
    coverage: {
      provider: 'v8',
      include: ['protocol/**/*.ts'],
      exclude: ['**/*.test.ts', '**/test-support/**'],
      reporter: ['text-summary', 'json-summary'],
      thresholds: { 'protocol/**/*.ts': { lines: 90 } },
    },
  },
});

// The fresh-machine proofs (integration/clean-root/README.md): a Debian root made from nothing but
// debootstrap, Node.js and npm, and the README's commands run in a fresh clone inside it; and the
// docs/ci.md jobs run as written in such a root (integration/ci-recipes/). As root,
// one file at a time: each builds or copies a root of about a gigabyte and runs whole installs.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['integration/clean-root/**/*.test.ts', 'integration/ci-recipes/**/*.test.ts'],
    env: { AGENTCONF_FRESH_PROOF: '1' },
    maxWorkers: 1,
    fileParallelism: false,
    // npm ci with a native build, Prosody installed by the run, then the project's whole test suite.
    testTimeout: 90 * 60_000,
    // The first root on a machine builds the template (debootstrap and g++): a few minutes.
    hookTimeout: 20 * 60_000,
  },
});

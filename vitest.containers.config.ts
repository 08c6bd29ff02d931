// `npm run test:containers`: the container provider's tests, against a real Docker engine. The
// global setup finds the engine (starting dockerd when root may) and the Prosody image (building
// local/prosody:0.12 from Debian packages when no image is there), and undoes what it started.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['harness/**/*.containers.test.ts'],
    globalSetup: ['harness/containers/containers-test-setup.ts'],
    // Each file boots its own federation; two at a time match the 2-core CI machine.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
});

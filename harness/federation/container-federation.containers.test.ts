// The container provider, proven the way the native one is (test-support/federation-proofs.ts),
// plus what only containers have: each server in a running container of its own on the run's
// network. Needs a Docker engine and a Prosody image (see vitest.containers.config.ts:
// `npm run test:containers`); the default vitest config never collects this file.
import { expect } from 'vitest';

import { listContainers } from '../containers/test-support/engine-queries.ts';
import { containerProvider, FEDERATION_LABEL, type ContainerFederation } from './container-provider.ts';
import { describeFederationProofs } from './test-support/federation-proofs.ts';

async function startContainerFederation(): Promise<ContainerFederation> {
  const federation = await containerProvider.start({ hostile: true });
  process.stdout.write(
    `[container federation] image ${federation.image}: boot to ready ${Math.round(federation.timings.bootMs)} ms ` +
      `(preparation ${Math.round(federation.timings.prepareMs)} ms)\n`,
  );
  return federation;
}

describeFederationProofs({
  title: 'container federation',
  start: startContainerFederation,
  async topology(federation) {
    const { a, b, hostile } = federation.servers;
    expect(federation.provider).toBe('container');
    const containers = await listContainers(`${FEDERATION_LABEL}=${federation.runId}`);
    expect(containers.map((container) => container.state)).toEqual(['running', 'running', 'running']);
    for (const server of [a, b, hostile]) {
      expect(server?.networkAddress).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
      expect(server?.pid).toBeGreaterThan(0);
    }
  },
  // A killed container must come back, not only a running one restarted.
  killBeforeRestart: true,
});

// testcontainers is loaded on first use, never at import time, for two reasons:
//   - a run that never asks for an engine (`--provider native`, unit tests) does not pay for it;
//   - it pulls in signal-exit (through proper-lockfile), whose SIGINT/SIGTERM listener only ends
//     the process when it is the last listener at the moment it runs. Our exit cleanup
//     (federation/exit-cleanup.ts) leaves the decision to the other listeners of a signal, so it
//     must run first: its handlers are installed before testcontainers is loaded.
import type * as Testcontainers from 'testcontainers';
import type { ContainerRuntimeClient } from 'testcontainers';

import { registerExitCleanup } from '../federation/exit-cleanup.ts';

/**
 * testcontainers must neither start its reaper (Ryuk: an image from a registry; our own cleanup
 * does that job) nor look for the host with a helper container. Defaults only: a user's settings win.
 */
export function configureTestcontainers(env: Record<string, string | undefined> = process.env): void {
  env['TESTCONTAINERS_RYUK_DISABLED'] ??= 'true';
  env['TESTCONTAINERS_HOST_OVERRIDE'] ??= 'localhost';
}

let loading: Promise<typeof Testcontainers> | undefined;

export function loadTestcontainers(): Promise<typeof Testcontainers> {
  if (loading === undefined) {
    // Registering (and at once dropping) a cleanup installs the exit handlers.
    registerExitCleanup(() => undefined)();
    configureTestcontainers();
    loading = import('testcontainers');
  }
  return loading;
}

/**
 * The one Docker client: testcontainers' container-runtime client (dockerode underneath). It is
 * found once per process and shared with every GenericContainer; rejects when no engine answers.
 */
export async function dockerClient(): Promise<ContainerRuntimeClient> {
  const { getContainerRuntimeClient } = await loadTestcontainers();
  return getContainerRuntimeClient();
}

// What the native provider needs from each server process it runs, whatever the implementation.
import { readFile } from 'node:fs/promises';

import { ProcessExitedError, type ManagedProcess } from '../faults/managed-process.ts';
import type { FederationServer } from './server-provider.ts';
import { waitForXmppStreams, type StreamProbe } from './xmpp-readiness.ts';

export interface NativeServer extends FederationServer {
  /** Domains with user accounts (component domains excluded). */
  readonly virtualHosts: readonly string[];
  /** Starts (or restarts) the process and resolves once it serves every domain. */
  start(): Promise<void>;
  /** Creates or replaces an account; usable at once when the server runs, or from its start. */
  addAccount(username: string, domain: string, password: string): Promise<void>;
}

export async function readLogFile(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return '';
  }
}

/** Waits for every probe to be answered; fails fast, with the server's log, if the process dies. */
export async function waitUntilServing(
  child: ManagedProcess,
  probes: readonly StreamProbe[],
  readyTimeoutMs: number,
  readLog: () => Promise<string>,
): Promise<void> {
  const died = child.waitForExit().then(async (status): Promise<never> => {
    throw new ProcessExitedError(child.name, status, `${child.runOutput}\n${(await readLog()).slice(-4000)}`);
  });
  try {
    await waitForXmppStreams(probes, { deadline: Date.now() + readyTimeoutMs, abandon: died });
  } catch (error) {
    if (error instanceof ProcessExitedError) throw error;
    throw new Error(`${child.name} did not become ready; log:\n${(await readLog()).slice(-4000)}`, {
      cause: error,
    });
  } finally {
    // The process ends some day (at the latest when the run stops): nobody is waiting any more.
    died.catch(() => undefined);
  }
}

// Starts a TypeScript entry point of this repository as a process of its own (through bin/run-ts.js).
import { fileURLToPath } from 'node:url';

import { ManagedProcess } from '../../faults/managed-process.ts';

const RUN_TS = fileURLToPath(new URL('../../../bin/run-ts.js', import.meta.url));

export function startTsProcess(
  name: string,
  entry: URL,
  args: readonly string[] = [],
  env: Readonly<Record<string, string>> = {},
): Promise<ManagedProcess> {
  return ManagedProcess.start({
    name,
    command: process.execPath,
    args: [RUN_TS, fileURLToPath(entry), ...args],
    env,
  });
}

// The README's promise: on a fresh Debian machine with Node.js 20 and npm, its two commands, typed
// as written, exit 0. Proved in a clean root (make-root) on a fresh clone of the committed HEAD, so
// that nothing this machine or its working tree has (node_modules, untracked files, packages a
// session installed by hand) can make them pass. Logs and timings stay in reports/fresh-machine/.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { REPO_ROOT } from '../../harness/repo-root.ts';
import { SHARED_DIR } from '../../protocol/test-support/shared-paths.ts';
import { createCleanRoot, type CleanRoot } from './clean-root.ts';
import { requireFreshProofRun } from './fresh-proof-guard.ts';
import { readmeCommands } from './readme-commands.ts';

requireFreshProofRun();

const run = promisify(execFile);
const REPORTS = join(REPO_ROOT, 'reports', 'fresh-machine');
const CLONE = '/root/agentconf';
const TAIL_LINES = 80;

const commands = readmeCommands(await readFile(join(REPO_ROOT, 'README.md'), 'utf8'));
const timings: Record<string, number> = {};
let root: CleanRoot;

beforeAll(async () => {
  await rm(REPORTS, { recursive: true, force: true });
  await mkdir(REPORTS, { recursive: true });
  let began = Date.now();
  root = await createCleanRoot();
  timings['make-root ms'] = Date.now() - began;
  // A clone over file:// copies the objects as any remote would: no hard links, no alternates.
  began = Date.now();
  await run('git', ['clone', '--quiet', `file://${REPO_ROOT}`, join(root.dir, CLONE)]);
  timings['git clone ms'] = Date.now() - began;
  // The spec and the external test vectors sit beside the checkout, as they do beside CI's; they
  // are data the tests read, not tools a machine installs. Without them about 450 tests of
  // `npm test` say NOT RUN, and this is the only `npm test` CI runs.
  for (const part of ['spec', 'vectors']) {
    const source = join(SHARED_DIR, part);
    if (existsSync(source)) await root.copyIn(source, join('/root/shared', part));
  }
});

afterAll(async () => {
  // The run's own reports, for a failure's post-mortem.
  const runReports = join(root.dir, CLONE, 'reports');
  if (existsSync(runReports)) await cp(runReports, join(REPORTS, 'clone-reports'), { recursive: true });
  await writeFile(join(REPORTS, 'timings.json'), `${JSON.stringify(timings, null, 2)}\n`);
  await root.dispose();
});

const tail = (output: string): string => output.trimEnd().split('\n').slice(-TAIL_LINES).join('\n');

describe("README.md's commands on a fresh Debian machine", () => {
  commands.forEach((command, index) => {
    it(`exits 0: ${command}`, async () => {
      const logFile = join(REPORTS, `command-${index + 1}.log`);
      await writeFile(logFile, `$ ${command}\n`);
      const began = Date.now();
      const result = await root.run(command, { cwd: CLONE, logFile });
      timings[`command ${index + 1} ms`] = Date.now() - began;
      const failure = `"${command}" exited ${result.exitCode} in the clean root; its last ${TAIL_LINES} lines follow, the whole log is ${logFile}\n${tail(result.output)}`;
      expect(result.exitCode, failure).toBe(0);
    });
  });
});

// Interop pairs on the same bare machine, after the README's commands: the mixed stack
// (ejabberd as server A, installed on first use like Prosody) is the one a hand-set machine
// would hide. Not a README command, but the promise for `agentconf interop`.
describe('agentconf interop on a fresh Debian machine', () => {
  it('passes every scenario both ways, reference gateway × reference gateway, ejabberd ↔ Prosody', async () => {
    const command =
      'npx agentconf interop --sut fixtures/sut/reference-gateway-caller.json --sut fixtures/sut/reference-gateway-caller.json --server-a ejabberd --out reports/interop-fresh';
    const logFile = join(REPORTS, 'interop.log');
    await writeFile(logFile, `$ ${command}\n`);
    const began = Date.now();
    const result = await root.run(command, { cwd: CLONE, logFile });
    timings['interop ms'] = Date.now() - began;
    expect(
      result.exitCode,
      `"${command}" exited ${result.exitCode} in the clean root; its last ${TAIL_LINES} lines follow, the whole log is ${logFile}\n${tail(result.output)}`,
    ).toBe(0);
  });
});

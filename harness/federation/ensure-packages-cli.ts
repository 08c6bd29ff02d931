/**
 * Installs the Debian packages the native federation needs (Prosody, and ejabberd for the
 * cross-implementation tests) before a test run, so that the install does not land inside a
 * timed test. The same code path the provider uses on demand; exits 1 with the manual command
 * when it may not install (not root, no apt).
 *
 * Chromium (headless screenshots of the report pages, runner/reports/) is optional: without
 * it those tests announce "NOT RUN" instead of failing, so its absence does not fail the run.
 * libfiu (fiu-utils) is optional too: the storage-fault case says it cannot tell without it.
 */
import { CHROMIUM, EJABBERD, ensureSoftware, FIU, PROSODY } from './debian-packages.ts';

for (const requirement of [PROSODY, EJABBERD, CHROMIUM, FIU]) {
  try {
    const path = await ensureSoftware(requirement);
    process.stdout.write(`${requirement.name}: ${path}\n`);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    if (requirement === CHROMIUM)
      process.stderr.write('NOT INSTALLED: Chromium; the report rendering tests will not run\n');
    else if (requirement === FIU)
      process.stderr.write('NOT INSTALLED: libfiu; the storage-fault case cannot tell\n');
    else process.exitCode = 1;
  }
}

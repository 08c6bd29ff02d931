/**
 * Installs the system tools (../system-tools.ts) before a test run, so that no install lands
 * inside a timed test: every entry a default run or `npm test` uses, by the same code path the
 * providers and the run take on demand. Exits 1 when one they require is missing and may not be
 * installed here (not root, no apt-get); one the tests skip without is only reported. The
 * container tooling's entries are left to docker-engine-cli.ts and build-image, CI's later step.
 */
import { SYSTEM_TOOLS } from '../system-tools.ts';
import { ensureSoftware } from './debian-packages.ts';

for (const tool of SYSTEM_TOOLS.values()) {
  if (tool.ensuredBy === 'containers') continue;
  try {
    process.stdout.write(`${tool.name}: ${await ensureSoftware(tool)}\n`);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    if (tool.defaultRun === 'required' || tool.npmTest === 'required') process.exitCode = 1;
    else process.stderr.write(`NOT INSTALLED: ${tool.name}; ${tool.neededBy ?? 'its tests'} will not run\n`);
  }
}

// Issue 22, "A PASS can rest on too little": a run whose fixture world is not in the gateway
// stops with exit 3 before any case, naming what failed, instead of judging every case on an
// empty directory. Each variant is the reference gateway's own SUT file with one thing taken
// away (integration/variants/README.md).
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli/test-support/run-cli.ts';
import { EXIT } from '../cli/io.ts';

async function runVariant(sutFile: string): Promise<{ code: number; stderr: string; files: string[] }> {
  const out = mkdtempSync(join(tmpdir(), 'agentconf-proof-'));
  try {
    const { code, stderr } = await runCli([
      'run',
      '--provider',
      'native',
      '--sut',
      join(import.meta.dirname, 'variants', sutFile),
      '--out',
      out,
    ]);
    return { code, stderr, files: readdirSync(out) };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

describe('fixtures not in place', () => {
  it('a world-file gateway that never loaded the world file: exit 3 before any case, saying so', async () => {
    const run = await runVariant('unloaded-world.json');
    expect(run.code, run.stderr).toBe(EXIT.couldNotRun);
    expect(run.stderr).toMatch(
      /the gateway answers none of the \d+ active endpoint\(s\) .* it did not load the world file/,
    );
    expect(run.stderr).toContain('nothing was judged');
    expect(run.files).not.toContain('result.json');
  });

  it('an admin-iq gateway that refuses the admin account: exit 3 before any case, naming the refused operations', async () => {
    const run = await runVariant('refused-provisioning.json');
    expect(run.code, run.stderr).toBe(EXIT.couldNotRun);
    expect(run.stderr).toMatch(
      /fixtures: admin-iq provisioning as admin@server\.example failed \(\d+ operation\(s\) refused, 0 version\(s\) registered\)/,
    );
    expect(run.stderr).toMatch(/\n {2}register \S+@agents\.example /);
    expect(run.files).not.toContain('result.json');
  });
});
